// When Herald does not answer, the client says why, in words and as a kind
// the caller can branch on: connection refused, a host that does not
// resolve, a TLS handshake that fails (not retried), a timeout.
import { afterAll, describe, expect, test } from 'bun:test'
import { Herald, HeraldError } from '../../clients/typescript/src/index'
import { freePort } from '../faults/private_nats'

const quick = { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 }

async function failure(url: string, opts: { timeoutMs?: number } = {}): Promise<{ err: HeraldError; tries: number }> {
  let tries = 1
  const herald = new Herald({ apiKey: 'hrld_x', url, retry: quick, onRetry: () => void tries++, ...opts })
  try {
    await herald.send({ message: 'x' })
  } catch (err) {
    return { err: err as HeraldError, tries }
  }
  throw new Error('the send succeeded')
}

describe('the client without an answer', () => {
  const plain = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('not TLS') })
  const silent = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async () => (await Bun.sleep(2000), new Response('late')) })
  afterAll(() => {
    plain.stop(true)
    silent.stop(true)
  })

  test('nothing listens: connection-refused, ECONNREFUSED named, retried', async () => {
    const port = await freePort()
    const { err, tries } = await failure(`http://127.0.0.1:${port}`)
    expect(err).toBeInstanceOf(HeraldError)
    expect({ status: err.status, kind: err.kind, type: err.type }).toEqual({ status: 0, kind: 'connection-refused', type: 'https://herald.dev/problems/connection-refused' })
    expect(err.detail).toContain(`cannot reach Herald at http://127.0.0.1:${port} (ECONNREFUSED): the connection was refused`)
    expect(tries).toBe(2)
  })

  test('a host that does not resolve: dns-failed', async () => {
    const { err } = await failure('http://herald-no-such-host.invalid')
    expect(err.kind).toBe('dns-failed')
    expect(err.detail).toContain('does not resolve')
  })

  test('https to a port without TLS: tls-failed, and not retried', async () => {
    const { err, tries } = await failure(`https://127.0.0.1:${plain.port}`)
    expect(err.kind).toBe('tls-failed')
    expect(err.detail).toContain('TLS handshake failed')
    expect(tries).toBe(1)
  })

  test('an answer later than timeoutMs: timeout', async () => {
    const { err } = await failure(`http://127.0.0.1:${silent.port}`, { timeoutMs: 200 })
    expect(err.kind).toBe('timeout')
    expect(err.detail).toContain('did not answer within 0.2 s')
  })
})
