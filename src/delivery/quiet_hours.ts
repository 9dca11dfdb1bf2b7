// Quiet hours: whether a moment falls inside a member's window, read on the
// wall clock of their IANA time zone. The window is [from, to) in minutes
// after midnight; it crosses midnight when to < from (22:00–07:00). Wall-clock
// time comes from Intl.DateTimeFormat, so a daylight-saving day is what the
// member's clock shows: on the day New York springs forward, 02:00–03:00 never
// happens and a window 01:00–04:00 lasts two hours; on the day it falls back,
// 01:00–02:00 happens twice and is quiet both times. A leaf: pure functions
// (the clock is an argument), with one formatter per zone, cached.

export interface QuietHours {
  timezone: string // IANA, as Intl names it (e.g. "Europe/Paris")
  from: number // minutes after midnight, 0-1439
  to: number // minutes after midnight, 0-1439, not from
  except: number // 1-5: events at or above it are pushed inside the window
}

// One formatter per zone (making one costs far more than using it), and the
// last minute each zone was read for: every offset in use is a whole number of
// minutes, so within one minute of UTC the wall-clock minute does not change.
const formatters = new Map<string, Intl.DateTimeFormat>()
const lastRead = new Map<string, { utcMinute: number; wall: number }>()
const MAX_ZONES = 1000 // about 600 IANA names exist; a bound all the same

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone)
  if (!f) {
    if (formatters.size >= MAX_ZONES) formatters.clear()
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })
    formatters.set(timezone, f)
  }
  return f
}

/** Minutes after midnight on the wall clock of `timezone` at `at` (epoch ms). */
export function wallMinutes(timezone: string, at: number): number {
  const utcMinute = Math.floor(at / 60_000)
  const last = lastRead.get(timezone)
  if (last && last.utcMinute === utcMinute) return last.wall
  let hour = 0
  let minute = 0
  for (const p of formatter(timezone).formatToParts(at)) {
    if (p.type === 'hour') hour = Number(p.value) % 24 // some runtimes write midnight as 24
    else if (p.type === 'minute') minute = Number(p.value)
  }
  const wall = hour * 60 + minute
  if (lastRead.size >= MAX_ZONES) lastRead.clear()
  lastRead.set(timezone, { utcMinute, wall })
  return wall
}

/** Whether `at` (epoch ms) is inside the quiet hours. */
export function inQuietHours(q: QuietHours, at: number): boolean {
  const m = wallMinutes(q.timezone, at)
  return q.from < q.to ? m >= q.from && m < q.to : m >= q.from || m < q.to
}

/** Whether an event of `priority` is held back at `at` by the quiet hours (inside them and below `except`). */
export const quietHoursHold = (q: QuietHours, priority: number, at: number) => priority < q.except && inQuietHours(q, at)

/** The zone's name as Intl spells it ("europe/paris" → "Europe/Paris"), or null when Intl knows no such zone. */
export function canonicalTimeZone(name: string): string | null {
  if (!name || name.length > 64) return null
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return null
  }
}

/** "HH:MM" → minutes after midnight (the format is checked by the schema). */
export const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))
/** Minutes after midnight → "HH:MM". */
export const hhmmOf = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
