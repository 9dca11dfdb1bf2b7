// How the CLI talks to people: aligned tables, `key: value` records, and the
// one error class whose `code` decides the exit status.

/**
 * usage: the command line is wrong (exit 2). refused: Herald answered 4xx to
 * `herald send`, so the event was not taken and resending it will not help
 * (exit 3). api, unreachable, config: anything else (exit 1).
 */
export type CliErrorCode = 'usage' | 'refused' | 'api' | 'unreachable' | 'config'

export const EXIT_CODES: Record<CliErrorCode, number> = { usage: 2, refused: 3, api: 1, unreachable: 1, config: 1 }

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message)
  }
  get exitCode(): number {
    return EXIT_CODES[this.code]
  }
}

export const usageError = (message: string) => new CliError('usage', message)

const USAGE_HINT = "Run 'herald help' to see every command and option."

/** Writes an error to stderr and returns the exit code it calls for. */
export function reportError(err: unknown): number {
  if (!(err instanceof CliError)) {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  }
  console.error(`error: ${err.message}`)
  for (const d of err.details) console.error(`  - ${d}`)
  if (err.code === 'usage') console.error(USAGE_HINT)
  return err.exitCode
}

export type Cell = string | number

/** Columns padded to their widest cell; all-number columns are right-aligned. */
export function table(headers: string[], rows: Cell[][]): string {
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'))
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells: Cell[]) =>
    cells
      .map((c, i) => (numeric[i] ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)].join('\n')
}

/** One `label: value` line per pair, values aligned. */
export function record(pairs: [string, Cell][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length)) + 1
  return pairs.map(([label, value]) => `${(label + ':').padEnd(width)}  ${value}`).join('\n')
}

/** `2025-06-01T12:34:56.789+00:00` → `2025-06-01 12:34:56` (UTC); null → `-`. */
export function utc(iso: string | null): string {
  if (!iso) return '-'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 19).replace('T', ' ')
}

/** How long until `iso`, to the second and in at most two units: `29m 59s`, `2h 5m`, `3d 4h`; `now` once it is due. */
export function timeUntil(iso: string, now = Date.now()): string {
  let s = Math.round((Date.parse(iso) - now) / 1000)
  if (s <= 0) return 'now'
  const parts: string[] = []
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (s >= size || (unit === 's' && parts.length === 0)) parts.push(`${Math.floor(s / size)}${unit}`)
    s %= size
  }
  return parts.slice(0, 2).join(' ')
}

export const json = (value: unknown) => JSON.stringify(value, null, 2)
