// The fields of each destination type, as data (the same as
// src/delivery/destinations/schema.ts), rendered as a form and read back into the
// destination object the routers API takes. Every input carries the JSON
// pointer the API names in its errors, so a problem lands on its field.
import { html, type Html } from './html'

interface Field {
  key: string // path in the destination, dotted: "smtp.host"
  label: string
  kind?: 'url' | 'secret' | 'number' | 'checkbox' | 'lines' | 'list'
  hint?: string
  placeholder?: string
  required?: boolean
}

export const DESTINATIONS: Record<string, { label: string; fields: Field[] }> = {
  webhook: {
    label: 'Webhook',
    fields: [
      { key: 'url', label: 'URL', kind: 'url', required: true, placeholder: 'https://example.com/hooks/herald', hint: 'Receives a POST of JSON, signed per Standard Webhooks.' },
      { key: 'headers', label: 'Extra headers', kind: 'lines', placeholder: 'Authorization: Bearer …', hint: 'Optional, one per line: Name: value.' },
    ],
  },
  slack: { label: 'Slack', fields: [{ key: 'url', label: 'Incoming-webhook URL', kind: 'url', required: true, placeholder: 'https://hooks.slack.com/services/…' }] },
  discord: { label: 'Discord', fields: [{ key: 'url', label: 'Webhook URL', kind: 'url', required: true, placeholder: 'https://discord.com/api/webhooks/…' }] },
  teams: { label: 'Microsoft Teams', fields: [{ key: 'url', label: 'Workflows or incoming-webhook URL', kind: 'url', required: true }] },
  telegram: {
    label: 'Telegram',
    fields: [
      { key: 'botToken', label: 'Bot token', kind: 'secret', required: true, hint: 'From @BotFather: 123456:ABC…' },
      { key: 'chatId', label: 'Chat id', required: true, hint: 'A number, or @channelusername.' },
    ],
  },
  email: {
    label: 'E-mail',
    fields: [
      { key: 'to', label: 'Recipients', kind: 'list', required: true, placeholder: 'ops@example.com, jane@example.com', hint: 'Separated by commas or spaces.' },
      { key: 'from', label: 'Sender', hint: 'Optional; default: the server’s SMTP_FROM.' },
      { key: 'smtp.host', label: 'SMTP host', hint: 'Optional, with the fields below; default: the server’s SMTP_URL.' },
      { key: 'smtp.port', label: 'SMTP port', kind: 'number', placeholder: '587' },
      { key: 'smtp.secure', label: 'TLS from the first byte (port 465)', kind: 'checkbox' },
      { key: 'smtp.user', label: 'SMTP user' },
      { key: 'smtp.pass', label: 'SMTP password', kind: 'secret' },
    ],
  },
  sms: {
    label: 'SMS (Twilio)',
    fields: [
      { key: 'accountSid', label: 'Account SID', required: true, placeholder: 'AC…' },
      { key: 'authToken', label: 'Auth token', kind: 'secret', required: true },
      { key: 'from', label: 'From number', required: true, placeholder: '+15551234567', hint: 'E.164.' },
      { key: 'to', label: 'To number', required: true, placeholder: '+15557654321', hint: 'E.164.' },
    ],
  },
}

const pointer = (key: string) => `/destination/${key.replaceAll('.', '/')}`
const idOf = (key: string) => `dest-${key.replaceAll('.', '-')}`

function input(f: Field, optional: boolean): Html {
  const id = idOf(f.key)
  const hintId = f.hint ? `${id}-hint` : ''
  const common = html`id="${id}" name="d.${f.key}" data-pointer="${pointer(f.key)}" ${hintId ? html`aria-describedby="${hintId}"` : ''} ${f.required && !optional ? html`required` : ''} ${f.placeholder ? html`placeholder="${f.placeholder}"` : ''}`
  const hint = f.hint ? html`<p class="hint" id="${hintId}">${f.hint}</p>` : ''
  if (f.kind === 'checkbox') return html`<div class="field check"><input type="checkbox" ${common}><label for="${id}">${f.label}</label>${hint}</div>`
  const control =
    f.kind === 'lines'
      ? html`<textarea ${common} rows="2" spellcheck="false"></textarea>`
      : html`<input ${common} type="${f.kind === 'url' ? 'url' : f.kind === 'secret' ? 'password' : f.kind === 'number' ? 'number' : 'text'}" autocomplete="${f.kind === 'secret' ? 'new-password' : 'off'}" spellcheck="false">`
  return html`<div class="field"><label for="${id}">${f.label}${f.required && !optional ? '' : html` <span class="muted">(optional)</span>`}</label>${control}${hint}</div>`
}

/** The inputs of one destination type. `keeping`: editing, where empty fields keep the stored destination. */
export const destinationFields = (type: string, keeping: boolean) => html`${(DESTINATIONS[type]?.fields ?? []).map((f) => input(f, keeping))}`

function set(target: Record<string, unknown>, key: string, value: unknown) {
  const [head, ...rest] = key.split('.')
  if (!rest.length) target[head!] = value
  else set((target[head!] ??= {}) as Record<string, unknown>, rest.join('.'), value)
}

/** The destination the form describes; `filled` says whether any field of it was filled in. */
export function readDestination(form: HTMLFormElement, type: string): { destination: Record<string, unknown>; filled: boolean } {
  const destination: Record<string, unknown> = { type }
  let filled = false
  for (const f of DESTINATIONS[type]?.fields ?? []) {
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
    else if (f.key === 'chatId' && /^-?\d+$/.test(raw)) set(destination, f.key, Number(raw))
    else set(destination, f.key, raw)
  }
  return { destination, filled }
}
