// Notifications (/w/{workspace}/notifications): push to this device, turned
// on and off here, in honest states (a browser that cannot, a page that is
// not https, iOS before the app is on the Home Screen, a permission the
// browser blocks); installing the app; and the workspace's channels, each
// muted or unmuted for all the person's devices (state/channels.ts reads and
// mutes them; device.ts holds this device's state).
import { api, ApiError } from './api'
import { html, insert, path, render, type Html } from './html'
import type { PageContext } from './router'
import { canPromptInstall, isInstalled, isIOS, onInstallChange, promptInstall, pushState, turnOff, turnOn, type PushState } from './device'
import { act, announce, on } from './ui'
import { channelChanges, channelPages, type Channel } from './state/channels'
import { browserTimeZone } from './page_preferences'

const IOS_STEPS = html`Tap <strong>Share</strong>, then <strong>Add to Home Screen</strong>, and open Herald from there (iOS 16.4 or later).`

const STATES: Record<Exclude<PushState, 'insecure'>, { text: Html; button?: 'on' | 'off' }> = {
  'ios-install': { text: html`Add Herald to your Home Screen first: on iPhone and iPad, only the app on the Home Screen can notify. ${IOS_STEPS}` },
  unsupported: { text: html`This browser cannot show notifications from a web app. Try a current Chrome, Edge, Firefox or Safari.` },
  denied: { text: html`Blocked by the browser: allow notifications for this site in its settings, then reload this page.` },
  off: { text: html`Off: this device gets no notifications from Herald.`, button: 'on' },
  on: { text: html`On: events of your workspaces arrive on this device as notifications, except those of channels you muted.`, button: 'off' },
}

/**
 * Why a page on plain http (a phone opening http://192.168.1.20:8080) cannot
 * notify, and the three ways to give Herald https (docs/push.md, "https for a
 * phone"), so the person can act or pass it on instead of meeting a bare
 * "permission denied".
 */
function insecureSection() {
  return html`<div class="state callout" data-push-state="insecure">
      <p>This page is on plain http (<code>${location.origin}</code>), and browsers give notifications, and installing the app, only to https sites and to <code>localhost</code> on the machine itself. Open Herald at an https address to turn them on here.</p>
      <details data-https-recipes><summary>How to give Herald an https address</summary>
        <p>Whoever runs this Herald can set one up in a few minutes, then sets <code>HERALD_PUBLIC_URL</code> to it and <code>HERALD_TRUST_PROXY=true</code>:</p>
        <ul>
          <li><strong>A domain:</strong> Caddy in front, with <code>reverse_proxy 127.0.0.1:8080</code> under the domain's name, gets and renews a certificate by itself.</li>
          <li><strong>Tailscale:</strong> <code>tailscale serve --bg 8080</code> gives <code>https://&lt;machine&gt;.&lt;tailnet&gt;.ts.net</code> to the devices of your tailnet.</li>
          <li><strong>A home or office network:</strong> a certificate from mkcert for the machine's address, and its root certificate trusted on this phone (iPhone: install the profile, then turn on full trust in Certificate Trust Settings; Android: Encryption &amp; credentials, Install a certificate, CA certificate).</li>
        </ul>
        <p>Each recipe, step by step, is in Herald's <code>docs/push.md</code>, under "https for a phone".</p>
      </details>
    </div>`
}

function deviceSection(state: PushState) {
  if (state === 'insecure') return insecureSection()
  const s = STATES[state]
  return html`<p data-push-state="${state}" class="${state === 'on' ? 'state on' : state === 'off' ? 'state' : 'state callout'}">${s.text}</p>
    ${s.button ? html`<button type="button" data-push="${s.button}">${s.button === 'on' ? 'Turn on notifications' : 'Turn off notifications'}</button>` : ''}
    <p data-push-status></p>`
}

function installSection() {
  if (isInstalled()) return html`<p>Herald is installed on this device.</p>`
  if (!window.isSecureContext) return html`<p data-install-insecure>Installing Herald needs https too (see above).</p>`
  if (canPromptInstall()) return html`<p>Install Herald to open it from your home screen or dock, in a window of its own.</p><button type="button" class="secondary" data-install>Install Herald</button>`
  if (isIOS()) return html`<p>Add Herald to your Home Screen: ${IOS_STEPS}</p>`
  return html`<p>Your browser offers no install button right now. Most can install Herald from their menu (<em>Install app</em>, or <em>Add to Home screen</em>); if Herald is installed already, open it from there.</p>`
}

const channelRow = (c: Pick<Channel, 'slug' | 'muted'>) => html`<tr data-slug="${c.slug}">
  <th scope="row">#${c.slug}${c.muted ? html` <span class="badge muted-badge">muted</span>` : ''}</th>
  <td class="actions"><button type="button" class="secondary" data-mute="${c.muted ? 'off' : 'on'}" aria-label="${c.muted ? 'Unmute' : 'Mute'} #${c.slug} on all my devices">${c.muted ? 'Unmute' : 'Mute'}</button></td>
</tr>`

/** Runs an action from a button; its outcome, or what went wrong in words, is shown in `status`. */
async function attempt(button: HTMLButtonElement, status: Element, busy: string, work: () => Promise<string>): Promise<{ ok: boolean; message: string }> {
  button.disabled = true
  status.classList.remove('error')
  status.textContent = busy
  let outcome: { ok: boolean; message: string }
  try {
    outcome = { ok: true, message: await work() }
  } catch (err) {
    outcome = { ok: false, message: err instanceof ApiError ? err.detail : err instanceof Error ? err.message : String(err) }
  }
  if (button.isConnected) button.disabled = false
  status.textContent = outcome.message
  status.classList.toggle('error', !outcome.ok)
  return outcome
}

/**
 * Once this device is on: a member with no quiet hours in this workspace is
 * offered them in the browser's time zone (the Preferences page takes it from
 * the browser); one whose quiet hours follow another zone is told which.
 */
async function offerQuietHours(ws: string, device: Element) {
  const prefs = await api.get('/v1/workspaces/{workspace}/preferences', { path: { workspace: ws } }).catch(() => null)
  if (!prefs) return
  const zone = browserTimeZone()
  const q = prefs.quietHours
  const link = path('w', ws, 'preferences')
  const hint = !q
    ? html`<p data-quiet-hint>No quiet hours yet: <a href="${link}">set them</a> in your time zone, ${zone}, to keep nights quiet.</p>`
    : q.timezone !== zone ? html`<p data-quiet-hint>Your quiet hours follow ${q.timezone}; this device is in ${zone}. <a href="${link}">Review them</a>.</p>` : null
  if (hint) insert(device, 'beforeend', hint)
}

export async function notificationsPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Notifications')
  // A page of channels at a time: a workspace may hold HERALD_MAX_CHANNELS_PER_WORKSPACE of them.
  const channels = channelPages(api, ws)
  const [state, first] = await Promise.all([pushState(), channels.first()])
  render(
    ctx.root,
    html`<h1 tabindex="-1">Notifications</h1>
    <p class="lead">Get Herald's events on this phone or computer as notifications, even when Herald is closed.</p>
    <section class="card" aria-labelledby="device-h"><h2 id="device-h">Notifications on this device</h2><div data-device>${deviceSection(state)}</div></section>
    <section class="card" aria-labelledby="install-h"><h2 id="install-h">Install Herald</h2><div data-install-area>${installSection()}</div><p role="status" data-install-status></p></section>
    <section aria-labelledby="mutes-h"><h2 id="mutes-h">Channels</h2>
      <p class="lead">Mutes apply to all your devices: a muted channel sends no notifications to any of them. The feed still shows its events. <a href="${path('w', ws, 'channels')}">Manage channels</a>; quiet hours and levels per channel are in <a href="${path('w', ws, 'preferences')}">Preferences</a>.</p>
      <p role="status" data-mute-status></p>
      <div class="table-wrap"><table class="responsive compact"><caption class="visually-hidden">Channels of ${ws}</caption>
        <thead><tr><th scope="col">Channel</th><th scope="col"><span class="visually-hidden">Mute</span></th></tr></thead>
        <tbody data-channels>${first.map(channelRow)}</tbody></table></div>
      <div class="more"><button type="button" class="secondary" data-more-channels ${channels.more ? '' : html`hidden`}>Show more channels</button></div>
    </section>`,
  )
  const device = ctx.root.querySelector('[data-device]')!
  on(ctx.root, 'click', '[data-push]', async (b) => {
    const turningOn = b.dataset.push === 'on'
    const outcome = await attempt(b as HTMLButtonElement, device.querySelector('[data-push-status]')!, turningOn ? 'Turning on…' : 'Turning off…', async () => {
      await (turningOn ? turnOn() : turnOff())
      return turningOn ? 'Notifications are on for this device.' : 'Notifications are off for this device.'
    })
    // The state is read again whatever happened: a refused permission is now
    // "blocked". The section is new, so its outcome is announced, not left to a live region.
    render(device, deviceSection(await pushState()))
    const status = device.querySelector('[data-push-status]')!
    status.textContent = outcome.message
    status.classList.toggle('error', !outcome.ok)
    announce(outcome.message)
    if (outcome.ok && turningOn) await offerQuietHours(ws, device)
  })

  const install = ctx.root.querySelector('[data-install-area]')!
  onInstallChange(ctx.signal, () => render(install, installSection()))
  on(ctx.root, 'click', '[data-install]', (b) =>
    attempt(b as HTMLButtonElement, ctx.root.querySelector('[data-install-status]')!, '', async () =>
      (await promptInstall()) === 'accepted' ? 'Herald is being installed.' : 'Not installed. The browser\'s menu can install Herald later.',
    ),
  )

  const list = ctx.root.querySelector('[data-channels]')!
  const more = ctx.root.querySelector<HTMLButtonElement>('[data-more-channels]')!
  more.addEventListener('click', () =>
    act(more, ctx.root.querySelector('[data-mute-status]'), async () => {
      insert(list, 'beforeend', html`${(await channels.next()).map(channelRow)}`)
      more.hidden = !channels.more
    }),
  )
  on(ctx.root, 'click', '[data-mute]', (b) =>
    act(b as HTMLButtonElement, ctx.root.querySelector('[data-mute-status]'), async () => {
      const slug = b.closest('tr')!.dataset.slug!
      const mute = b.dataset.mute === 'on'
      await channelChanges(api, ws).setMuted(slug, mute)
      // Only the row changes: the rest of the pages shown stay as they are.
      const tr = b.closest('tr')!
      insert(tr, 'afterend', channelRow({ slug, muted: mute }))
      tr.remove()
      ctx.root.querySelector('[data-mute-status]')!.textContent = `#${slug} ${mute ? 'muted' : 'unmuted'} on all your devices.`
      list.querySelector<HTMLElement>(`tr[data-slug="${CSS.escape(slug)}"] button`)?.focus()
    }),
  )
}
