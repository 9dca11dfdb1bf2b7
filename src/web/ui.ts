// Shared behaviour of the pages: forms that show the problem's detail and
// mark the fields it names, polite announcements, a confirmation dialog,
// copy buttons, and times.
import { ApiError } from './api'
import { html, render } from './html'
import { session } from './session'
import { toSignIn } from './router'

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text: string) {
  const region = document.getElementById('announcer')
  if (!region) return
  region.textContent = ''
  // A change in a later frame is announced even when the text repeats.
  requestAnimationFrame(() => (region.textContent = text))
}

const fieldsOf = (form: HTMLFormElement) => [...form.querySelectorAll<HTMLElement>('[data-pointer], input[name], select[name], textarea[name]')]
const pointerOf = (el: HTMLElement) => el.dataset.pointer ?? `/${el.getAttribute('name')}`

export function clearErrors(form: HTMLFormElement) {
  for (const el of fieldsOf(form)) {
    el.removeAttribute('aria-invalid')
    const described = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && !id.endsWith('-error'))
    if (described.length) el.setAttribute('aria-describedby', described.join(' '))
    else el.removeAttribute('aria-describedby')
  }
  form.querySelectorAll('.field-error').forEach((e) => e.remove())
  const box = form.querySelector('.form-error')
  if (box) box.textContent = ''
}

/** The words on the screen for a field: its label, without "(optional)"; its name when it has none. */
function labelOf(el: HTMLElement): string {
  const label = (el as HTMLInputElement).labels?.[0]
  const text = label ? [...label.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('').trim() : ''
  return text || el.getAttribute('aria-label') || el.getAttribute('name') || 'This field'
}

/**
 * A field's error in the words on the screen: the API names a field by its
 * property ("name: must not be empty", "email must be…"), the person sees
 * its label ("Name must not be empty").
 */
function worded(detail: string, el: HTMLElement): string {
  const key = pointerOf(el).split('/').pop() ?? ''
  const m = /^([\w.[\]/-]+)(:\s*|\s+)(.*)$/s.exec(detail)
  if (!m || !key || (m[1] !== key && !m[1]!.endsWith(`.${key}`) && !m[1]!.endsWith(`/${key}`))) return detail
  return `${labelOf(el)} ${m[3]}`
}

/** Marks one field with its error, below it, tied to it for screen readers; false when it has one already. */
function markField(el: HTMLElement, detail: string): boolean {
  const id = `${el.id || (el.id = `f-${Math.random().toString(36).slice(2, 8)}`)}-error`
  if (document.getElementById(id)) return false
  const p = document.createElement('p')
  p.className = 'field-error'
  p.id = id
  p.textContent = detail
  el.closest('.field')?.append(p) ?? el.after(p)
  el.setAttribute('aria-invalid', 'true')
  el.setAttribute('aria-describedby', [el.getAttribute('aria-describedby'), id].filter(Boolean).join(' '))
  return true
}

/** Clears one field's error (as the person edits it), and the form's message once no field has one. */
function clearField(form: HTMLFormElement, el: HTMLElement) {
  if (el.getAttribute('aria-invalid') !== 'true') return
  el.removeAttribute('aria-invalid')
  document.getElementById(`${el.id}-error`)?.remove()
  const described = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && id !== `${el.id}-error`)
  if (described.length) el.setAttribute('aria-describedby', described.join(' '))
  else el.removeAttribute('aria-describedby')
  if (!form.querySelector('[aria-invalid="true"]')) {
    const box = form.querySelector('.form-error')
    if (box) box.textContent = ''
  }
}

/** The form's alert box, made on first use. */
function formBox(form: HTMLFormElement): Element {
  let box = form.querySelector('.form-error')
  if (!box) {
    box = document.createElement('p')
    box.className = 'form-error'
    box.setAttribute('role', 'alert')
    form.prepend(box)
  }
  return box
}

/** What the box says when the fields carry the errors: their count, and any error no field shows. */
const summary = (marked: number, rest: string[]) =>
  [marked === 1 ? 'Check the field marked below.' : marked > 1 ? `Check the ${marked} fields marked below.` : '', ...rest].filter(Boolean).join(' ')

/** Shows an API error on a form: each field error next to its field, in the words on the screen, and the rest in its alert box. */
export function showError(form: HTMLFormElement, err: unknown) {
  const e = err instanceof ApiError ? err : new ApiError(0, 'Something went wrong; try again.')
  const fields = fieldsOf(form)
  let first: HTMLElement | undefined
  let marked = 0
  const rest: string[] = []
  for (const fe of e.errors) {
    const el = fields.find((f) => pointerOf(f) === fe.pointer) ?? fields.find((f) => fe.pointer?.startsWith(pointerOf(f) + '/'))
    if (!el) {
      rest.push(fe.detail)
      continue
    }
    if (markField(el, worded(fe.detail, el))) marked++
    first ??= el
  }
  formBox(form).textContent = marked ? summary(marked, rest) : e.detail
  first?.focus()
}

/**
 * What the browser can check of a form before it is sent (required, lengths,
 * e-mail and URL fields, numbers' bounds), every field at once: each error
 * next to its field, in the words on the screen. False when one failed.
 */
export function checkFields(form: HTMLFormElement): boolean {
  let first: HTMLElement | undefined
  let marked = 0
  for (const el of fieldsOf(form) as (HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement)[]) {
    // A field of another choice (a destination type not chosen) is not rendered: not checked.
    if (!el.willValidate || el.validity.valid || !el.getClientRects().length) continue
    const label = labelOf(el)
    const v = el.validity
    const input = el as HTMLInputElement
    const detail = v.valueMissing ? `${label} is required.`
      : v.typeMismatch && input.type === 'email' ? `${label} must be an e-mail address, such as jane@example.com.`
      : v.typeMismatch && input.type === 'url' ? `${label} must be a URL, such as https://example.com/hook.`
      : v.tooShort ? `${label} must be at least ${input.minLength} characters.`
      : v.tooLong ? `${label} must be at most ${input.maxLength} characters.`
      : v.rangeUnderflow ? `${label} must be at least ${input.min}.`
      : v.rangeOverflow ? `${label} must be at most ${input.max}.`
      : v.stepMismatch || v.badInput ? `${label} must be a whole number.`
      : v.patternMismatch && input.title ? `${label}: ${input.title}`
      : `${label}: ${el.validationMessage}`
    if (markField(el, detail)) marked++
    first ??= el
  }
  if (!marked) return true
  formBox(form).textContent = summary(marked, [])
  first?.focus()
  return false
}

/**
 * Handles a form's submit: clears old errors, checks every field the browser
 * can (checkFields), marks the submit button busy, runs `handler`, and shows
 * what went wrong. A field's error goes as it is edited. A 401 sends the
 * visitor to sign in.
 */
export function onSubmit(form: HTMLFormElement, handler: (data: FormData, form: HTMLFormElement) => Promise<void>) {
  // The browser's own checks show one bubble at a time: checkFields shows them all.
  form.noValidate = true
  form.addEventListener('input', (e) => {
    if (e.target instanceof HTMLElement) clearField(form, e.target)
  })
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    if (form.getAttribute('aria-busy') === 'true') return
    clearErrors(form)
    if (!checkFields(form)) return
    const button = (e.submitter as HTMLButtonElement | null) ?? form.querySelector('button[type=submit], button:not([type])')
    form.setAttribute('aria-busy', 'true')
    button?.setAttribute('disabled', '')
    try {
      await handler(new FormData(form), form)
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && session.me) {
        session.clear()
        return toSignIn()
      }
      showError(form, err)
    } finally {
      form.removeAttribute('aria-busy')
      button?.removeAttribute('disabled')
    }
  })
}

/** Runs an action from a button, with the button busy meanwhile; an error goes to `status` (an element with role=status or alert). */
export async function act(button: HTMLButtonElement, status: Element | null, action: () => Promise<void>) {
  button.disabled = true
  try {
    await action()
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      session.clear()
      return toSignIn()
    }
    const detail = err instanceof ApiError ? err.detail : 'Something went wrong; try again.'
    if (status) render(status, html`<span class="error">${detail}</span>`)
    announce(detail)
  } finally {
    if (button.isConnected) button.disabled = false
  }
}

/** Listens for `type` on `root` for targets matching `selector`. */
export function on<E extends Event = Event>(root: Element, type: string, selector: string, handler: (target: HTMLElement, e: E) => void) {
  root.addEventListener(type, (e) => {
    const target = (e.target as Element).closest?.(selector) as HTMLElement | null
    if (target && root.contains(target)) handler(target, e as E)
  })
}

/** A modal confirmation; resolves true when confirmed. Esc or Cancel resolves false. */
export function confirmDialog(message: string, confirmLabel: string): Promise<boolean> {
  const dialog = document.createElement('dialog')
  dialog.className = 'confirm'
  dialog.setAttribute('aria-labelledby', 'confirm-text')
  render(dialog, html`<form method="dialog">
    <p id="confirm-text">${message}</p>
    <div class="actions"><button value="cancel" class="secondary" autofocus>Cancel</button><button value="ok" class="danger">${confirmLabel}</button></div>
  </form>`)
  document.body.append(dialog)
  dialog.showModal()
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok')
      dialog.remove()
    })
  })
}

/** A read-only field with a secret shown once, and a copy button with a visible fallback. */
export function secretField(id: string, label: string, value: string) {
  return html`<div class="field secret">
    <label for="${id}">${label}</label>
    <div class="copy-row">
      <input id="${id}" readonly value="${value}" spellcheck="false" autocomplete="off">
      <button type="button" data-copy="${id}">Copy</button>
    </div>
    <p class="hint" id="${id}-copy-status" role="status"></p>
  </div>`
}

async function copyFrom(input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(input.value)
    return true
  } catch {
    // No clipboard API (a plain-http origin) or no permission: the old way.
    input.focus()
    input.select()
    try {
      return document.execCommand('copy')
    } catch {
      return false
    }
  }
}

/** Makes every [data-copy] button in `root` copy its field. */
export function copyButtons(root: Element) {
  on(root, 'click', 'button[data-copy]', async (button) => {
    const input = document.getElementById(button.dataset.copy!) as HTMLInputElement | null
    const status = document.getElementById(`${button.dataset.copy}-copy-status`)
    if (!input || !status) return
    const copied = await copyFrom(input)
    input.select()
    status.textContent = copied ? 'Copied to the clipboard.' : 'Could not copy: the text is selected, press Ctrl+C (⌘C on a Mac) to copy it.'
    status.classList.toggle('error', !copied)
  })
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })
/** A <time> of an ISO timestamp, in the visitor's locale and zone. */
export const time = (iso: string | null | undefined, withTime = true) =>
  iso ? html`<time datetime="${iso}">${(withTime ? dateTime : dateOnly).format(new Date(iso))}</time>` : html`<span class="muted">never</span>`

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/**
 * Says, under any field with a `maxlength`, when what was typed or pasted
 * reached it: the browser cuts the rest without a word. The note goes when
 * the text is shorter again. One listener for the whole document (main.ts).
 */
export function noteCutFields(doc: Document) {
  doc.addEventListener('input', (e) => {
    const el = e.target
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) || el.maxLength <= 0) return
    const id = `${el.id || el.name}-cut`
    let note = doc.getElementById(id)
    if (el.value.length < el.maxLength) return note?.remove()
    if (note) return
    note = doc.createElement('p')
    note.id = id
    note.className = 'hint cut-note'
    note.setAttribute('role', 'status')
    note.textContent = `At most ${el.maxLength} characters: anything longer is cut.`
    el.insertAdjacentElement('afterend', note)
  })
}
