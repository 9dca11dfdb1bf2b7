// The ingest benchmark for k6 users: the same scenario as bench/ingest.ts
// (64 connections posting one realistic event body, rotating over the API keys
// of many workspaces), with the latency target as a k6 threshold.
//
// Against a Herald you already run, with keys you already have:
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e API_KEYS=key1,key2,... bench/ingest.k6.js
// Or let setup() create the workspaces through the operator API:
//   k6 run -e BASE_URL=http://127.0.0.1:8080 -e ADMIN_TOKEN=$HERALD_ADMIN_TOKEN bench/ingest.k6.js
//
// Other variables: WORKSPACES (default 100), VUS (64), DURATION (15s), WARMUP (3s).
// The throughput ratio against a bare server is not measured here; run
// bench/ingest.ts for that.
import http from 'k6/http'
import { check, fail } from 'k6'

const BASE_URL = (__ENV.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '')
const VUS = parseInt(__ENV.VUS || '64', 10)
const DURATION = __ENV.DURATION || '15s'
const WARMUP = __ENV.WARMUP || '3s'
const WORKSPACES = parseInt(__ENV.WORKSPACES || '100', 10)

// The same bytes as bench/ingest.lua sends.
const BODY = JSON.stringify({
  message: 'New signup: jane@example.com upgraded from the free trial',
  event: 'user.signup',
  channel: 'signups',
  title: 'New signup',
  tags: ['a', 'b'],
  data: { plan: 'pro', n: 42 },
})

export const options = {
  // Only the status is checked; not keeping bodies saves k6 memory and CPU.
  discardResponseBodies: true,
  // Creating 100 workspaces one by one takes a few seconds at most.
  setupTimeout: '120s',
  scenarios: {
    warmup: { executor: 'constant-vus', vus: VUS, duration: WARMUP, exec: 'ingest', tags: { phase: 'warmup' } },
    ingest: { executor: 'constant-vus', vus: VUS, duration: DURATION, exec: 'ingest', startTime: WARMUP, tags: { phase: 'measured' } },
  },
  thresholds: {
    // The targets apply to the measured phase only, not to the warm-up.
    'http_req_duration{scenario:ingest}': ['p(99)<25'],
    'checks{scenario:ingest}': ['rate==1'],
    'http_req_failed{scenario:ingest}': ['rate==0'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max'],
}

function createWorkspaces(adminToken) {
  const run = Date.now().toString(36)
  const keys = []
  for (let i = 0; i < WORKSPACES; i++) {
    const res = http.post(
      `${BASE_URL}/admin/workspaces`,
      // Limits far above what the run can reach: this measures the write path, not 429s.
      JSON.stringify({ name: `k6-${run}-${i}`, monthlyQuota: 100000000, rateLimit: { perSecond: 1e9, burst: 1e9 } }),
      { headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' }, responseType: 'text', tags: { name: 'admin' } },
    )
    if (res.status !== 201) fail(`POST /admin/workspaces answered ${res.status}: ${res.body}`)
    keys.push(res.json('apiKey'))
  }
  return keys
}

export function setup() {
  let keys = (__ENV.API_KEYS || '').split(',').map((k) => k.trim()).filter((k) => k.length > 0)
  if (keys.length === 0) {
    if (!__ENV.ADMIN_TOKEN) fail('set API_KEYS (comma-separated) or ADMIN_TOKEN (to create workspaces through the operator API)')
    keys = createWorkspaces(__ENV.ADMIN_TOKEN)
  }
  return { keys }
}

export function ingest(data) {
  // __VU starts at 1 and __ITER at 0 per VU: VUs start on different keys and
  // then walk through all of them.
  const key = data.keys[(__VU * 37 + __ITER) % data.keys.length]
  const res = http.post(`${BASE_URL}/event`, BODY, {
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    tags: { name: 'POST /event' },
  })
  check(res, { 'status is 200': (r) => r.status === 200 })
}
