// The dashboard's entry point: the route table, the header, the session and
// the service worker, then the first page.
import { html, render } from './html'
import { home, navigate, route, setLayout, start } from './router'
import { mayBeSignedIn, session } from './session'
import { renderHeader, welcomePage, wireHeader } from './layout'
import { invitePage, resetConfirmPage, resetRequestPage, signinPage, signupConfirmPage, signupPage } from './page_auth'
import { feedPage } from './page_feed'
import { eventPage } from './page_event'
import { channelsPage } from './page_channels'
import { membersPage } from './page_members'
import { keysPage } from './page_keys'
import { routersPage } from './page_routers'
import { routerFormPage } from './page_router_form'
import { usagePage } from './page_usage'
import { deliveriesPage } from './page_deliveries'
import { notificationsPage } from './page_notifications'
import { preferencesPage } from './page_preferences'
import { scheduledPage } from './page_scheduled'
import { accountPage } from './page_account'
import { registerWorker, watchInstall } from './device'
import { noteCutFields } from './ui'

route('/', 'public', (ctx) => {
  if (!session.me?.workspaces.length) return welcomePage(ctx)
  navigate(home(), true)
})
// The installed app's shortcut: the feed of the first workspace.
route('/feed', 'user', () => navigate(home(), true))
route('/signin', 'guest', signinPage)
route('/signup', 'guest', signupPage)
route('/signup/confirm/:token', 'public', signupConfirmPage)
route('/reset', 'public', resetRequestPage)
route('/reset/:token', 'public', resetConfirmPage)
route('/invite/:token', 'public', invitePage)
route('/account', 'user', accountPage)
route('/w/:workspace', 'workspace', (ctx) => navigate(`/w/${encodeURIComponent(ctx.workspace.workspace)}/feed`, true))
route('/w/:workspace/feed', 'workspace', feedPage)
route('/w/:workspace/events/:eventId', 'workspace', eventPage)
route('/w/:workspace/channels', 'workspace', channelsPage)
route('/w/:workspace/members', 'workspace', membersPage)
route('/w/:workspace/keys', 'workspace', keysPage)
route('/w/:workspace/routers', 'workspace', routersPage)
route('/w/:workspace/routers/new', 'workspace', routerFormPage)
route('/w/:workspace/routers/:id', 'workspace', routerFormPage)
route('/w/:workspace/deliveries', 'workspace', deliveriesPage)
route('/w/:workspace/scheduled', 'workspace', scheduledPage)
route('/w/:workspace/usage', 'workspace', usagePage)
route('/w/:workspace/notifications', 'workspace', notificationsPage)
route('/w/:workspace/preferences', 'workspace', preferencesPage)

async function boot() {
  watchInstall() // before anything awaits: the browser's offer may come early
  noteCutFields(document)
  registerWorker()
  setLayout(renderHeader)
  wireHeader()
  try {
    if (mayBeSignedIn()) await session.refresh()
  } catch (err) {
    const detail = err instanceof Error && 'detail' in err ? String(err.detail) : 'Herald could not be reached.'
    render(document.getElementById('main')!, html`<h1>Herald is not answering</h1><p class="error" role="alert">${detail}</p><p><a href="">Try again</a></p>`)
    return
  }
  start()
}

void boot()
