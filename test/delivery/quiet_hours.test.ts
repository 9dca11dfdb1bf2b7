// Quiet hours on a fixed clock: the wall clock of the member's zone decides,
// a window may cross midnight, a daylight-saving day has the hours the
// member's clock shows, and `except` lets events at or above it through.
import { describe, expect, test } from 'bun:test'
import { canonicalTimeZone, inQuietHours, quietHoursHold, wallMinutes, type QuietHours } from '../../src/delivery/quiet_hours'
import { decide, holdBack, audienceOf, type AudienceMember } from '../../src/delivery/audience'

const at = (iso: string) => Date.parse(iso)
const q = (timezone: string, from: string, to: string, except = 5): QuietHours => ({
  timezone, from: Number(from.slice(0, 2)) * 60 + Number(from.slice(3)), to: Number(to.slice(0, 2)) * 60 + Number(to.slice(3)), except,
})

describe('quiet hours on a fixed clock', () => {
  test('a window around "now" in a zone far from UTC (Kiritimati, UTC+14; Auckland, UTC+13 in summer)', () => {
    // 2026-01-15T08:30Z is 22:30 the same day in Kiritimati, 21:30 in Auckland (NZDT).
    const now = at('2026-01-15T08:30:00Z')
    expect(wallMinutes('Pacific/Kiritimati', now)).toBe(22 * 60 + 30)
    expect(inQuietHours(q('Pacific/Kiritimati', '22:00', '23:00'), now)).toBe(true)
    expect(inQuietHours(q('Pacific/Kiritimati', '08:00', '09:00'), now)).toBe(false) // 08:30 is UTC's clock, not theirs
    expect(inQuietHours(q('Pacific/Auckland', '21:00', '22:00'), now)).toBe(true)
    expect(inQuietHours(q('Pacific/Auckland', '22:00', '23:00'), now)).toBe(false)
    // [from, to): the end is not inside.
    expect(inQuietHours(q('Pacific/Kiritimati', '21:00', '22:30'), now)).toBe(false)
    expect(inQuietHours(q('Pacific/Kiritimati', '22:30', '22:31'), now)).toBe(true)
  })

  test('a window crossing midnight: late evening and early morning inside, midday outside', () => {
    const night = q('Europe/Paris', '22:00', '07:00')
    expect(inQuietHours(night, at('2026-01-15T21:30:00Z'))).toBe(true) // 22:30 Paris (CET)
    expect(inQuietHours(night, at('2026-01-15T23:00:00Z'))).toBe(true) // 00:00
    expect(inQuietHours(night, at('2026-01-16T05:59:00Z'))).toBe(true) // 06:59
    expect(inQuietHours(night, at('2026-01-16T06:00:00Z'))).toBe(false) // 07:00
    expect(inQuietHours(night, at('2026-01-16T11:00:00Z'))).toBe(false) // 12:00
    expect(inQuietHours(night, at('2026-01-15T20:59:00Z'))).toBe(false) // 21:59
  })

  test('America/New_York, 2026-03-08 (springs forward at 02:00): 01:00–04:00 is two hours of that day', () => {
    const w = q('America/New_York', '01:00', '04:00')
    expect(inQuietHours(w, at('2026-03-08T05:30:00Z'))).toBe(false) // 00:30 EST
    expect(inQuietHours(w, at('2026-03-08T06:30:00Z'))).toBe(true) // 01:30 EST
    expect(wallMinutes('America/New_York', at('2026-03-08T07:00:00Z'))).toBe(3 * 60) // 02:00 EST is 03:00 EDT
    expect(inQuietHours(w, at('2026-03-08T07:30:00Z'))).toBe(true) // 03:30 EDT
    expect(inQuietHours(w, at('2026-03-08T08:00:00Z'))).toBe(false) // 04:00 EDT: one hour earlier in UTC than the day before
    expect(inQuietHours(w, at('2026-03-07T08:30:00Z'))).toBe(true) // the day before, 03:30 EST
  })

  test('America/New_York, 2026-11-01 (falls back at 02:00): 01:00–01:30 happens twice and is quiet both times', () => {
    const w = q('America/New_York', '01:00', '01:30')
    expect(inQuietHours(w, at('2026-11-01T05:15:00Z'))).toBe(true) // 01:15 EDT
    expect(inQuietHours(w, at('2026-11-01T05:45:00Z'))).toBe(false) // 01:45 EDT
    expect(inQuietHours(w, at('2026-11-01T06:15:00Z'))).toBe(true) // 01:15 EST, the second time
    expect(inQuietHours(w, at('2026-11-01T06:45:00Z'))).toBe(false)
  })

  test('Europe/Berlin across its summer-time change (2026-03-29): 22:00–07:00 follows the wall clock', () => {
    const w = q('Europe/Berlin', '22:00', '07:00')
    expect(inQuietHours(w, at('2026-03-29T04:30:00Z'))).toBe(true) // 06:30 CEST
    expect(inQuietHours(w, at('2026-03-29T05:00:00Z'))).toBe(false) // 07:00 CEST (06:00 the day before in UTC terms)
    expect(inQuietHours(w, at('2026-03-28T05:30:00Z'))).toBe(true) // 06:30 CET
    expect(inQuietHours(w, at('2026-03-28T20:59:00Z'))).toBe(false) // 21:59 CET
    expect(inQuietHours(w, at('2026-03-29T20:00:00Z'))).toBe(true) // 22:00 CEST
  })

  test('except: an event at or above it gets through inside the window; below it is held', () => {
    const now = at('2026-01-15T08:30:00Z') // 22:30 in Kiritimati
    const w = q('Pacific/Kiritimati', '22:00', '07:00', 4)
    expect(quietHoursHold(w, 3, now)).toBe(true)
    expect(quietHoursHold(w, 4, now)).toBe(false)
    expect(quietHoursHold(w, 5, now)).toBe(false)
    expect(quietHoursHold(w, 1, at('2026-01-15T00:00:00Z'))).toBe(false) // 14:00 there: outside
  })

  test('time zone names: Intl decides, spelled as Intl spells them', () => {
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris')
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris')
    expect(canonicalTimeZone('UTC')).toBe('UTC')
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull()
    expect(canonicalTimeZone('')).toBeNull()
  })
})

describe('the push decision', () => {
  const device = (id: string) => ({ id, provider: 'webpush' as const, token: `https://push.example/${id}`, environment: 'production' as const, topic: null })
  const member = (userId: string, over: Partial<AudienceMember> = {}): AudienceMember => ({ userId, level: 'all', ownLevel: false, quiet: null, ...over })
  const now = at('2026-01-15T08:30:00Z') // 22:30 in Kiritimati

  test('levels, quiet hours and recipients, each with the reason a member reads', () => {
    const calm = member('calm', { quiet: q('Pacific/Kiritimati', '22:00', '07:00') })
    const high = member('high', { level: 'high', ownLevel: true })
    const mute = member('mute', { level: 'none', ownLevel: true })
    const plain = member('plain')
    const a = audienceOf([device('c1'), device('c2'), device('h'), device('m'), device('p')], [calm, calm, high, mute, plain])
    const d = decide(a, { channel: 'ops', priority: 3, to: null }, now)
    expect(d.push.map((x) => x.id)).toEqual(['p'])
    expect(d.suppressed.map((s) => [s.device.id, s.reason, s.why])).toEqual([
      ['c1', 'quiet_hours', 'quiet hours 22:00–07:00 Pacific/Kiritimati; priority 3 is below 5'],
      ['c2', 'quiet_hours', 'quiet hours 22:00–07:00 Pacific/Kiritimati; priority 3 is below 5'],
      ['h', 'level', 'channel ops: high only; priority 3 is below 4'],
      ['m', 'muted', 'channel ops: muted'],
    ])
    // Priority 5 gets through the quiet hours and the level; a mute still holds it.
    expect(decide(a, { channel: 'ops', priority: 5, to: null }, now).push.map((x) => x.id)).toEqual(['c1', 'c2', 'h', 'p'])
    // Recipients only: the others are neither pushed nor suppressed.
    const to = decide(a, { channel: 'ops', priority: 3, to: ['plain', 'high'] }, now)
    expect(to.push.map((x) => x.id)).toEqual(['p'])
    expect(to.suppressed.map((s) => s.device.id)).toEqual(['h'])
    expect(holdBack(member('d', { level: 'urgent' }), { channel: 'ops', priority: 4, to: null }, now)!.why).toBe('channel ops: urgent only (your default); priority 4 is below 5')
  })

  test('an audience without preferences is plain: every device pushed', () => {
    const a = audienceOf([device('a'), device('b')], [member('x'), member('y')])
    expect(a.plain).toBe(true)
    expect(decide(a, { channel: 'ops', priority: 1, to: null }, now).push).toHaveLength(2)
  })
})
