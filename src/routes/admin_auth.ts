// The operator API is guarded by HERALD_ADMIN_TOKEN. The check runs when the
// request arrives, before its body is parsed or validated, so an anonymous
// caller learns nothing from a 400. Without a token the operator API does not
// exist (404).
import { Elysia } from 'elysia'
import { secretsEqual } from '../keys'
import { bearer } from '../auth'
import { HeraldError } from '../problems'

// Runs for every request, so it looks at the URL without allocating.
const isAdminPath = (url: string) => url.startsWith('/admin/', url.indexOf('/', url.indexOf('//') + 2))

export const adminAuth = (token: string | undefined) =>
  new Elysia({ name: 'admin.auth' }).onRequest(({ request }) => {
    if (!isAdminPath(request.url)) return
    if (!token) throw new HeraldError('not-found', 'The operator API is off: set HERALD_ADMIN_TOKEN to enable it.')
    const given = bearer(request.headers.get('authorization'))
    if (!given || !secretsEqual(given, token)) {
      throw new HeraldError('unauthorized', 'The operator API needs "Authorization: Bearer $HERALD_ADMIN_TOKEN".', undefined, { 'www-authenticate': 'Bearer' })
    }
  })
