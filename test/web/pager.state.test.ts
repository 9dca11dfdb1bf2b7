// The cursor pager (src/web/state/pager.ts) that the page state modules read
// lists with: on plain pages, page after page from the cursor, nothing read
// past the last, starting over, a failed read; and, against a real Herald
// with a real web session, walking a list the API pages with its cursor.
import { describe, expect, test } from 'bun:test'
import { pager } from '../../src/web/state/pager'
import { backends, useTestHerald } from '../harness'
import { postEvents, signUpWeb } from './signed_in'

/** Pages of `size` over `items`, noting each cursor asked for. */
const pagesOf = <T>(items: T[], size: number, asked: (string | undefined)[] = []) =>
  pager<T>(async (cursor) => {
    asked.push(cursor)
    const from = cursor ? Number(cursor) : 0
    const end = from + size
    return { items: items.slice(from, end), nextCursor: end < items.length ? String(end) : null }
  })

describe('pager', () => {
  test('reads page after page from the cursor, and nothing past the last', async () => {
    const asked: (string | undefined)[] = []
    const p = pagesOf([1, 2, 3, 4, 5], 2, asked)
    expect(p.more).toBe(false) // nothing read yet
    expect(await p.first()).toEqual([1, 2])
    expect(p.more).toBe(true)
    expect(await p.next()).toEqual([3, 4])
    expect(await p.next()).toEqual([5])
    expect(p.more).toBe(false)
    expect(await p.next()).toEqual([])
    expect(asked).toEqual([undefined, '2', '4']) // no read past the end
  })

  test('an empty list, or one that fits a page: one read, no more', async () => {
    for (const items of [[], ['a', 'b']]) {
      const asked: (string | undefined)[] = []
      const p = pagesOf(items, 2, asked)
      expect(await p.first()).toEqual(items)
      expect(p.more).toBe(false)
      expect(await p.next()).toEqual([])
      expect(asked).toEqual([undefined])
    }
  })

  test('next() before first() reads nothing: there is no cursor yet', async () => {
    const asked: (string | undefined)[] = []
    const p = pagesOf([1, 2, 3], 1, asked)
    expect(await p.next()).toEqual([])
    expect(asked).toEqual([])
  })

  test('first() starts over, after the last page too', async () => {
    const asked: (string | undefined)[] = []
    const p = pagesOf([1, 2, 3], 2, asked)
    await p.first()
    await p.next()
    expect(p.more).toBe(false)
    expect(await p.first()).toEqual([1, 2])
    expect(p.more).toBe(true)
    expect(await p.next()).toEqual([3])
    expect(asked).toEqual([undefined, '2', undefined, '2'])
  })

  test('a failed read leaves the cursor where it was', async () => {
    let fail = false
    const p = pager<string>(async (cursor) => {
      if (fail) throw new Error('offline')
      return cursor ? { items: ['b'], nextCursor: null } : { items: ['a'], nextCursor: 'b' }
    })
    await p.first()
    fail = true
    await expect(p.next()).rejects.toThrow('offline')
    fail = false
    expect(p.more).toBe(true)
    expect(await p.next()).toEqual(['b'])
    expect(await p.first()).toEqual(['a'])
    expect(p.more).toBe(true)
  })
})

for (const backend of backends) {
  describe(`pager against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test("walks the feed with the API's cursor, newest first, each event once", async () => {
      const { api, workspace } = await signUpWeb(h, 'pager')
      const ids = await postEvents(h, api, workspace, [1, 2, 3, 4, 5].map((n) => ({ message: `event ${n}` })))
      const cursors: (string | undefined)[] = []
      const feed = pager(async (before) => {
        cursors.push(before)
        const page = await api.get('/v1/feed', { query: { workspace, before, limit: 2 } })
        return { items: page.events.map((e) => e.eventId), nextCursor: page.nextCursor }
      })
      const read = [...(await feed.first())]
      while (feed.more) read.push(...(await feed.next()))
      expect(read).toEqual([...ids].reverse())
      expect(cursors.length).toBe(3)
      expect(await feed.next()).toEqual([])
      expect(cursors.length).toBe(3)
    })
  })
}
