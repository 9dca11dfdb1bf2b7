// Spelling: which known word a misspelled one was meant to be (a setting's
// name, an event's field), for "did you mean …?" in errors and warnings.

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The word of `known` that `word` is most likely a misspelling of, or
 * undefined when none is `near` (by default within 2 edits, or a quarter of
 * its length for a long one). `fold` compares them in lower case (an
 * event's `Message`).
 */
export function closest(word: string, known: Iterable<string>, fold = false, near = (w: string) => Math.max(2, Math.floor(w.length / 4))): string | undefined {
  const w = fold ? word.toLowerCase() : word
  let best: { k: string; d: number } | undefined
  for (const k of known) {
    const d = distance(fold ? k.toLowerCase() : k, w)
    if (!best || d < best.d) best = { k, d }
  }
  return best && best.d <= near(word) ? best.k : undefined
}
