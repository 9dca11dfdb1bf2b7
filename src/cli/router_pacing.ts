// A router's throttle or digest on the command line: `--throttle 5/1h
// --throttle-key '{{data.host}}'`, `--digest 10m --digest-key … --digest-max
// 100 --digest-bypass urgent`, cleared with `--no-throttle` / `--no-digest`
// (or `none`). The CLI checks only the spelling; the API checks the bounds
// and names the field at fault, as it does for every other router field.
import type { Command } from 'commander'
import type { RouterView } from '../delivery/routers'
import { digestDetails, digestWords, throttleWords } from '../delivery/router_pacing'
import { usageError } from './output'

export interface PacingOptions {
  throttle?: string | false // false: --no-throttle
  throttleKey?: string
  digest?: string | false
  digestKey?: string
  digestMax?: string
  digestBypass?: string
}

export const PACING_FLAGS = ['throttle', 'throttleKey', 'digest', 'digestKey', 'digestMax', 'digestBypass'] as const

const PRIORITY_NAMES = ['min', 'low', 'default', 'high', 'urgent']
const PERIOD = /^\d{1,9}[smhd]?$/
/** "90" → 90 (seconds, as the API takes a bare number), "15m" → "15m". */
const period = (s: string): number | string => (/^\d+$/.test(s) ? Number(s) : s)

export function pacingOptions(cmd: Command) {
  cmd
    .optionsGroup('Pacing (a throttle or a digest, not both):')
    .option('--throttle <limit/period>', "at most LIMIT deliveries per PERIOD and key, such as 5/1h or 100/60 (seconds); the rest end 'throttled', not sent. Periods: 1s to 1d; none removes it")
    .option('--no-throttle', 'remove the throttle')
    .option('--throttle-key <template>', "what the throttle counts apart, a template such as '{{data.host}}' (up to 200 characters; default: one count for every event)")
    .option('--digest <window>', 'gather the matching events for WINDOW (10s to 1d, such as 10m) from the first one of their key, then send them as one delivery; none removes it')
    .option('--no-digest', 'remove the digest')
    .option('--digest-key <template>', "what the digest gathers apart, a template such as '{{data.customer}}' (default: every event in one digest)")
    .option('--digest-max <N>', 'send a digest at once when it holds N events, 1 to 1000 (default 100)')
    .option('--digest-bypass <priority>', "events at or above this priority are not gathered and go at once: 1-5 or min, low, default, high, urgent; none: every event is gathered")
}

function throttleSpec(raw: string): { limit: number; per: number | string } {
  const m = /^(\d{1,9})\/(.+)$/.exec(raw.trim())
  if (!m || !PERIOD.test(m[2]!)) throw usageError(`--throttle must be LIMIT/PERIOD such as 5/1h, 100/60s or 10/90 (seconds), or none, got ${JSON.stringify(raw)}`)
  return { limit: Number(m[1]), per: period(m[2]!) }
}

function windowSpec(raw: string): number | string {
  if (!PERIOD.test(raw.trim())) throw usageError(`--digest must be a window such as 10m, 1h or 90 (seconds), or none, got ${JSON.stringify(raw)}`)
  return period(raw.trim())
}

function digestMax(raw: string): number {
  if (!/^\d{1,9}$/.test(raw.trim()) || Number(raw) < 1) throw usageError(`--digest-max must be a whole number from 1 to 1000, got ${JSON.stringify(raw)}`)
  return Number(raw)
}

/** --digest-bypass as the API takes it: 1-5; null for none. */
function bypass(raw: string): number | null {
  if (raw.toLowerCase() === 'none') return null
  const named = PRIORITY_NAMES.indexOf(raw.toLowerCase())
  if (named >= 0) return named + 1
  if (/^[1-5]$/.test(raw)) return Number(raw)
  throw usageError(`--digest-bypass must be 1 to 5, one of ${PRIORITY_NAMES.join(', ')}, or none, got ${JSON.stringify(raw)}`)
}

const clears = (v: string | false | undefined) => v === false || (typeof v === 'string' && v.trim().toLowerCase() === 'none')
const given = (opts: PacingOptions, flags: readonly (keyof PacingOptions)[]) => flags.some((f) => opts[f] !== undefined)
const THROTTLE_PARTS = ['throttleKey'] as const
const DIGEST_PARTS = ['digestKey', 'digestMax', 'digestBypass'] as const

/** Whether an update must read the router first: a part of a throttle or digest is kept from the one it has. */
export const pacingNeedsCurrent = (opts: PacingOptions) =>
  (given(opts, ['throttle', ...THROTTLE_PARTS]) && !clears(opts.throttle)) || (given(opts, ['digest', ...DIGEST_PARTS]) && !clears(opts.digest))

// On update, the router as it is (only read when a part is kept from it; {} otherwise); undefined on create.
type Current = Partial<Pick<RouterView, 'throttle' | 'digest'>> | undefined

function throttleOf(opts: PacingOptions, current: Current): Record<string, unknown> | null | undefined {
  if (!given(opts, ['throttle', ...THROTTLE_PARTS])) return undefined
  if (clears(opts.throttle)) {
    if (given(opts, THROTTLE_PARTS)) throw usageError('--throttle-key needs a throttle: give --throttle LIMIT/PERIOD, not none')
    return null
  }
  const base = opts.throttle ? throttleSpec(opts.throttle) : current?.throttle
  if (!base) throw usageError('--throttle-key needs --throttle LIMIT/PERIOD (the router has no throttle)')
  const key = opts.throttleKey ?? current?.throttle?.key ?? ''
  return { limit: base.limit, per: base.per, ...(key ? { key } : {}) }
}

function digestOf(opts: PacingOptions, current: Current): Record<string, unknown> | null | undefined {
  if (!given(opts, ['digest', ...DIGEST_PARTS])) return undefined
  if (clears(opts.digest)) {
    if (given(opts, DIGEST_PARTS)) throw usageError('--digest-key, --digest-max and --digest-bypass need a digest: give --digest WINDOW, not none')
    return null
  }
  const window = opts.digest ? windowSpec(opts.digest) : current?.digest?.window
  if (window === undefined) throw usageError('--digest-key, --digest-max and --digest-bypass need --digest WINDOW (the router has no digest)')
  const was = current?.digest
  const key = opts.digestKey ?? was?.key ?? ''
  const max = opts.digestMax !== undefined ? digestMax(opts.digestMax) : was?.max
  const priority = opts.digestBypass !== undefined ? bypass(opts.digestBypass) : (was?.bypassPriority ?? null)
  return { window, ...(key ? { key } : {}), ...(max !== undefined ? { max } : {}), ...(priority !== null ? { bypassPriority: priority } : {}) }
}

/**
 * The throttle and digest of the body, from the flags and, on update, the
 * router as it is (`current`): a flag changes its part and keeps the others.
 * A router has one of the two, so setting one on update removes the other.
 */
export function pacingBody(opts: PacingOptions, current?: Current): { throttle?: unknown; digest?: unknown } {
  const throttle = throttleOf(opts, current)
  const digest = digestOf(opts, current)
  if (throttle && digest) throw usageError('give --throttle or --digest, not both: a router throttles or gathers, not both')
  return {
    ...(throttle !== undefined ? { throttle } : {}),
    ...(digest !== undefined ? { digest } : {}),
    ...(current && throttle && digest === undefined ? { digest: null } : {}),
    ...(current && digest && throttle === undefined ? { throttle: null } : {}),
  }
}

/** The record lines of `router show`: the throttle or the digest, in words. */
export function pacingPairs(r: Partial<Pick<RouterView, 'throttle' | 'digest'>>): [string, string][] {
  if (r.throttle) return [['throttle', throttleWords(r.throttle)]]
  if (r.digest) return [['digest', `${digestWords(r.digest)}; ${digestDetails(r.digest)}`]]
  return []
}
