// A person's live feed (GET /v1/feed/stream) read as text while a test runs:
// what it has said so far, whether it ended, and a way to close it.
import { expect } from 'bun:test'
import { waitFor } from './support'

export interface FeedStream {
  readonly text: string
  /** Resolves when the response ends. */
  ended: Promise<void>
  /** Whether the response ended within `ms`. */
  endsWithin(ms: number): Promise<boolean>
  cancel(): void
}

/** Opens the stream with `query` (`workspace=…` and any filters) and waits for its first words. */
export async function openFeedStream(url: string, token: string, query: string): Promise<FeedStream> {
  const res = await fetch(`${url}/v1/feed/stream?${query}`, { headers: { authorization: `Bearer ${token}` } })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        text += decoder.decode(value, { stream: true })
      }
    } catch {}
  })()
  await waitFor(() => text.includes(': watching'), 5000, 'the stream to open')
  return {
    get text() {
      return text
    },
    ended,
    endsWithin: (ms) => Promise.race([ended.then(() => true), Bun.sleep(ms).then(() => false)]),
    cancel: () => void reader.cancel().catch(() => {}),
  }
}
