// A workspace's channels: everyone sees them and mutes or unmutes them for
// themselves; owners and admins create, rename, make default and delete.
// What it reads and changes is in state/channels.ts.
import { html, insert, path, render } from './html'
import { api } from './api'
import { navigate, type PageContext } from './router'
import { act, announce, confirmDialog, on, onSubmit, time } from './ui'
import { channelChanges, channelPages, searchHref, type Channel } from './state/channels'

function row(c: Channel, ws: string, canManage: boolean) {
  return html`<tr data-slug="${c.slug}">
    <th scope="row"><a href="${path('w', ws, 'feed')}?channel=${encodeURIComponent(c.slug)}">#${c.slug}</a>
      ${c.isDefault ? html` <span class="badge">default</span>` : ''}${c.muted ? html` <span class="badge muted-badge">muted</span>` : ''}</th>
    <td data-label="Created">${time(c.createdAt, false)}</td>
    <td class="actions">
      <button type="button" class="secondary" data-mute="${c.muted ? 'off' : 'on'}" aria-label="${c.muted ? 'Unmute' : 'Mute'} #${c.slug} for me">${c.muted ? 'Unmute' : 'Mute'}</button>
      ${canManage
        ? html`<button type="button" class="secondary" data-rename aria-label="Rename #${c.slug}">Rename</button>
          ${c.isDefault ? '' : html`<button type="button" class="secondary" data-default aria-label="Make #${c.slug} the default">Make default</button>
          <button type="button" class="danger" data-delete aria-label="Delete #${c.slug}">Delete</button>`}`
        : ''}
    </td>
  </tr>`
}

const renameForm = (slug: string) => html`<tr class="inline-form"><td colspan="3">
  <form class="row-form" novalidate data-rename-form="${slug}">
    <p class="form-error" role="alert"></p>
    <div class="field"><label for="rename-${slug}">New name of #${slug}</label><input id="rename-${slug}" name="slug" value="${slug}" required maxlength="64" autocomplete="off"></div>
    <button type="submit">Save</button><button type="button" class="secondary" data-cancel>Cancel</button>
  </form></td></tr>`

export async function channelsPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Channels')
  const status = () => ctx.root.querySelector('[data-status]')
  // A page at a time (a workspace may hold HERALD_MAX_CHANNELS_PER_WORKSPACE
  // channels), and a search by slug, kept in the address.
  const search = ctx.query.get('q') ?? ''
  const change = channelChanges(api, ws)
  const load = async (message?: string) => {
    const pages = channelPages(api, ws, search)
    const channels = await pages.first()
    render(
      ctx.root,
      html`<h1 tabindex="-1">Channels</h1>
      <p class="lead">Events go to a channel (the default one when they name none). Mute a channel to stop its pushes to your devices; the feed still shows it. To get notifications on this device, turn them on in <a href="${path('w', ws, 'notifications')}">Notifications</a>.</p>
      ${ctx.canManage
        ? html`<form class="inline" data-create novalidate>
            <p class="form-error" role="alert"></p>
            <div class="field"><label for="new-channel">New channel</label><input id="new-channel" name="slug" required maxlength="64" placeholder="signups" autocomplete="off" aria-describedby="new-channel-hint"></div>
            <button type="submit">Create channel</button>
            <p class="hint" id="new-channel-hint">Lower-case letters, digits, "-" and "_". An event that names a new channel also creates it.</p>
          </form>`
        : ''}
      <form class="inline" role="search" aria-label="Find channels" data-search novalidate>
        <div class="field"><label for="channel-q">Find a channel</label><input id="channel-q" name="q" type="search" value="${search}" maxlength="64" autocomplete="off"></div>
        <button type="submit" class="secondary">Find</button>
      </form>
      <p role="status" data-status tabindex="-1">${message ?? ''}</p>
      <div class="table-wrap"><table class="responsive">
        <caption class="visually-hidden">Channels</caption>
        <thead><tr><th scope="col">Channel</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody data-rows>${channels.map((c) => row(c, ws, ctx.canManage))}</tbody>
      </table></div>
      ${channels.length ? '' : html`<p class="muted">${search ? html`No channel contains “${search}”.` : 'No channels.'}</p>`}
      <div class="more"><button type="button" class="secondary" data-more ${pages.more ? '' : html`hidden`}>Show more channels</button></div>`,
    )
    const more = ctx.root.querySelector<HTMLButtonElement>('[data-more]')!
    more.addEventListener('click', () =>
      act(more, status(), async () => {
        const next = await pages.next()
        insert(ctx.root.querySelector('[data-rows]')!, 'beforeend', html`${next.map((c) => row(c, ws, ctx.canManage))}`)
        more.hidden = !pages.more
      }),
    )
    onSubmit(ctx.root.querySelector<HTMLFormElement>('form[data-search]')!, async (data) => navigate(searchHref(ws, String(data.get('q') ?? ''))))
    // After a change the table is redrawn; focus goes to its outcome rather than being lost.
    if (message) ctx.root.querySelector<HTMLElement>('[data-status]')!.focus()
    const create = ctx.root.querySelector<HTMLFormElement>('form[data-create]')
    if (create)
      onSubmit(create, async (data) => {
        const slug = String(data.get('slug')).trim()
        await change.create(slug)
        announce(`Channel ${slug} created.`)
        await load(`Channel #${slug} created.`)
      })
  }
  await load()

  const slugOf = (el: HTMLElement) => el.closest('tr')!.dataset.slug!
  on(ctx.root, 'click', '[data-mute]', (b) =>
    act(b as HTMLButtonElement, status(), async () => {
      const slug = slugOf(b)
      const mute = b.dataset.mute === 'on'
      await change.setMuted(slug, mute)
      announce(`#${slug} ${mute ? 'muted' : 'unmuted'} for you.`)
      await load(`#${slug} ${mute ? 'muted' : 'unmuted'} for you.`)
    }),
  )
  on(ctx.root, 'click', '[data-default]', (b) =>
    act(b as HTMLButtonElement, status(), async () => {
      const slug = slugOf(b)
      await change.makeDefault(slug)
      announce(`#${slug} is now the default channel.`)
      await load(`#${slug} is now the default channel.`)
    }),
  )
  on(ctx.root, 'click', '[data-delete]', async (b) => {
    const slug = slugOf(b)
    if (!(await confirmDialog(`Delete the channel #${slug}? Its events stay in the feed.`, 'Delete channel'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      await change.remove(slug)
      announce(`Channel ${slug} deleted.`)
      await load(`Channel #${slug} deleted.`)
    })
  })
  on(ctx.root, 'click', '[data-rename]', (b) => {
    const tr = b.closest('tr')!
    if (tr.nextElementSibling?.classList.contains('inline-form')) return
    const slug = slugOf(b)
    insert(tr, 'afterend', renameForm(slug))
    const form = tr.nextElementSibling!.querySelector('form')!
    form.querySelector('input')!.select()
    form.querySelector('[data-cancel]')!.addEventListener('click', () => {
      form.closest('tr')!.remove()
      b.focus()
    })
    onSubmit(form, async (data) => {
      const to = String(data.get('slug')).trim()
      await change.rename(slug, to)
      announce(`#${slug} renamed to #${to}.`)
      await load(`#${slug} renamed to #${to}.`)
    })
  })
}
