// An answer given before the request's body was read to its end (a 401 from
// the headers, a 413 past the limit, a 415, a 404 …) is sent at once; then
// the rest of the body is read and thrown away, at most LINGER_MAX_BYTES or
// for LINGER_MAX_MS, and the connection closes: nginx's lingering close.
//
// Both other ways fail a client. Closed at once with body bytes unread, the
// kernel answers them with a reset, which drops an answer the client had not
// read yet: Node's http client, writing a 400 KB chunked body, saw ECONNRESET
// and never its 413. Kept open, Bun reads and discards the rest of a body the
// handler never read, however large, for as long as it comes: a refused
// client made Herald read 64 MB.
//
// Bun gives a handler no socket to half-close, so the answer is a stream: its
// status, its headers and its whole body go out at once, and the stream ends
// when the drain does; with `Connection: close` Bun then closes. Bun sends a
// stream chunked (it drops a Content-Length), so a client that waits for the
// end of the answer waits until its own body ends, or the bound is reached.
//
// What Bun does not let Herald change: it sends `100 Continue` to an
// `Expect: 100-continue` request before any handler runs (uWS answers the
// expectation itself), so a client that waits for it sends its body even
// when the answer is a 401. That body is bounded by this drain like any other.

export interface LingerLimits {
  /** The most body bytes read and discarded after the answer. */
  maxBytes: number
  /** The longest the drain waits for them. */
  maxMs: number
}

type Reader = ReadableStreamDefaultReader<Uint8Array>

// Bodies readBody stopped reading past their limit: the drain goes on from
// where it stopped (a cancelled body could not be read again, and Bun would
// then discard the rest of it without a bound).
const stopped = new WeakMap<Request, Reader>()

/** Hands the rest of a body that was read only in part (past its limit) to the drain. */
export function leaveUnread(request: Request, reader: Reader): void {
  stopped.set(request, reader)
}

const declaresBody = (request: Request) => {
  const length = request.headers.get('content-length')
  return (length !== null && length !== '0') || request.headers.has('transfer-encoding')
}

/**
 * A GET or a HEAD with a body: Bun hides it from the handler (request.body is
 * null) and reads and discards it itself, to its end, so it can be neither
 * read nor drained within a bound. Such a request is answered 400 and its
 * connection closed (src/server.ts).
 */
export const hiddenBody = (request: Request) => (request.method === 'GET' || request.method === 'HEAD') && declaresBody(request)

// A body Herald has not read to its end: untouched (the request had one), or
// left by readBody. A body read to its end, or none, needs no drain.
function unreadBody(request: Request): Reader | undefined {
  if (request.bodyUsed) return stopped.get(request)
  return declaresBody(request) ? request.body?.getReader() : undefined
}

const GC_AFTER_BYTES = 512 * 1024
let drained = 0

/** Reads and discards up to the limits; `complete` when the body ended within them. */
async function discard(reader: Reader, { maxBytes, maxMs }: LingerLimits): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0
  let late = false
  const timer = setTimeout(() => {
    late = true
    reader.cancel().catch(() => {})
  }, maxMs)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { bytes, complete: !late }
      bytes += value.byteLength
      if (bytes > maxBytes) {
        await reader.cancel().catch(() => {})
        return { bytes, complete: false }
      }
    }
  } catch {
    return { bytes, complete: false } // the client hung up, or the timer cancelled the read
  } finally {
    clearTimeout(timer)
    // What was drained is garbage at once; without a hint it waited for a
    // collection long enough for refused floods of large bodies to add tens
    // of MB. A hint per small body, though, made every refused request pay
    // for a collection (a burst of 401s ran 5× slower): one hint per
    // GC_AFTER_BYTES drained, whichever requests drained them.
    drained += bytes
    if (drained >= GC_AFTER_BYTES) {
      drained = 0
      Bun.gc(false)
    }
  }
}

// Statuses whose response has no body, so no stream to hold the connection with.
const NO_BODY = new Set([101, 204, 205, 304])

/**
 * `response` as it is, or, when `request` has a body Herald did not read to
 * its end, `response` sent at once and ended when the rest of the body has
 * been drained within `limits`, with `Connection: close`.
 */
export function lingering(request: Request, response: Response, limits: LingerLimits): Response {
  const reader = unreadBody(request)
  if (!reader) return response
  const headers = new Headers(response.headers)
  headers.set('connection', 'close')
  headers.delete('content-length')
  if (NO_BODY.has(response.status) || request.method === 'HEAD') {
    // Nothing to hold the answer open with: Bun closes at once, the drain cut short.
    reader.cancel().catch(() => {})
    return new Response(null, { status: response.status, statusText: response.statusText, headers })
  }
  const source = response.body?.getReader()
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const drained = discard(reader, limits)
      // The answer goes out as it comes (a problem: at once, whole); a body
      // that never ends (a feed) is cut with the drain when that was cut.
      void drained.then((d) => {
        if (!d.complete) source?.cancel().catch(() => {})
      })
      if (source) {
        for (;;) {
          const { done, value } = await source.read().catch(() => ({ done: true, value: undefined }))
          if (done) break
          controller.enqueue(value)
        }
      }
      await drained
      controller.close()
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}
