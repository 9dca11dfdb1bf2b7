// A workspace's API keys: listed by prefix with creation and last use;
// owners and admins generate one (shown once, with a copy button) and
// revoke one after confirming. What it reads and changes is in state/keys.ts.
import { api } from './api'
import { html, render, type Html } from './html'
import type { PageContext } from './router'
import { act, announce, confirmDialog, copyButtons, on, onSubmit, secretField, time } from './ui'
import { generateKey, listKeys, revokeKey, type ApiKey, type CreatedKey } from './state/keys'

function keyRow(k: ApiKey, canManage: boolean) {
  return html`<tr data-key-id="${k.id}" data-name="${k.name}" class="${k.revokedAt ? 'revoked' : ''}">
    <th scope="row">${k.name}</th>
    <td data-label="Prefix"><code>${k.prefix}…</code></td>
    <td data-label="Created">${time(k.createdAt)}</td>
    <td data-label="Last used">${time(k.lastUsedAt)}</td>
    <td data-label="Status">${k.revokedAt ? html`<span class="badge failed">revoked</span> ${time(k.revokedAt, false)}` : html`<span class="badge succeeded">active</span>`}</td>
    <td class="actions">${canManage && !k.revokedAt ? html`<button type="button" class="danger" data-revoke aria-label="Revoke the key ${k.name}">Revoke</button>` : ''}</td>
  </tr>`
}

const createdKey = (k: CreatedKey) => html`<div class="callout" data-new-key>
  <h2>Your new key “${k.name}”</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Herald keeps only its hash.</p>
  ${secretField('new-key', 'API key', k.apiKey)}
</div>`

export async function keysPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('API keys')
  const status = () => ctx.root.querySelector('[data-status]')
  const load = async (message?: string, created?: Html) => {
    const keys = await listKeys(api, ws)
    render(
      ctx.root,
      html`<h1 tabindex="-1">API keys</h1>
      <p class="lead">Your code sends events with <code>POST /event</code> and <code>Authorization: Bearer &lt;key&gt;</code>.</p>
      ${ctx.canManage
        ? html`<form class="inline" data-generate novalidate>
            <p class="form-error" role="alert"></p>
            <div class="field grow"><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" placeholder="production" autocomplete="off" aria-describedby="key-name-hint"></div>
            <button type="submit">Generate key</button>
            <p class="hint" id="key-name-hint">What the key is for, so you know which to revoke.</p>
          </form>`
        : html`<p class="notice">Only owners and admins generate and revoke keys.</p>`}
      <div data-created></div>
      <p role="status" data-status tabindex="-1">${message ?? ''}</p>
      ${keys.length
        ? html`<div class="table-wrap"><table class="responsive">
            <caption class="visually-hidden">API keys</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>${keys.map((k) => keyRow(k, ctx.canManage))}</tbody>
          </table></div>`
        : html`<p class="empty">No keys yet.</p>`}`,
    )
    if (created) {
      render(ctx.root.querySelector('[data-created]')!, created)
      ctx.root.querySelector<HTMLInputElement>('#new-key')!.focus()
    } else if (message) ctx.root.querySelector<HTMLElement>('[data-status]')!.focus()
    const form = ctx.root.querySelector<HTMLFormElement>('form[data-generate]')
    if (form)
      onSubmit(form, async (data) => {
        const key = await generateKey(api, ws, String(data.get('name')))
        announce(`Key ${key.name} generated. Copy it now: it is shown only once.`)
        await load(undefined, createdKey(key))
      })
  }
  await load()
  copyButtons(ctx.root)
  on(ctx.root, 'click', '[data-revoke]', async (b) => {
    const tr = b.closest('tr')!
    const name = tr.dataset.name!
    if (!(await confirmDialog(`Revoke the key “${name}”? Code that uses it stops being able to send events within seconds.`, 'Revoke key'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      await revokeKey(api, ws, Number(tr.dataset.keyId))
      announce(`Key ${name} revoked.`)
      await load(`Key “${name}” revoked.`)
    })
  })
}
