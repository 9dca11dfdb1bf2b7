// The push services this thread sends Web Pushes to, one entry per origin:
// which HTTP version the origin speaks and how many of its sends may be under
// way at once. Without a bound, every send in flight past the connections
// Bun's fetch keeps alive (64 per process, all hosts together) opened a TLS
// connection of its own, costing the worker and the push service a handshake
// per push. FCM's, Mozilla's and Apple's push services speak HTTP/2, where one
// connection carries many sends at once (fetch opens another only when the
// service's limit of concurrent streams is reached); an origin that does not
// (ALPN picks HTTP/1.1) gets at most `connections` sends at a time, so that
// its kept-alive connections are reused rather than new ones opened.
import type { WebPushConfig } from './job'

export type Protocol = 'http2' | 'http1.1'

// While an origin's version is not known, one send finds it out and the rest
// wait: a batch of pushes to a new HTTP/1.1 origin would otherwise each try
// HTTP/2 first, a TLS handshake apiece.
const PROBE_PLACES = 1
// An origin that answered with HTTP/1.1 is asked for HTTP/2 again after this
// long: a push service may move behind a front that speaks it.
const RECHECK_MS = 60 * 60_000
// When the configuration names none (WEB_PUSH_CONNECTIONS_PER_ORIGIN's default).
export const DEFAULT_CONNECTIONS_PER_ORIGIN = 32
// Origins remembered per thread: a few push services in practice; the bound
// is against subscriptions on endless hosts.
const ORIGINS_MAX = 1000
// A place granted with less time than this left of the wait is given up: the
// send could not be answered in time, and it would hold a connection for
// nothing.
const MIN_SEND_MS = 10

interface Origin {
  protocol: Protocol | null // null: not known yet
  since: number // when protocol was learnt
  active: number
  waiting: (() => void)[]
}

const origins = new Map<string, Origin>()

function originOf(origin: string, now: number): Origin {
  let o = origins.get(origin)
  if (o && o.protocol === 'http1.1' && now - o.since > RECHECK_MS && o.active === 0) o.protocol = null
  if (!o) {
    if (origins.size >= ORIGINS_MAX) {
      const idle = [...origins].find(([, x]) => x.active === 0 && !x.waiting.length)
      if (idle) origins.delete(idle[0])
    }
    origins.set(origin, (o = { protocol: null, since: now, active: 0, waiting: [] }))
  }
  return o
}

/** Sends this origin may have under way in this thread now. */
function places(o: Origin, connections: number): number {
  if (o.protocol === null) return PROBE_PLACES
  return o.protocol === 'http1.1' ? connections : Infinity
}

function grant(o: Origin, connections: number): void {
  while (o.waiting.length && o.active < places(o, connections)) {
    o.active++
    o.waiting.shift()!()
  }
}

/** This thread's share of WEB_PUSH_CONNECTIONS_PER_ORIGIN. */
export function connectionsOf(webpush: Pick<WebPushConfig, 'connectionsPerOrigin'>): number {
  return Math.max(1, webpush.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN)
}

/**
 * One send with the version given and the ms already spent waiting for a
 * place; it tells whether the origin answered (any status), refused HTTP/2
 * (its ALPN picked HTTP/1.1) or could not be reached.
 */
export type OriginSend<T> = (protocol: Protocol, waitedMs: number) => Promise<{ result: T; outcome: 'answered' | 'http2-refused' | 'failed' }>

/**
 * Runs one send to `origin` once a place among its sends is free, with the
 * HTTP version it speaks (HTTP/2 until it refuses it). A send that finds
 * HTTP/2 refused is sent again at once over HTTP/1.1, and the origin is
 * remembered as HTTP/1.1. Waiting longer than `maxWaitMs` for a place gives
 * `onTimeout()` instead: the wait is part of the attempt's time limit.
 */
export async function viaOrigin<T>(origin: string, connections: number, maxWaitMs: number, send: OriginSend<T>, onTimeout: () => T): Promise<T> {
  const started = performance.now()
  const o = originOf(origin, Date.now())
  if (o.waiting.length || o.active >= places(o, connections)) {
    const granted = await new Promise<boolean>((resolve) => {
      const waiter = () => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        const at = o.waiting.indexOf(waiter)
        if (at >= 0) o.waiting.splice(at, 1)
        resolve(false)
      }, maxWaitMs)
      o.waiting.push(waiter)
    })
    if (!granted) return onTimeout()
    if (performance.now() - started > maxWaitMs - MIN_SEND_MS) {
      o.active--
      grant(o, connections)
      return onTimeout()
    }
  } else o.active++
  try {
    const protocol: Protocol = o.protocol ?? 'http2'
    const first = await send(protocol, performance.now() - started)
    if (first.outcome === 'answered' && o.protocol === null) learn(o, protocol)
    if (first.outcome !== 'http2-refused' || protocol === 'http1.1') return first.result
    learn(o, 'http1.1')
    return (await send('http1.1', performance.now() - started)).result
  } finally {
    o.active--
    grant(o, connections)
  }
}

function learn(o: Origin, protocol: Protocol): void {
  o.protocol = protocol
  o.since = Date.now()
}

/** Forgets what this thread learnt of every origin (tests). */
export function forgetOrigins(): void {
  origins.clear()
}
