// Liveness and readiness probes.
import { Elysia } from 'elysia'
import { ping, type Sql } from '../../core/db'

export const healthRoute = (sql: Sql, state: { draining: boolean }) =>
  new Elysia({ name: 'route.health' })
    .get('/healthz', () => ({ status: 'ok' }), { detail: { summary: 'Liveness: the process answers', tags: ['Operations'] } })
    .get(
      '/readyz',
      async ({ set }) => {
        if (state.draining) {
          set.status = 503
          return { status: 'draining' }
        }
        try {
          await Promise.race([ping(sql), Bun.sleep(2000).then(() => Promise.reject(new Error('timeout')))])
          return { status: 'ready', database: 'ok' }
        } catch {
          set.status = 503
          return { status: 'unavailable', database: 'unreachable' }
        }
      },
      { detail: { summary: 'Readiness: the database answers within 2 s', tags: ['Operations'] } },
    )
