// Two Heralds never share a port: Bun sets SO_REUSEPORT when development is
// off unless told not to, so a second process on a taken port used to start
// and take every other request. It stops at start instead, naming the port
// and the setting to change. Real processes, on the embedded default and on
// PostgreSQL.
import { describe, expect, test } from 'bun:test'
import { PG_URL, createTestDatabase } from '../harness'
import { runToEnd, spawnHerald, useProcessScratch } from '../processes'
import { freePort } from '../faults/private_nats'

describe('a taken port', () => {
  const { procs, dataDir } = useProcessScratch('herald-port-')

  test('a second `herald start` on a taken PORT stops, saying so; the first keeps every request', async () => {
    const port = await freePort()
    const first = await spawnHerald({ PORT: String(port), HERALD_DATA_DIR: dataDir() }, 'start')
    procs.push(first)
    const second = await runToEnd('start', { PORT: String(port), HERALD_DATA_DIR: dataDir() })
    expect(second.code).not.toBe(0)
    expect(second.output).toContain(`port ${port} is already in use on 127.0.0.1 (PORT)`)
    // Every request still reaches the first.
    const pids = new Set<number>()
    for (let i = 0; i < 20; i++) pids.add((await fetch(`${first.url}/healthz`)).status)
    expect([...pids]).toEqual([200])
  }, 60_000)

  test.skipIf(!PG_URL)('`herald serve` on the port of a running `herald start` stops too', async () => {
    const port = await freePort()
    const first = await spawnHerald({ PORT: String(port), HERALD_DATA_DIR: dataDir() }, 'start')
    procs.push(first)
    const db = await createTestDatabase()
    try {
      const second = await runToEnd('serve', { PORT: String(port), DATABASE_URL: db.url })
      expect(second.code).not.toBe(0)
      expect(second.output).toContain(`port ${port} is already in use on 127.0.0.1 (PORT)`)
    } finally {
      await db.drop()
    }
  }, 60_000)

  test.skipIf(!PG_URL)('`herald worker` on a taken METRICS_PORT stops, naming METRICS_PORT; the holder keeps every request', async () => {
    // The holder allows sharing (as Bun's default does): only the worker's own reusePort: false keeps it out.
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', reusePort: true, fetch: () => new Response('the first') })
    const db = await createTestDatabase()
    try {
      const worker = await runToEnd('worker', { METRICS_PORT: String(holder.port), DATABASE_URL: db.url, NATS_URL: 'nats://127.0.0.1:1' })
      expect(worker.code).not.toBe(0)
      expect(worker.output).toContain(`port ${holder.port} is already in use on 127.0.0.1 (METRICS_PORT)`)
      for (let i = 0; i < 5; i++) expect(await (await fetch(`http://127.0.0.1:${holder.port}/metrics`)).text()).toBe('the first')
    } finally {
      holder.stop(true)
      await db.drop()
    }
  }, 60_000)
})
