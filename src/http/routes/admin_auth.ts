// The operator API is guarded by HERALD_ADMIN_TOKEN. The guard belongs to the
// route group of the operator API (routes/group.ts): it runs for the routes
// the router matched there, whatever spelling of the host or path led to
// them, before their body is read, so an anonymous caller learns nothing from
// a 400. Without a token the operator API does not exist (404).
import { Elysia } from 'elysia'
import { secretsEqual } from '../../core/keys'
import { bearer } from '../../core/keys'
import { operatorApiOff, operatorTokenMissing, operatorTokenWrong } from '../../core/errors'
import { routeGroup } from './group'
import { problem, type Responses } from '../openapi'

export function adminGuard(token: string | undefined) {
  return (request: Request) => {
    if (!token) throw operatorApiOff()
    const given = bearer(request.headers.get('authorization'))
    if (!given) throw operatorTokenMissing()
    if (!secretsEqual(given, token)) throw operatorTokenWrong()
  }
}

/** The operator API: every route `use`d into this group is behind the admin token. */
export const adminGroup = (token: string | undefined): Elysia<any, any, any, any, any, any, any> =>
  routeGroup({ name: 'group.admin', guard: adminGuard(token), bodyLimit: 64 * 1024 })

// What every operator route may answer: the guard's 401 and 404, and a 503 from the database.
export const OPERATOR_PROBLEMS: Responses = {
  401: problem(401, 'Missing or wrong HERALD_ADMIN_TOKEN.'),
  404: problem(404, 'No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN.'),
  503: problem(503),
}
/** The operator API is off: the 404 of an operator route that names no workspace. */
export const OPERATOR_OFF = problem(404, 'No operator API: this server was started without HERALD_ADMIN_TOKEN.')

/** The OpenAPI `detail` of an operator route: its own responses, and those of every operator route. */
export const operatorDetail = (summary: string, description: string | undefined, responses: Responses) => ({
  summary,
  description,
  tags: ['Operator'],
  security: [{ adminToken: [] }],
  responses: { ...OPERATOR_PROBLEMS, ...responses },
})
