// A member's own preferences in a workspace: read them, or replace them
// whole. What the schema cannot say is checked here (a time zone Intl knows,
// a window that is not empty, channels that exist), each a 400 at its
// pointer; a change is announced as a change of who is pushed, so every
// worker drops its cached audiences and the next pushes follow it.
import type { Ctx } from '../core/operation'
import { notAMember, preferenceChannelsMissing, preferencesArePersonal, quietHoursEmpty, timeZoneUnknown } from '../core/errors'
import { LIMITS, SLUG } from '../ingest/event'
import { canonicalTimeZone, hhmmOf, minutesOf } from '../delivery/quiet_hours'
import type { Level } from '../delivery/audience'
import { readPreferences, writePreferences, type StoredPreferences } from './preferences'

/** Levels for channels one document may set: as many as a workspace has channels by default (HERALD_MAX_CHANNELS_PER_WORKSPACE). */
export const MAX_CHANNEL_LEVELS = 1000
/** What `except` is when a document leaves it out: urgent events still get through. */
export const DEFAULT_EXCEPT = 5

/** The preferences document of the API. */
export interface Preferences {
  quietHours: { timezone: string; from: string; to: string; except: number } | null
  channels: Record<string, Level>
  default: Level
}

/** The document as PUT sends it: every field may be left out (its default). */
export interface PreferencesInput {
  quietHours?: { timezone: string; from: string; to: string; except?: number } | null
  channels?: Record<string, Level>
  default?: Level
}

const personOf = (ctx: Ctx) => {
  if (ctx.actor.kind !== 'person') throw preferencesArePersonal()
  return ctx.actor.userId
}

const asDocument = (p: StoredPreferences): Preferences => ({
  quietHours: p.quietHours ? { timezone: p.quietHours.timezone, from: hhmmOf(p.quietHours.from), to: hhmmOf(p.quietHours.to), except: p.quietHours.except } : null,
  channels: p.channels,
  default: p.default,
})

/** The acting member's preferences; mutes show as level none. */
export async function myPreferences(ctx: Ctx): Promise<Preferences> {
  return asDocument(await readPreferences(ctx.sql, ctx.workspace.id, personOf(ctx)))
}

/** The document checked and in stored form, or the 400 naming what is wrong. */
export function storedForm(input: PreferencesInput): StoredPreferences {
  const q = input.quietHours ?? null
  let quietHours: StoredPreferences['quietHours'] = null
  if (q) {
    const timezone = canonicalTimeZone(q.timezone)
    if (!timezone) throw timeZoneUnknown(q.timezone)
    const from = minutesOf(q.from)
    const to = minutesOf(q.to)
    if (from === to) throw quietHoursEmpty()
    quietHours = { timezone, from, to, except: q.except ?? DEFAULT_EXCEPT }
  }
  const channels = input.channels ?? {}
  // A key that is no slug names no channel: refused without asking the database.
  const bad = Object.keys(channels).filter((slug) => !SLUG.test(slug) || slug.length > LIMITS.channel)
  if (bad.length) throw preferenceChannelsMissing(bad)
  return { quietHours, channels, default: input.default ?? 'all' }
}

/** Replaces the acting member's preferences; answers them as stored. */
export async function replacePreferences(ctx: Ctx, input: PreferencesInput): Promise<Preferences> {
  const userId = personOf(ctx)
  const prefs = storedForm(input)
  const result = await writePreferences(ctx.sql, ctx.workspace.id, userId, prefs)
  if (result === 'not-member') throw notAMember(ctx.workspace.name)
  if (typeof result === 'object') throw preferenceChannelsMissing(result.missing)
  ctx.announce({ kind: 'audience' })
  return asDocument(prefs)
}
