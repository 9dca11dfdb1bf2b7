// Event text inside the Markdown of a chat destination (Discord's, and the
// subset Teams renders in Adaptive Cards). Event text is untrusted: left as
// it is, `[Your bank](https://evil.example)` in a message shows as a link
// named "Your bank", and `**`, `#` or `>` restyle the whole message. Every
// character that can start Markdown is escaped with a backslash, which both
// render as the character itself (CommonMark, and Discord's parser, take a
// backslash before any ASCII punctuation as an escape).
//
// A bare URL is kept as written but for its brackets: Discord reads a URL
// before any escape in it, so `https://x.example/a\_b` would link to a
// different address, and a masked link cannot form without an unescaped `[`.
import { clip } from './template'

// Inline syntax: emphasis (* _), strike-through (~), spoilers (|), code (`),
// links and images ([ ] ( )), autolinks, mentions and HTML (< >), escapes (\).
const INLINE = /[\\`*_~|<>[\]()]/g
const IN_URL = /[\\[\]]/g
const URL_RUN = /https?:\/\/[^\s<>]+/gi
// Block syntax at the start of a line: headings (#, and Discord's -# subtext),
// lists (- + 1. 1)); quotes (>) and * are escaped everywhere already.
const LINE_START = /(^|[\r\n])([ \t]*)(?:([#+-])|(\d{1,9})([.)]))/g

/** `text` escaped so that Markdown shows it as written. */
export function escapeMarkdown(text: string): string {
  let out = ''
  let last = 0
  for (const m of text.matchAll(URL_RUN)) {
    out += text.slice(last, m.index).replace(INLINE, '\\$&') + m[0].replace(IN_URL, '\\$&')
    last = m.index + m[0].length
  }
  out += text.slice(last).replace(INLINE, '\\$&')
  return out.replace(LINE_START, (_all, nl: string, indent: string, mark?: string, digits?: string, dot?: string) =>
    nl + indent + (mark ? `\\${mark}` : `${digits}\\${dot}`))
}

/** Clips escaped text without leaving a lone backslash to escape the '…'. */
export function clipEscaped(text: string, max: number): string {
  const cut = clip(text, max)
  if (cut === text) return cut
  const kept = cut.slice(0, -1)
  const backslashes = kept.length - kept.replace(/\\+$/, '').length
  return (backslashes % 2 === 1 ? kept.slice(0, -1) : kept) + '…'
}
