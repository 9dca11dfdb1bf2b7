// Preferences (/w/{workspace}/preferences): the person's own quiet hours (in
// their time zone, the browser's by default), the default level and a level
// per channel, saved as one document (PUT replaces it whole: channels not
// shown keep the level they had). A push held back by them is a `suppressed`
// delivery, shown with its reason on the event's page.
import { api, type Schemas } from './api'
import { html, path, render } from './html'
import type { PageContext } from './router'
import { announce, onSubmit } from './ui'
import { channelPages } from './state/channels'

type Preferences = Schemas['Preferences']
type Level = Preferences['default']

const LEVELS: [Level, string][] = [['all', 'Every event'], ['high', 'High and urgent (priority 4, 5)'], ['urgent', 'Urgent only (5)'], ['none', 'None (muted)']]
const PRIORITIES: [number, string][] = [[1, '1 min'], [2, '2 low'], [3, '3 default'], [4, '4 high'], [5, '5 urgent']]

/** The browser's IANA time zone: what quiet hours use unless the person picks another. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone

const options = <T extends string | number>(list: [T, string][], selected: T | undefined) =>
  list.map(([value, label]) => html`<option value="${String(value)}" ${value === selected ? html`selected` : ''}>${label}</option>`)

const channelRow = (slug: string, level: Level | undefined) => html`<tr data-slug="${slug}">
  <th scope="row"><label for="lvl-${slug}">#${slug}</label></th>
  <td><select id="lvl-${slug}" name="channel:${slug}"><option value="">Default</option>${options(LEVELS, level)}</select></td>
</tr>`

function form(p: Preferences, slugs: string[]) {
  const q = p.quietHours
  const zone = q?.timezone ?? browserTimeZone()
  return html`<form data-prefs novalidate>
    <section class="card" aria-labelledby="quiet-h"><h2 id="quiet-h">Quiet hours</h2>
      <p><label><input type="checkbox" name="quiet" ${q ? html`checked` : ''}> Hold back notifications during these hours</label></p>
      <div class="fields">
        <p><label for="q-from">From</label><input id="q-from" name="from" type="time" value="${q?.from ?? '22:00'}"></p>
        <p><label for="q-to">To</label><input id="q-to" name="to" type="time" value="${q?.to ?? '07:00'}"></p>
        <p><label for="q-zone">Time zone</label><input id="q-zone" name="timezone" value="${zone}" autocomplete="off" spellcheck="false"></p>
        <p><label for="q-except">Still notify from priority</label><select id="q-except" name="except">${options(PRIORITIES, q?.except ?? 5)}</select></p>
      </div>
      ${q && q.timezone !== browserTimeZone() ? html`<p class="callout" data-zone-differs>These hours follow ${q.timezone}; this device is in ${browserTimeZone()}. <button type="button" class="secondary" data-use-zone>Use ${browserTimeZone()}</button></p>` : ''}
    </section>
    <section class="card" aria-labelledby="levels-h"><h2 id="levels-h">Channels</h2>
      <p><label for="p-default">Every channel, unless set below</label> <select id="p-default" name="default">${options(LEVELS, p.default)}</select></p>
      <div class="table-wrap"><table class="responsive compact"><caption class="visually-hidden">A level per channel</caption>
        <thead><tr><th scope="col">Channel</th><th scope="col">Notify me of</th></tr></thead>
        <tbody>${slugs.map((s) => channelRow(s, p.channels[s]))}</tbody></table></div>
    </section>
    <p><button type="submit">Save preferences</button> <span role="status" data-prefs-status></span></p>
  </form>`
}

/** The document the form says, over `before` (channels the form does not show keep their level); no quiet hours: left out. */
function documentOf(data: FormData, before: Preferences, shown: string[]): Schemas['PreferencesBody'] {
  const channels: Preferences['channels'] = { ...before.channels }
  for (const slug of shown) {
    const level = String(data.get(`channel:${slug}`) ?? '') as Level | ''
    if (level) channels[slug] = level
    else delete channels[slug]
  }
  const quietHours = data.get('quiet')
    ? { timezone: String(data.get('timezone')).trim(), from: String(data.get('from')), to: String(data.get('to')), except: Number(data.get('except')) }
    : undefined
  return { quietHours, channels, default: String(data.get('default')) as Level }
}

export async function preferencesPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Preferences')
  const at = { path: { workspace: ws } }
  const [prefs, first] = await Promise.all([api.get('/v1/workspaces/{workspace}/preferences', at), channelPages(api, ws).first()])
  let current = prefs
  // Those with a level first (they may lie beyond the first page), then the first page of the rest.
  const slugs = [...new Set([...Object.keys(prefs.channels), ...first.map((c) => c.slug)])]
  render(
    ctx.root,
    html`<h1 tabindex="-1">Preferences</h1>
    <p class="lead">What reaches your devices from ${ws}. A notification held back is recorded as <em>suppressed</em> with the reason; the event stays in the feed. <a href="${path('w', ws, 'notifications')}">Notifications on this device</a>.</p>
    <div data-form>${form(prefs, slugs)}</div>`,
  )
  const area = ctx.root.querySelector('[data-form]')!
  const wire = () => {
    const f = area.querySelector<HTMLFormElement>('form[data-prefs]')!
    f.querySelector('[data-use-zone]')?.addEventListener('click', () => {
      f.querySelector<HTMLInputElement>('[name=timezone]')!.value = browserTimeZone()
      f.querySelector('[data-zone-differs]')?.remove()
    })
    onSubmit(f, async (data) => {
      current = await api.put('/v1/workspaces/{workspace}/preferences', { ...at, body: documentOf(data, current, slugs) })
      render(area, form(current, slugs))
      wire()
      area.querySelector('[data-prefs-status]')!.textContent = 'Saved: notifications from now on follow these preferences.'
      announce('Preferences saved.')
    })
  }
  wire()
}
