// Durations as producers write them: whole seconds, or a whole number with a
// unit ("90s", "15m", "2h", "7d"), as ntfy and Pushover take them.

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86_400 } as const
const DURATION = /^(\d{1,9})(s|m|h|d)$/

/** Seconds from an integer or a duration string; null when it is neither (a fraction, a negative number, "1.5h", "10 m"). */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null
  if (typeof value !== 'string') return null
  const m = DURATION.exec(value)
  return m ? Number(m[1]) * UNIT_S[m[2] as keyof typeof UNIT_S] : null
}

/** "3600" → "1h": the shortest exact spelling, for messages. */
export function formatDuration(seconds: number): string {
  for (const [unit, n] of [['d', 86_400], ['h', 3600], ['m', 60]] as const) if (seconds >= n && seconds % n === 0) return `${seconds / n}${unit}`
  return `${seconds}s`
}
