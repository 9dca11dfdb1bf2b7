// The fields of each destination type, rendered as a form and read back into
// the destination object the routers API takes. The types are the server's
// registry (src/delivery/destinations), built into the bundle as data by
// src/http/routes/web.ts: none of their code comes to the browser. Every input
// carries the JSON pointer the API names in its errors, so a problem lands on
// its field.
import type { DestinationForm, Field } from '../delivery/destinations/destination'
import { html, type Html } from './html'

declare const HERALD_DESTINATIONS: DestinationForm[]

/** The destination types, in the registry's order. */
export const DESTINATIONS: readonly DestinationForm[] = HERALD_DESTINATIONS
const formOf = (type: string) => DESTINATIONS.find((d) => d.type === type)

const pointer = (key: string) => `/destination/${key.replaceAll('.', '/')}`
const idOf = (key: string) => `dest-${key.replaceAll('.', '-')}`

function input(f: Field, optional: boolean): Html {
  const id = idOf(f.key)
  const hintId = f.hint ? `${id}-hint` : ''
  const common = html`id="${id}" name="d.${f.key}" data-pointer="${pointer(f.key)}" ${hintId ? html`aria-describedby="${hintId}"` : ''} ${f.required && !optional ? html`required` : ''} ${f.placeholder ? html`placeholder="${f.placeholder}"` : ''}`
  // A URL on another host than the service's is noted as it is typed (page_router_form.ts), not refused.
  const hosts = f.hosts?.length ? html` data-hosts="${f.hosts.join(' ')}"` : ''
  const hint = html`${f.hint ? html`<p class="hint" id="${hintId}">${f.hint}</p>` : ''}${f.hosts?.length ? html`<p class="hint host-note" data-host-note="${f.key}" role="status"></p>` : ''}`
  if (f.kind === 'checkbox') return html`<div class="field check"><input type="checkbox" ${common}><label for="${id}">${f.label}</label>${hint}</div>`
  const control =
    f.kind === 'lines'
      ? html`<textarea ${common} rows="2" spellcheck="false"></textarea>`
      : html`<input ${common}${hosts} type="${f.kind === 'url' ? 'url' : f.kind === 'secret' ? 'password' : f.kind === 'number' ? 'number' : 'text'}" autocomplete="${f.kind === 'secret' ? 'new-password' : 'off'}" spellcheck="false">`
  return html`<div class="field"><label for="${id}">${f.label}${f.required && !optional ? '' : html` <span class="muted">(optional)</span>`}</label>${control}${hint}</div>`
}

/** The inputs of one destination type. `keeping`: editing, where empty fields keep the stored destination. */
export const destinationFields = (type: string, keeping: boolean) => html`${(formOf(type)?.fields ?? []).map((f) => input(f, keeping))}`

function set(target: Record<string, unknown>, key: string, value: unknown) {
  const [head, ...rest] = key.split('.')
  if (!rest.length) target[head!] = value
  else set((target[head!] ??= {}) as Record<string, unknown>, rest.join('.'), value)
}

/** The destination the form describes; `filled` says whether any field of it was filled in. */
export function readDestination(form: HTMLFormElement, type: string): { destination: Record<string, unknown> & { type: string }; filled: boolean } {
  const destination: Record<string, unknown> & { type: string } = { type }
  let filled = false
  for (const f of formOf(type)?.fields ?? []) {
    const el = form.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[name="d.${f.key}"]`)
    if (!el) continue
    if (f.kind === 'checkbox') {
      if ((el as HTMLInputElement).checked) set(destination, f.key, true)
      continue
    }
    const raw = el.value.trim()
    if (!raw) continue
    filled = true
    if (f.kind === 'number') set(destination, f.key, Number(raw))
    else if (f.kind === 'list') set(destination, f.key, raw.split(/[\s,;]+/).filter(Boolean))
    else if (f.kind === 'lines') set(destination, f.key, Object.fromEntries(raw.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()])))
    else if (f.kind === 'integerOrText' && /^-?\d+$/.test(raw)) set(destination, f.key, Number(raw))
    else set(destination, f.key, raw)
  }
  return { destination, filled }
}
