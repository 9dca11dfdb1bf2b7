// Cutting a push's text to fit a provider's payload limit: APNs and Web Push
// take 4 KB, and an oversized push is cut, never refused.

export const ELLIPSIS = '…'

/** The UTF-8 size of a string inside a JSON document, quotes excluded. */
export const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2

/**
 * `text` cut to whole code points so that its JSON-escaped UTF-8 form,
 * "…" included, fits `budget` bytes; `text` itself when it already fits.
 * A lone surrogate is one code point here and is escaped, never split.
 */
export function fitText(text: string, budget: number): string {
  if (jsonBytes(text) <= budget) return text
  let used = Buffer.byteLength(ELLIPSIS)
  let end = 0
  for (const ch of text) {
    const n = jsonBytes(ch)
    if (used + n > budget) break
    used += n
    end += ch.length
  }
  return used <= budget ? text.slice(0, end) + ELLIPSIS : ''
}
