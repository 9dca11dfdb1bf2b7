// The usage page's state (src/web/state/usage.ts): the numbers of the quota
// meter, and, against a real Herald, this month's count and the day's bar
// after events are posted.
import { describe, expect, test } from 'bun:test'
import { loadUsage, percent, quotaMeter } from '../../src/web/state/usage'
import { backends, useTestHerald } from '../harness'
import { postEvents, signUpWeb } from './signed_in'

describe('the quota meter', () => {
  test('the share used, at most 100, and 100 of a quota of zero', () => {
    expect(percent(250, 1000)).toBe(25)
    expect(percent(2000, 1000)).toBe(100)
    expect(percent(0, 0)).toBe(100)
  })

  test('a little use is "<1", not 0; no use is 0', () => {
    expect(quotaMeter({ used: 3, limit: 10_000, remaining: 9_997 }).shown).toBe('<1')
    expect(quotaMeter({ used: 0, limit: 10_000, remaining: 10_000 }).shown).toBe('0')
    expect(quotaMeter({ used: 996, limit: 1000, remaining: 4 }).shown).toBe('100')
  })

  test('bounds at 75% and 90%, a max of at least 1, refusal when nothing remains', () => {
    expect(quotaMeter({ used: 10, limit: 1000, remaining: 990 })).toMatchObject({ low: 750, high: 900, max: 1000, refused: false })
    expect(quotaMeter({ used: 0, limit: 0, remaining: 0 })).toMatchObject({ max: 1, refused: true })
  })
})

for (const backend of backends) {
  describe(`usage state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test('counts this month\'s events and today\'s', async () => {
      const { api, workspace } = await signUpWeb(h, 'usage')
      const before = await loadUsage(api, workspace)
      expect(before.used).toBe(0)
      expect(before.remaining).toBe(before.limit)
      await postEvents(h, api, workspace, [{ message: 'a' }, { message: 'b' }, { message: 'c' }])
      const after = await loadUsage(api, workspace)
      expect(after.used).toBe(3)
      expect(after.remaining).toBe(after.limit - 3)
      const today = new Date().toISOString().slice(0, 10)
      expect(after.days.find((d) => d.day === today)?.events).toBe(3)
      expect(quotaMeter(after).refused).toBe(false)
    })
  })
}
