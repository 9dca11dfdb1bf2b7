// Creating and editing a router: name, pattern, enabled, a form per
// destination type, optional title and body templates, and a live preview of
// what the destination would receive for a sample event (debounced, through
// the preview endpoint; nothing is sent). After creating a webhook router its
// signing secret is shown once. The bodies, the preview and the saving are in
// state/router_form.ts.
import { api } from './api'
import { html, path, render, type Html } from './html'
import { navigate, type PageContext } from './router'
import { act, announce, copyButtons, on, onSubmit, secretField } from './ui'
import { DESTINATIONS, destinationFields, readDestination } from './router_fields'
import { destinationSummary, routerPacing, routerState, testResult, type RouterView } from './page_routers'
import { readRouter, testRouter } from './state/routers'
import { createRouter, routerPreviews, routerSettings, templateOf, updateRouter, type RouterDraft } from './state/router_form'
import { pacingFields, pacingOf, readPacingFields } from './state/router_pacing'
import { pacingFieldset, wirePacing } from './router_pacing_fields'
import { hostNote } from '../delivery/destinations/host_note'

const PREVIEW_DEBOUNCE_MS = 350

const PRIORITY_NAMES = ['min (every event)', 'low', 'default', 'high', 'urgent']

function routerForm(ws: string, r: RouterView | null) {
  const type = r?.destination.type ?? DESTINATIONS[0]!.type
  return html`<div class="router-layout">
  <form class="stack router-form" novalidate>
    <p class="form-error" role="alert"></p>
    <fieldset><legend>Router</legend>
      <div class="field"><label for="r-name">Name</label><input id="r-name" name="name" required maxlength="100" value="${r?.name ?? ''}" autocomplete="off"></div>
      <div class="field"><label for="r-pattern">Pattern</label><input id="r-pattern" name="pattern" required maxlength="200" value="${r?.pattern ?? '*'}" spellcheck="false" autocomplete="off" aria-describedby="r-pattern-hint">
        <p class="hint" id="r-pattern-hint">Matches the event key: <code>*</code> is any run of characters (<code>user.*</code>); <code>*</code> alone matches every event.</p></div>
      <div class="field"><label for="r-min-priority">Minimum priority</label><select id="r-min-priority" name="minPriority" data-pointer="/minPriority" aria-describedby="r-min-priority-hint">${PRIORITY_NAMES.map((label, i) => html`<option value="${i + 1}" ${(r?.minPriority ?? 1) === i + 1 ? html`selected` : ''}>${i + 1} · ${label}</option>`)}</select>
        <p class="hint" id="r-min-priority-hint">Only events at or above this priority are forwarded; events without one are 3 (default).</p></div>
      <div class="field check"><input type="checkbox" id="r-enabled" name="enabled" ${r?.enabled === false ? '' : html`checked`}><label for="r-enabled">Enabled</label></div>
    </fieldset>
    <fieldset><legend>Destination</legend>
      ${r ? html`<p class="hint">Now: ${destinationSummary(r.destination)}. Its settings are secret and not shown again: leave these fields empty to keep them, or fill them in to replace them.</p>` : ''}
      <div class="field"><label for="r-type">Type</label>
        <select id="r-type" name="type" data-pointer="/destination/type">${DESTINATIONS.map((d) => html`<option value="${d.type}" ${d.type === type ? html`selected` : ''}>${d.label}</option>`)}</select></div>
      <div data-destination-fields>${destinationFields(type, !!r)}</div>
    </fieldset>
    <fieldset><legend>Template <span class="muted">(optional)</span></legend>
      <p class="hint" id="tpl-hint">Mustache: <code>{{message}}</code>, <code>{{title}}</code>, <code>{{event}}</code>, <code>{{channel}}</code>, <code>{{data.plan}}</code>… Empty: the default rendering. For a webhook, the body replaces the whole JSON body.</p>
      <div class="field"><label for="r-title">Title template</label><input id="r-title" name="title" data-pointer="/template/title" value="${r?.template?.title ?? ''}" spellcheck="false" autocomplete="off" aria-describedby="tpl-hint"></div>
      <div class="field"><label for="r-body">Body template</label><textarea id="r-body" name="body" data-pointer="/template/body" rows="4" spellcheck="false" aria-describedby="tpl-hint">${r?.template?.body ?? ''}</textarea></div>
    </fieldset>
    ${pacingFieldset(pacingFields(r))}
    <div class="actions">
      <button type="submit">${r ? 'Save changes' : 'Create router'}</button>
      ${r ? html`<button type="button" class="secondary" data-test>Send test event</button>` : ''}
      <a class="button secondary" href="${path('w', ws, 'routers')}">Cancel</a>
    </div>
    <div role="status" data-test-result></div>
  </form>
  <section class="preview" aria-labelledby="preview-h">
    <h2 id="preview-h">Preview</h2>
    <p class="hint">What the destination receives for a sample event <code>user.signup</code>. Nothing is sent.</p>
    <p class="muted" data-preview-type></p>
    <p class="error" role="status" data-preview-error></p>
    <pre class="preview-body" tabindex="0" aria-label="Rendered payload"><code data-preview-body>…</code></pre>
  </section>
  </div>`
}

/** After creating: the signing secret, shown this once, for a type whose receiver checks it. */
function created(ws: string, name: string, id: string, type: string, secret: string): Html {
  return html`<h1 tabindex="-1">Router “${name}” created</h1>
  ${DESTINATIONS.find((d) => d.type === type)?.signed
    ? html`<div class="callout"><p><strong>Copy the signing secret now: it is shown only this once.</strong> Your receiver checks each request's <code>webhook-signature</code> with it (Standard Webhooks).</p>
        ${secretField('router-secret', 'Signing secret', secret)}</div>`
    : ''}
  <div class="actions"><button type="button" data-test="${id}">Send test event</button><a class="button secondary" href="${path('w', ws, 'routers')}">Back to routers</a></div>
  <div role="status" data-test-result></div>`
}

function readOnly(ctx: PageContext, router: RouterView | null) {
  const ws = ctx.workspace.workspace
  render(
    ctx.root,
    html`<h1 tabindex="-1">${router ? `Router “${router.name}”` : 'New router'}</h1>
    <p class="notice">Only owners and admins create and change routers.</p>
    ${router ? html`<dl class="details"><dt>Pattern</dt><dd><code>${router.pattern}</code></dd><dt>Destination</dt><dd>${destinationSummary(router.destination)}</dd><dt>Pacing</dt><dd>${routerPacing(router)}</dd><dt>State</dt><dd>${routerState(router)}</dd></dl>` : ''}
    <p><a href="${path('w', ws, 'routers')}">Back to routers</a></p>`,
  )
}

/** The template of the form, or null when both parts are empty. */
const readTemplate = (form: HTMLFormElement) => templateOf(form.querySelector<HTMLInputElement>('#r-title')!.value, form.querySelector<HTMLTextAreaElement>('#r-body')!.value)

/**
 * Renders the preview now, and again a moment after each change. Requests may
 * overlap; an answer to an older state of the form is dropped.
 */
async function livePreview(ctx: PageContext, form: HTMLFormElement) {
  const typeSelect = form.querySelector<HTMLSelectElement>('#r-type')!
  const errorBox = ctx.root.querySelector('[data-preview-error]')!
  const previews = routerPreviews(api, ctx.workspace.workspace)
  let timer: ReturnType<typeof setTimeout> | undefined
  // Once a router is created the page shows its secret in place of the form:
  // a preview asked for meanwhile (leaving a field schedules one) has nowhere to go.
  const gone = () => ctx.signal.aborted || !form.isConnected
  const preview = async () => {
    if (gone()) return
    const outcome = await previews(readDestination(form, typeSelect.value).destination, readTemplate(form))
    if (!outcome || gone()) return
    if ('problem' in outcome) {
      // The last good rendering would pass for this one: it goes, and the error says why.
      errorBox.textContent = `Not rendered: ${outcome.problem}`
      ctx.root.querySelector('[data-preview-type]')!.textContent = ''
      ctx.root.querySelector('[data-preview-body]')!.textContent = '…'
      return
    }
    errorBox.textContent = ''
    ctx.root.querySelector('[data-preview-type]')!.textContent = `Content-Type: ${outcome.contentType}`
    ctx.root.querySelector('[data-preview-body]')!.textContent = outcome.body
  }
  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(preview, PREVIEW_DEBOUNCE_MS)
  }
  form.addEventListener('input', schedule)
  form.addEventListener('change', schedule)
  ctx.signal.addEventListener('abort', () => clearTimeout(timer))
  await preview()
}

/** What the form holds, as state/router_form.ts takes it. */
function readDraft(form: HTMLFormElement, data: FormData): RouterDraft {
  const { destination, filled } = readDestination(form, form.querySelector<HTMLSelectElement>('#r-type')!.value)
  return { ...routerSettings(data), destination, filled, template: readTemplate(form), pacing: pacingOf(readPacingFields(data)) }
}

/** Saves the form: changes to an existing router, or a new one and what is shown once. Resolves to the created router's name. */
async function save(ctx: PageContext, form: HTMLFormElement, router: RouterView | null, data: FormData): Promise<string | null> {
  const ws = ctx.workspace.workspace
  const draft = readDraft(form, data)
  if (router) {
    await updateRouter(api, ws, router, draft)
    announce(`Router ${draft.name} saved.`)
    navigate(path('w', ws, 'routers'))
    return null
  }
  const made = await createRouter(api, ws, draft)
  announce(`Router ${draft.name} created.`)
  render(ctx.root, created(ws, draft.name, made.id, draft.destination.type, made.secret))
  ctx.root.querySelector('h1')!.focus()
  return draft.name
}

/**
 * Under a URL field whose service has known hosts (a Slack router's
 * hooks.slack.com), says as it is typed when the address is on another one:
 * a note, not an error, since compatible servers exist (host_note.ts).
 */
function noteHosts(form: HTMLFormElement, typeSelect: HTMLSelectElement) {
  form.addEventListener('input', (e) => {
    const el = e.target
    if (!(el instanceof HTMLInputElement) || !el.dataset.hosts) return
    const note = form.querySelector(`[data-host-note="${el.name.slice(2)}"]`)
    if (note) note.textContent = hostNote({ hosts: el.dataset.hosts.split(' ') }, typeSelect.selectedOptions[0]?.text ?? typeSelect.value, el.value) ?? ''
  })
}

export async function routerFormPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  const router = ctx.params.id ? await readRouter(api, ws, ctx.params.id) : null
  ctx.title(router ? `Router ${router.name}` : 'New router')
  if (!ctx.canManage) return readOnly(ctx, router)
  render(ctx.root, html`<p class="crumbs"><a href="${path('w', ws, 'routers')}">← Routers</a></p><h1 tabindex="-1">${router ? `Edit router “${router.name}”` : 'New router'}</h1>${routerForm(ws, router)}`)
  const form = ctx.root.querySelector<HTMLFormElement>('form.router-form')!
  const typeSelect = form.querySelector<HTMLSelectElement>('#r-type')!
  const fields = form.querySelector('[data-destination-fields]')!
  typeSelect.addEventListener('change', () => render(fields, destinationFields(typeSelect.value, !!router && typeSelect.value === router.destination.type)))
  wirePacing(form)
  noteHosts(form, typeSelect)
  await livePreview(ctx, form)

  let name = router?.name ?? ''
  onSubmit(form, async (data) => {
    name = (await save(ctx, form, router, data)) ?? name
  })
  copyButtons(ctx.root)
  on(ctx.root, 'click', '[data-test]', (b) =>
    act(b as HTMLButtonElement, ctx.root.querySelector('[data-test-result]'), async () => {
      const result = ctx.root.querySelector('[data-test-result]')!
      render(result, html`<p class="muted">Sending a test event…</p>`)
      render(result, testResult(name, await testRouter(api, ws, b.dataset.test || router!.id)))
    }),
  )
}
