// Where a URL points, for messages and metrics: its host and port, never its
// credentials or path. One helper for the places that name a destination, a
// database or a NATS server in a log line or a label.

/**
 * host[:port] of `url` (the port only when it is not the scheme's default),
 * or `fallback` when `url` does not parse.
 */
export function hostOf(url: string, fallback: string): string {
  try {
    return new URL(url).host
  } catch {
    return fallback
  }
}
