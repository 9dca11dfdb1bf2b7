// GET /metrics: the Prometheus text exposition of this process (src/core/metrics.ts).
// Open unless HERALD_METRICS_TOKEN is set; meant for the internal network.
// Not API: hidden from the OpenAPI document.
import { Elysia } from 'elysia'
import { exposition, metricsAllowed } from '../../core/metrics'
import { metricsUnauthorized } from '../../core/errors'

export const metricsRoute = (token: string | undefined) =>
  new Elysia({ name: 'route.metrics' }).get(
    '/metrics',
    ({ request }) => {
      if (!metricsAllowed(request.headers.get('authorization'), token)) throw metricsUnauthorized()
      return exposition()
    },
    { detail: { hide: true } },
  )
