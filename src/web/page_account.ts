// The account page (/account): who is signed in; changing the password (every
// other session ends); the live sessions, each with what opened it, ended one
// by one; and renaming the workspaces the person owns. What it reads and
// changes is in state/account.ts.
import { api } from './api'
import { html, path, render, insert } from './html'
import { navigate, toSignIn, type PageContext } from './router'
import { session } from './session'
import { act, announce, confirmDialog, on, onSubmit, time } from './ui'
import { changePassword, deviceName, endSession, renameWorkspace, sessionPages, type MySession } from './state/account'

const PASSWORD_MIN = 10

const sessionRow = (s: MySession) => html`<tr data-session="${s.id}">
  <th scope="row"><span title="${s.userAgent ?? ''}">${deviceName(s.userAgent)}</span>${s.current ? html` <span class="badge succeeded">this ${s.kind === 'web' ? 'browser' : 'app'}</span>` : ''}</th>
  <td data-label="Kind">${s.kind === 'web' ? 'Dashboard' : 'App or token'}</td>
  <td data-label="Signed in">${time(s.createdAt)}</td>
  <td data-label="Last used">${time(s.lastUsedAt)}</td>
  <td class="actions">${s.current ? '' : html`<button type="button" class="danger" data-end aria-label="Sign out ${deviceName(s.userAgent)}, signed in ${time(s.createdAt)}">Sign out</button>`}</td>
</tr>`

export async function accountPage(ctx: PageContext) {
  const me = session.me
  if (!me) return toSignIn()
  ctx.title('Account')
  const owned = me.workspaces.filter((w) => w.role === 'owner')
  const pages = sessionPages(api)
  const first = await pages.first()
  render(
    ctx.root,
    html`<h1 tabindex="-1">Account</h1>
    <p class="lead">Signed in as <strong>${me.email}</strong>.</p>
    <section class="card" aria-labelledby="pw-h"><h2 id="pw-h">Change password</h2>
      <form class="stack" data-password novalidate>
        <p class="form-error" role="alert"></p>
        <div class="field"><label for="pw-current">Current password</label><input id="pw-current" name="currentPassword" type="password" autocomplete="current-password" required maxlength="200"></div>
        <div class="field"><label for="pw-new">New password</label><input id="pw-new" name="newPassword" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="200" aria-describedby="pw-new-hint"><p class="hint" id="pw-new-hint">At least ${PASSWORD_MIN} characters. Every other browser and app of yours is signed out.</p></div>
        <div class="actions"><button type="submit">Change password</button></div>
        <p role="status" data-password-status></p>
      </form>
    </section>
    <section aria-labelledby="sessions-h"><h2 id="sessions-h">Where you are signed in</h2>
      <p class="lead">Browsers signed in to the dashboard, and apps and scripts with a token of yours. Sign out one you do not recognise, then change your password.</p>
      <p role="status" data-sessions-status></p>
      <div class="table-wrap"><table class="responsive">
        <caption class="visually-hidden">Your sessions</caption>
        <thead><tr><th scope="col">Device</th><th scope="col">Kind</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody data-sessions>${first.map(sessionRow)}</tbody></table></div>
      <div class="more"><button type="button" class="secondary" data-more-sessions ${pages.more ? '' : html`hidden`}>Show more sessions</button></div>
    </section>
    <section class="card" aria-labelledby="rename-h"><h2 id="rename-h">Rename a workspace</h2>
      ${owned.length
        ? html`<form class="stack" data-rename novalidate>
            <p class="form-error" role="alert"></p>
            <div class="field"><label for="rename-ws">Workspace</label><select id="rename-ws" name="workspace">${owned.map((w) => html`<option value="${w.workspace}">${w.workspace}</option>`)}</select></div>
            <div class="field"><label for="rename-name">New name</label><input id="rename-name" name="name" data-pointer="/name" required maxlength="64" pattern="[a-zA-Z0-9][a-zA-Z0-9_\\-]*" title="Letters, digits, &quot;-&quot; and &quot;_&quot;, starting with a letter or digit." autocomplete="off" aria-describedby="rename-hint"><p class="hint" id="rename-hint">Lower-case letters, digits, "-" and "_". Members, keys, routers and events stay; links with the old name stop working.</p></div>
            <div class="actions"><button type="submit">Rename</button></div>
          </form>`
        : html`<p class="notice">Only a workspace's owners rename it; you own none.</p>`}
    </section>`,
  )

  onSubmit(ctx.root.querySelector<HTMLFormElement>('form[data-password]')!, async (data, form) => {
    await changePassword(api, String(data.get('currentPassword')), String(data.get('newPassword')))
    form.reset()
    const message = 'Password changed. Every other browser and app of yours is signed out.'
    form.querySelector('[data-password-status]')!.textContent = message
    announce(message)
    render(ctx.root.querySelector('[data-sessions]')!, html`${(await pages.first()).map(sessionRow)}`)
  })

  const list = ctx.root.querySelector('[data-sessions]')!
  const more = ctx.root.querySelector<HTMLButtonElement>('[data-more-sessions]')!
  more.addEventListener('click', () =>
    act(more, ctx.root.querySelector('[data-sessions-status]'), async () => {
      insert(list, 'beforeend', html`${(await pages.next()).map(sessionRow)}`)
      more.hidden = !pages.more
    }),
  )
  on(ctx.root, 'click', '[data-end]', async (b) => {
    const row = b.closest('tr')!
    if (!(await confirmDialog(`Sign out ${row.querySelector('th span')!.textContent}? It needs the password to sign in again.`, 'Sign out'))) return
    await act(b as HTMLButtonElement, ctx.root.querySelector('[data-sessions-status]'), async () => {
      await endSession(api, Number(row.dataset.session))
      row.remove()
      ctx.root.querySelector('[data-sessions-status]')!.textContent = 'Signed out.'
      announce('Signed out.')
    })
  })

  const rename = ctx.root.querySelector<HTMLFormElement>('form[data-rename]')
  if (rename)
    onSubmit(rename, async (data) => {
      const renamed = await renameWorkspace(api, String(data.get('workspace')), String(data.get('name')))
      await session.refresh()
      announce(`Workspace renamed to ${renamed.workspace}.`)
      navigate(path('w', renamed.workspace, 'feed'))
    })
}
