// The header on every page: the brand, the workspace switcher (with "create
// workspace"), the sections of the current workspace, and the account menu,
// whose sign-out also leaves this device with nothing of the person's.
import { api, type MyWorkspace } from './api'
import { html, path, render } from './html'
import { navigate, toSignIn, type PageContext } from './router'
import { session } from './session'
import { announce, onSubmit } from './ui'
import { forgetDevice, unregisterDevice } from './device'
import { mayScheduled } from './state/scheduled'

// The third column: who sees the section in the navigation (the page itself
// says so to anyone else who comes to it; the API refuses them).
const SECTIONS = [
  ['feed', 'Feed', 'all'],
  ['channels', 'Channels', 'all'],
  ['routers', 'Routers', 'all'],
  ['deliveries', 'Deliveries', 'all'],
  ['scheduled', 'Scheduled', 'managers'],
  ['keys', 'API keys', 'all'],
  ['members', 'Members', 'all'],
  ['usage', 'Usage', 'all'],
  ['notifications', 'Notifications', 'all'],
  ['preferences', 'Preferences', 'all'],
] as const

function switcher(current: MyWorkspace | undefined) {
  const all = session.me?.workspaces ?? []
  return html`<details class="switcher">
    <summary><span class="visually-hidden">Workspace: </span>${current?.workspace ?? 'Workspaces'}</summary>
    <div class="menu">
      <ul aria-label="Your workspaces">
        ${all.map((w) => html`<li><a href="${path('w', w.workspace, 'feed')}" ${w.workspace === current?.workspace ? html`aria-current="true"` : ''}>${w.workspace} <span class="muted">${w.role}</span></a></li>`)}
      </ul>
      <button type="button" class="secondary" data-create-workspace>Create workspace…</button>
    </div>
  </details>`
}

function nav(current: MyWorkspace, pathname: string) {
  const section = pathname.split('/')[3] ?? 'feed'
  const active = section === 'events' ? 'feed' : section
  return html`<nav class="sections" aria-label="${current.workspace}">
    <ul>${SECTIONS.filter(([, , who]) => who === 'all' || mayScheduled(current.role)).map(([slug, label]) => html`<li><a href="${path('w', current.workspace, slug)}" ${slug === active ? html`aria-current="page"` : ''}>${label}</a></li>`)}</ul>
  </nav>`
}

export function renderHeader({ workspace, path: pathname }: { workspace?: MyWorkspace; path: string }) {
  const header = document.getElementById('top')!
  const me = session.me
  render(
    header,
    html`<div class="bar">
        <a class="brand" href="/">Herald</a>
        ${me ? switcher(workspace) : ''}
        <div class="account">
          ${me
            ? html`<a class="who" href="/account" title="Your account: ${me.email}" ${pathname === '/account' ? html`aria-current="page"` : ''}><span class="who-email">${me.email}</span><span class="who-short">Account</span></a><button type="button" class="link-button" data-signout>Sign out</button>`
            : html`<a href="/signin">Sign in</a><a href="/signup">Sign up</a>`}
        </div>
      </div>
      ${me && workspace ? nav(workspace, pathname) : ''}`,
  )
}

function openCreateWorkspace() {
  const dialog = document.createElement('dialog')
  dialog.setAttribute('aria-labelledby', 'new-ws-title')
  render(
    dialog,
    html`<form class="stack" novalidate>
      <h2 id="new-ws-title">Create a workspace</h2>
      <p class="form-error" role="alert"></p>
      <div class="field">
        <label for="new-ws-name">Name</label>
        <input id="new-ws-name" name="name" required maxlength="64" pattern="[a-z0-9][a-z0-9_\\-]*" autocomplete="off" aria-describedby="new-ws-hint">
        <p class="hint" id="new-ws-hint">Lower-case letters, digits, "-" and "_"; unique on this Herald.</p>
      </div>
      <div class="actions"><button type="button" class="secondary" data-close>Cancel</button><button type="submit">Create workspace</button></div>
    </form>`,
  )
  document.body.append(dialog)
  dialog.addEventListener('close', () => dialog.remove())
  dialog.querySelector('[data-close]')!.addEventListener('click', () => dialog.close())
  onSubmit(dialog.querySelector('form')!, async (data) => {
    const created = await api.post('/v1/workspaces', { body: { name: String(data.get('name')).trim() } })
    await session.refresh()
    dialog.close()
    announce(`Workspace ${created.workspace} created.`)
    navigate(path('w', created.workspace, 'feed'))
  })
  dialog.showModal()
}

/** The header's buttons, wired once: the header is re-rendered on each page, its listener stays. */
export function wireHeader() {
  const header = document.getElementById('top')!
  header.addEventListener('click', async (e) => {
    const target = e.target as Element
    if (target.closest('[data-create-workspace]')) {
      target.closest('details')?.removeAttribute('open')
      openCreateWorkspace()
    }
    if (target.closest('[data-signout]')) {
      await unregisterDevice() // no request at all when this browser has no device
      try {
        await api.post('/v1/auth/signout')
      } catch {}
      await forgetDevice()
      session.clear()
      navigate('/signin?signedout=1')
    }
  })
  // A menu left open closes when focus or a click goes elsewhere, or on Esc.
  document.addEventListener('click', (e) => {
    const open = header.querySelector('details[open]')
    if (open && !open.contains(e.target as Node)) open.removeAttribute('open')
  })
  header.addEventListener('keydown', (e) => {
    const open = header.querySelector('details[open]')
    if (e.key === 'Escape' && open) {
      open.removeAttribute('open')
      open.querySelector('summary')?.focus()
    }
  })
}

/** "/" for someone in no workspace (they left the last one): make one. */
export function welcomePage(ctx: PageContext) {
  if (!session.me) return toSignIn()
  ctx.title('Welcome')
  render(
    ctx.root,
    html`<div class="auth-card"><h1 tabindex="-1">You are in no workspace</h1>
      <p>Create one to get API keys and a feed, or open an invitation link someone sent you.</p>
      <button type="button" data-create-workspace>Create workspace…</button></div>`,
  )
  ctx.root.querySelector('[data-create-workspace]')!.addEventListener('click', openCreateWorkspace)
}
