// The router form's "Delivery pacing" fieldset: none, a throttle or a digest,
// each with its fields, labels and hints giving the bounds (WINDOW_LIMITS).
// Only the chosen kind's fields are shown; reading them into the API's
// bodies is state/router_pacing.ts.
import { formatDuration } from '../core/duration'
import { html, type Html } from './html'
import { WINDOW_LIMITS as L, type PacingFields, type PacingKind } from './state/router_pacing'

const PRIORITIES = ['min', 'low', 'default', 'high', 'urgent']
const KINDS: [PacingKind, string, string][] = [
  ['none', 'None', 'every matching event goes on its own, as it comes'],
  ['throttle', 'Throttle', 'at most a number of deliveries per period; the rest end throttled, not sent'],
  ['digest', 'Digest', 'gather the matching events and send them as one delivery'],
]
const n = (v: number) => v.toLocaleString('en')

const text = (id: string, name: string, label: string, value: string, pointer: string, hint: string | Html, extra = html``) => html`<div class="field">
  <label for="${id}">${label}</label>
  <input id="${id}" name="${name}" value="${value}" data-pointer="${pointer}" spellcheck="false" autocomplete="off" aria-describedby="${id}-hint" ${extra}>
  <p class="hint" id="${id}-hint">${hint}</p></div>`

const keyHint = (what: string) =>
  html`A template such as <code>{{data.host}}</code> or <code>{{channel}}</code>: each value ${what} apart. Empty: one for every event. Up to ${L.keyTemplate} characters; a longer value is cut to ${L.key}.`

export function pacingFieldset(f: PacingFields) {
  return html`<fieldset data-pacing><legend>Delivery pacing</legend>
    <p class="hint" id="pacing-hint">A router throttles or gathers, not both. A window starts with the first event of its key, not on the clock.</p>
    <div class="choices" role="radiogroup" aria-describedby="pacing-hint">${KINDS.map(([kind, label, hint]) => html`<div class="field check">
      <input type="radio" id="pacing-${kind}" name="pacing" value="${kind}" ${f.pacing === kind ? html`checked` : ''}>
      <label for="pacing-${kind}">${label}</label> <span class="hint">${hint}</span></div>`)}</div>
    <div class="pacing-fields" data-pacing-kind="throttle" ${f.pacing === 'throttle' ? '' : html`hidden`}>
      ${text('t-limit', 'throttleLimit', 'Limit', f.throttleLimit, '/throttle/limit', `At most this many deliveries per period and key: 1 to ${n(L.throttleLimitMax)}.`, html`inputmode="numeric"`)}
      ${text('t-per', 'throttlePer', 'Per', f.throttlePer, '/throttle/per', `The period: a duration such as 30s, 15m, 1h or 1d (or seconds), from ${formatDuration(L.perMin)} to ${formatDuration(L.perMax)}.`, html`placeholder="1h"`)}
      ${text('t-key', 'throttleKey', 'Throttle key', f.throttleKey, '/throttle/key', keyHint('counts'), html`maxlength="${L.keyTemplate}" placeholder="{{data.host}}"`)}
    </div>
    <div class="pacing-fields" data-pacing-kind="digest" ${f.pacing === 'digest' ? '' : html`hidden`}>
      ${text('d-window', 'digestWindow', 'Window', f.digestWindow, '/digest/window', `How long events are gathered: a duration such as 10m or 1h, from ${formatDuration(L.windowMin)} to ${formatDuration(L.windowMax)}.`, html`placeholder="10m"`)}
      ${text('d-key', 'digestKey', 'Digest key', f.digestKey, '/digest/key', keyHint('is gathered'), html`maxlength="${L.keyTemplate}" placeholder="{{data.customer}}"`)}
      ${text('d-max', 'digestMax', 'Most events in a digest', f.digestMax, '/digest/max', `A digest goes at once when it holds this many: 1 to ${n(L.digestMaxMax)} (default ${L.digestMaxDefault}).`, html`inputmode="numeric"`)}
      <div class="field"><label for="d-bypass">Bypass priority</label>
        <select id="d-bypass" name="digestBypass" data-pointer="/digest/bypassPriority" aria-describedby="d-bypass-hint">
          <option value="" ${f.digestBypass === '' ? html`selected` : ''}>None: every event is gathered</option>
          ${PRIORITIES.map((p, i) => html`<option value="${i + 1}" ${f.digestBypass === String(i + 1) ? html`selected` : ''}>${i + 1} · ${p} and above</option>`)}
        </select>
        <p class="hint" id="d-bypass-hint">Events at or above this priority are not gathered: they go at once, on their own.</p></div>
    </div>
  </fieldset>`
}

/** Shows the fields of the chosen kind, now and on every change. */
export function wirePacing(form: HTMLFormElement) {
  const show = () => {
    const kind = form.querySelector<HTMLInputElement>('input[name=pacing]:checked')?.value ?? 'none'
    for (const box of form.querySelectorAll<HTMLElement>('[data-pacing-kind]')) box.hidden = box.dataset.pacingKind !== kind
  }
  for (const radio of form.querySelectorAll('input[name=pacing]')) radio.addEventListener('change', show)
  show()
}
