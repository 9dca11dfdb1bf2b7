// Liveness and readiness probes.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { json } from '../openapi'

const Liveness = Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness' })
const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('draining'), Type.Literal('unavailable')]),
    database: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')])),
  },
  { $id: 'Readiness' },
)
const probe = { tags: ['Operations'], security: [] }

/** `ping`: whether the database answers (rejects when it does not). */
export const healthRoute = ({ ping, state }: { ping: () => Promise<unknown>; state: { draining: boolean } }) =>
  new Elysia({ name: 'route.health' })
    .get('/healthz', () => ({ status: 'ok' }), {
      detail: { ...probe, summary: 'Liveness: the process answers', description: 'Answers as long as the process runs; it checks nothing else.', responses: { 200: json('The process answers.', Liveness) } },
    })
    .get(
      '/readyz',
      async ({ set }) => {
        if (state.draining) {
          set.status = 503
          return { status: 'draining' }
        }
        try {
          await Promise.race([ping(), Bun.sleep(2000).then(() => Promise.reject(new Error('timeout')))])
          return { status: 'ready', database: 'ok' }
        } catch {
          set.status = 503
          return { status: 'unavailable', database: 'unreachable' }
        }
      },
      {
        detail: {
          ...probe,
          summary: 'Readiness: the database answers within 2 s',
          description: 'A load balancer sends traffic while this is 200. 503 while the server shuts down (draining) or when the database does not answer within 2 s; this answer is no problem+json, as a probe reads only the status.',
          responses: { 200: json('Ready: the database answered.', Readiness), 503: json('Not ready: draining, or the database is unreachable.', Readiness) },
        },
      },
    )
