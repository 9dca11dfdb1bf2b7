// Client-side routing: a table of path patterns, links intercepted so that a
// page changes without a reload, and one context per visit whose signal is
// aborted when the visitor leaves (the live feed closes its stream on it).
import { api, ApiError, offlineSince, resetOffline, type MyWorkspace } from './api'
import { session } from './session'
import { html, insert, render } from './html'

export interface PageContext {
  /** A fresh container inside <main>; once the visitor leaves, it is detached, so a late render goes nowhere. */
  root: HTMLElement
  params: Record<string, string>
  query: URLSearchParams
  /** Aborted when the visitor navigates away. */
  signal: AbortSignal
  /** For pages under /w/:workspace: the workspace and my role in it. */
  workspace: MyWorkspace
  canManage: boolean
  title(text: string): void
}

export type Page = (ctx: PageContext) => Promise<void> | void

interface Route {
  pattern: RegExp
  keys: string[]
  page: Page
  /** 'public': anyone; 'guest': signed-out pages (a signed-in visitor goes on); 'user': signed in; 'workspace': signed in and a member. */
  access: 'public' | 'guest' | 'user' | 'workspace'
}

const routes: Route[] = []
let onRender: (ctx: { workspace?: MyWorkspace; path: string }) => void = () => {}
let current: AbortController | null = null

export function route(path: string, access: Route['access'], page: Page) {
  const keys: string[] = []
  const source = path.replace(/:(\w+)/g, (_, k: string) => {
    keys.push(k)
    return '([^/]+)'
  })
  routes.push({ pattern: new RegExp(`^${source}/?$`), keys, page, access })
}

export const setLayout = (f: typeof onRender) => {
  onRender = f
}

/** Goes to an internal path (adding a history entry unless `replace`). */
export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  void show(true)
}

/** Where a signed-in visitor belongs by default. */
export function home(): string {
  const first = session.me?.workspaces[0]
  if (first) return `/w/${encodeURIComponent(first.workspace)}/feed`
  return session.me ? '/' : '/signin' // "/" offers to create a first workspace
}

/**
 * A `next` parameter is followed only when it is a path of this site: it is
 * resolved as the browser would resolve it (tabs and newlines dropped,
 * backslashes read as slashes, so `/%09/evil.com` is `//evil.com`), and kept
 * only when the result is on this origin.
 */
export function safeNext(next: string | null): string | null {
  if (!next || !next.startsWith('/')) return null
  let url: URL
  try {
    url = new URL(next, location.origin)
  } catch {
    return null
  }
  return url.origin === location.origin ? url.pathname + url.search + url.hash : null
}

// Once someone has signed up, that stays so: it is asked only until then.
let someoneSignedUp = false

/**
 * Sends a signed-out visitor to sign in, and back here after. On a fresh
 * install nobody can sign in yet: the visitor is sent to make the first
 * account instead (when sign-up is open). When Herald cannot say, sign-in.
 */
export async function toSignIn() {
  const here = location.pathname + location.search
  let to = '/signin'
  if (!someoneSignedUp) {
    const info = await api.get('/v1/auth/signup').catch(() => null)
    if (location.pathname + location.search !== here) return // the visitor went elsewhere meanwhile
    someoneSignedUp = info?.anyAccount ?? false
    if (info && !info.anyAccount && info.signup === 'open') to = '/signup'
  }
  navigate(here === '/' ? to : `${to}?next=${encodeURIComponent(here)}`, true)
}

async function show(focus: boolean) {
  current?.abort()
  const controller = new AbortController()
  current = controller
  const main = document.getElementById('main')!
  const root = document.createElement('div')
  root.className = 'page'
  main.replaceChildren(root)
  const path = location.pathname
  const match = routes.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m)
  if (!match) {
    onRender({ path })
    render(root, html`<h1 tabindex="-1">Page not found</h1><p>There is nothing at this address. <a href="/">Go to the dashboard</a>.</p>`)
    return
  }
  const params: Record<string, string> = {}
  match.r.keys.forEach((k, i) => (params[k] = decodeURIComponent(match.m![i + 1]!)))
  const { access } = match.r
  if ((access === 'user' || access === 'workspace') && !session.me) return toSignIn()
  if (access === 'guest' && session.me) return navigate(safeNext(new URLSearchParams(location.search).get('next')) ?? home(), true)
  let workspace = session.me?.workspaces.find((w) => w.workspace === params.workspace)
  if (access === 'workspace' && !workspace) {
    await session.refresh() // joined or created elsewhere since the page loaded
    if (controller.signal.aborted) return
    if (!session.me) return toSignIn()
    workspace = session.me.workspaces.find((w) => w.workspace === params.workspace)
    if (!workspace) {
      onRender({ path })
      render(root, html`<h1 tabindex="-1">Workspace not found</h1><p>You are not a member of a workspace of this name. <a href="/">Go to your workspaces</a>.</p>`)
      return
    }
  }
  onRender({ workspace, path })
  render(root, html`<p class="loading" role="status">Loading…</p>`)
  const ctx: PageContext = {
    root,
    params,
    query: new URLSearchParams(location.search),
    signal: controller.signal,
    workspace: workspace ?? { workspace: '', role: 'member', defaultChannel: '' },
    canManage: workspace?.role === 'owner' || workspace?.role === 'admin',
    title: (text) => {
      document.title = [text, workspace?.workspace, 'Herald'].filter(Boolean).join(' · ')
    },
  }
  resetOffline()
  try {
    await match.r.page(ctx)
    const since = offlineSince()
    if (since && !controller.signal.aborted) insert(root, 'afterbegin', offlineMark(since, path))
  } catch (err) {
    if (controller.signal.aborted) return
    if (err instanceof ApiError && err.status === 401) {
      session.clear()
      return toSignIn()
    }
    const detail = err instanceof ApiError ? err.detail : 'Something went wrong while showing this page.'
    if (!(err instanceof ApiError)) console.warn(err)
    const heading = err instanceof ApiError && err.status === 404 ? 'Not found' : 'This page could not be shown'
    render(root, html`<h1 tabindex="-1">${heading}</h1><p class="error" role="alert">${detail}</p><p><a href="/">Go to the dashboard</a></p>`)
  }
  if (focus && !controller.signal.aborted) (root.querySelector<HTMLElement>('h1') ?? document.getElementById('main'))?.focus()
}

const savedTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** Says that a page shows what was saved on this device, and from when (the service worker answered while offline). */
function offlineMark(since: string, pathname: string) {
  const at = html`<time datetime="${since}">${savedTime.format(new Date(since))}</time>`
  const what = /^\/w\/[^/]+\/(feed|events)\b/.test(pathname) ? html`the events from ${at}` : html`what this device saved at ${at}`
  return html`<p class="offline-mark" role="status" data-offline="${since}"><strong>Offline</strong> — showing ${what}. New events and changes wait for the connection.</p>`
}

/** Follows internal links without reloading, and the back and forward buttons. */
export function start() {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    const a = (e.target as Element).closest?.('a[href]') as HTMLAnchorElement | null
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return
    if (a.pathname.startsWith('/v1/') || a.pathname === '/docs' || a.pathname === '/openapi.json') return
    if (a.hash && a.pathname === location.pathname) return // in-page link (the skip link)
    e.preventDefault()
    a.closest('details')?.removeAttribute('open')
    navigate(a.pathname + a.search)
  })
  window.addEventListener('popstate', () => void show(true))
  void show(false)
}
