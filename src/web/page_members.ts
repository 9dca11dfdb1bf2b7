// A workspace's people: members with their roles (owners and admins change
// roles and remove people; anyone may leave), and invitations by e-mail
// link (owners and admins invite and revoke). What it reads and changes, and
// who may change whom, is in state/members.ts.
import { api, type Role } from './api'
import { html, render, type Html } from './html'
import { navigate, home, type PageContext } from './router'
import { session } from './session'
import { act, announce, confirmDialog, copyButtons, on, onSubmit, secretField, time } from './ui'
import { canEdit, loadPeople, peopleChanges, rolesOffered, type Invitation, type Member } from './state/members'

const roleOptions = (mine: Role, selected: Role) =>
  rolesOffered(mine).map((r) => html`<option value="${r}" ${r === selected ? html`selected` : ''}>${r}</option>`)

function memberRow(m: Member, ctx: PageContext) {
  const me = m.userId === session.me?.userId
  const mine = ctx.workspace.role
  const editable = canEdit(m, { userId: session.me?.userId, role: mine, canManage: ctx.canManage })
  const role: Html = editable
    ? html`<form class="row-form" data-role-form novalidate>
        <label class="visually-hidden" for="role-${m.userId}">Role of ${m.email}</label>
        <select id="role-${m.userId}" name="role">${roleOptions(mine, m.role)}</select>
        <button type="submit" class="secondary">Save role</button>
        <p class="form-error" role="alert"></p>
      </form>`
    : html`${m.role}`
  return html`<tr data-user-id="${m.userId}" data-email="${m.email}">
    <th scope="row">${m.email}${me ? html` <span class="badge">you</span>` : ''}</th>
    <td data-label="Role">${role}</td>
    <td data-label="Devices">${m.devices}</td>
    <td data-label="Joined">${time(m.createdAt, false)}</td>
    <td class="actions">${me ? html`<button type="button" class="secondary" data-remove>Leave</button>` : editable ? html`<button type="button" class="danger" data-remove aria-label="Remove ${m.email}">Remove</button>` : ''}</td>
  </tr>`
}

function invitationsSection(ctx: PageContext, pending: Invitation[]) {
  return html`<section aria-labelledby="inv-h">
    <h2 id="inv-h">Invitations</h2>
    <form class="inline" data-invite novalidate>
      <p class="form-error" role="alert"></p>
      <div class="field grow"><label for="inv-email">E-mail address</label><input id="inv-email" name="email" type="email" required autocomplete="off"></div>
      <div class="field"><label for="inv-role">Role</label><select id="inv-role" name="role">${roleOptions(ctx.workspace.role, 'member')}</select></div>
      <button type="submit">Send invitation</button>
    </form>
    <div data-invite-result></div>
    ${pending.length
      ? html`<div class="table-wrap"><table class="responsive"><caption class="visually-hidden">Pending invitations</caption>
          <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${pending.map((i) => html`<tr data-invitation-id="${i.id}"><th scope="row">${i.email}</th><td data-label="Role">${i.role}</td><td data-label="Expires">${time(i.expiresAt)}</td>
            <td class="actions"><button type="button" class="danger" data-revoke aria-label="Revoke the invitation of ${i.email}">Revoke</button></td></tr>`)}</tbody></table></div>`
      : html`<p class="muted">No pending invitations.</p>`}
  </section>`
}

const view = (ctx: PageContext, members: Member[], invitations: Invitation[] | null, message?: string) => html`<h1 tabindex="-1">Members</h1>
  <p class="lead">Owners and admins manage keys, routers, channels and people; members read. Every member's devices get the pushes of the channels they did not mute.</p>
  <p role="status" data-status tabindex="-1">${message ?? ''}</p>
  <div class="table-wrap"><table class="responsive">
    <caption class="visually-hidden">Members</caption>
    <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Devices</th><th scope="col">Joined</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${members.map((m) => memberRow(m, ctx))}</tbody>
  </table></div>
  ${invitations ? invitationsSection(ctx, invitations) : ''}`

export async function membersPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Members')
  const status = () => ctx.root.querySelector('[data-status]')
  const change = peopleChanges(api, ws)
  const load = async (message?: string, inviteResult?: Html) => {
    const { members, invitations } = await loadPeople(api, ws, ctx.canManage)
    render(ctx.root, view(ctx, members, invitations, message))
    if (inviteResult) render(ctx.root.querySelector('[data-invite-result]')!, inviteResult)
    if (message) ctx.root.querySelector<HTMLElement>(inviteResult ? '[data-invite-result] input' : '[data-status]')?.focus()
    ctx.root.querySelectorAll<HTMLFormElement>('form[data-role-form]').forEach((form) =>
      onSubmit(form, async (data) => {
        const tr = form.closest('tr')!
        await change.setRole(tr.dataset.userId!, data.get('role') as Role)
        announce(`${tr.dataset.email} is now ${data.get('role')}.`)
        await load(`${tr.dataset.email} is now ${data.get('role')}.`)
      }),
    )
    const invite = ctx.root.querySelector<HTMLFormElement>('form[data-invite]')
    if (invite)
      onSubmit(invite, async (data) => {
        const created = await change.invite(String(data.get('email')), data.get('role') as Role)
        announce(`Invitation sent to ${created.email}.`)
        await load(
          `Invitation sent to ${created.email}.`,
          html`<div class="callout">${secretField('invite-link', `Invitation link for ${created.email} (${created.role})`, created.link)}<p class="hint">It was e-mailed to them; you may also pass it on yourself. It works once, for 7 days.</p></div>`,
        )
      })
  }
  await load()
  copyButtons(ctx.root)

  on(ctx.root, 'click', '[data-remove]', async (b) => {
    const tr = b.closest('tr')!
    const leaving = tr.dataset.userId === session.me?.userId
    const question = leaving ? `Leave the workspace ${ws}? You will need a new invitation to come back.` : `Remove ${tr.dataset.email} from ${ws}?`
    if (!(await confirmDialog(question, leaving ? 'Leave workspace' : 'Remove member'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      await change.remove(tr.dataset.userId!)
      if (leaving) {
        await session.refresh()
        announce(`You left ${ws}.`)
        return navigate(home(), true)
      }
      announce(`${tr.dataset.email} removed.`)
      await load(`${tr.dataset.email} removed.`)
    })
  })
  on(ctx.root, 'click', '[data-revoke]', async (b) => {
    const tr = b.closest('tr')!
    if (!(await confirmDialog('Revoke this invitation? Its link stops working.', 'Revoke invitation'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      await change.revokeInvitation(tr.dataset.invitationId!)
      announce('Invitation revoked.')
      await load('Invitation revoked.')
    })
  })
}
