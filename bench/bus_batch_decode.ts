#!/usr/bin/env bun
// What a worker's main thread spends on a batch message before the pool has
// its events (src/delivery/bus_batch.ts): either the first line parsed and the
// views sliced out as text, which the pool's thread parses (what Herald
// does), or the whole body parsed here and the objects handed over. The hand
// over is a structured clone either way (piscina posts the task), measured
// here with structuredClone. Prints one JSON object.
//
//   npx bun bench/bus_batch_decode.ts [--events 100] [--runs 2000]
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { batchMessages } from '../src/delivery/bus_batch'
import type { BusEvent } from '../src/delivery/bus'
import { machine, round } from './proc'

const { values: flags } = parseArgs({ options: { events: { type: 'string', default: '100' }, runs: { type: 'string', default: '2000' } } })
const EVENTS = Number(flags.events)
const RUNS = Number(flags.runs)

const events: BusEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
  workspaceId: 1 + (i % 3),
  outbox: { id: 42, index: i, size: EVENTS },
  view: {
    eventId: `0190f0a2-7c3e-7${String(i).padStart(3, '0')}-8a1b-3c4d5e6f7a8b`, workspace: 'acme', channel: 'deploys', event: 'deploy.finished', title: `Deploy ${i} finished`,
    message: 'The deploy of api-server to production finished in 4 min 12 s; 3 services restarted, no errors.', link: 'https://ci.example.com/runs/123456',
    tags: ['prod', 'api'], data: { sha: 'a1b2c3d4e5f6', durationS: 252, services: ['api', 'worker', 'cron'] }, createdAt: new Date().toISOString(),
    priority: 3, ttl: null, collapseKey: null, receipt: null, to: null,
  },
}))
const [message] = batchMessages('herald.events', events, { maxBytes: 1 << 20, maxEvents: EVENTS }, 'x')
const body = message!.data
const asJson = `[${body.split('\n').slice(1).join(',')}]` // the same views as one JSON document

function time(f: () => unknown): number {
  for (let i = 0; i < RUNS / 10; i++) f()
  const start = performance.now()
  for (let i = 0; i < RUNS; i++) f()
  return ((performance.now() - start) * 1000) / RUNS
}

// Alternated, twice each, so that neither gets the warmer machine.
const sliced: number[] = []
const parsed: number[] = []
for (let k = 0; k < 2; k++) {
  sliced.push(time(() => {
    const lines = body.split('\n')
    JSON.parse(lines[0]!)
    return structuredClone(lines.slice(1))
  }))
  parsed.push(time(() => structuredClone(JSON.parse(asJson))))
}
const us = (xs: number[]) => round(Math.min(...xs), 1)
console.log(JSON.stringify({
  bench: 'bus_batch_decode', machine: machine(loadavg()[0]!), events: EVENTS, bodyBytes: Buffer.byteLength(body), runs: RUNS,
  slicedTextUs: us(sliced), parsedObjectsUs: us(parsed), ratio: round(Math.min(...parsed) / Math.min(...sliced), 1),
}))
