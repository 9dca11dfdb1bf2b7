// What a delivery may show of where it went. An attempt's error and the
// first KiB of the receiver's answer are kept for every member of the
// workspace to read, and logged, while a destination is a secret: Slack,
// Discord and Teams put their token in the URL's path, many webhooks in its
// query, Telegram's bot token is in the path, and a receiver's answer may
// echo any of it ("Cannot POST /services/T0/B0/xyz"). Every delivery's text
// passes through here: outbound.send for the URLs it requested, deliver()
// (destinations/index.ts) for the rest of the destination's secrets.

// A URL in free text: scheme, optional user:password@, the authority (host
// and port), then everything up to a space or a quote. Quotes and backslashes
// end it so that a URL inside a JSON string never eats the string's end.
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/?#"'<>\\@]*@)?([^\s/?#"'<>\\@]*)[^\s"'<>\\]*/gi
// A path segment or query value this long is likely a token (Slack's is 24
// characters, Discord's 68, a Telegram bot's 46); shorter ones are words.
const TOKEN_MIN = 16
// Other secrets (a bot token, a password) are cut out from this length on:
// shorter ones would cut ordinary words out of the text.
const SECRET_MIN = 6

/**
 * `text` with every URL cut to its origin (`http://host:port`: no user, path
 * or query), and with the path, query and token-like parts of `urls`, and
 * each of `secrets`, cut out wherever they still appear.
 */
export function redact(text: string, urls: readonly string[] = [], secrets: readonly string[] = []): string {
  if (text === '') return text
  // Most texts (an "ok", an error about a host) hold no URL and none of the
  // pieces: they are answered without building a pattern. This runs for
  // every delivery.
  const origins = text.includes('://') ? text.replace(URL_IN_TEXT, (_all, scheme: string, authority: string) => scheme + authority) : text
  const pieces = [...new Set([...urls.flatMap(piecesOf), ...secrets.filter((s) => typeof s === 'string' && s.length >= SECRET_MIN)])]
    .filter((p) => origins.includes(p))
    .sort((a, b) => b.length - a.length)
  if (pieces.length === 0) return origins
  // A path is not looked for right after a slash: "/1" would otherwise cut
  // the "//1" of "http://127.0.0.1".
  const any = new RegExp(pieces.map((p) => (p.startsWith('/') ? '(?<!/)' : '') + p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g')
  return origins.replace(any, '…')
}

// A destination's URL is redacted in every answer it gives: its pieces are worked out once.
const PIECES_CACHED = 1000
const piecesByUrl = new Map<string, string[]>()
function piecesOf(href: string): string[] {
  let pieces = piecesByUrl.get(href)
  if (!pieces) {
    pieces = secretPieces([href])
    if (piecesByUrl.size >= PIECES_CACHED) piecesByUrl.delete(piecesByUrl.keys().next().value!)
    piecesByUrl.set(href, pieces)
  }
  return pieces
}

/** The parts of these URLs that may carry a secret, each raw and decoded. */
function secretPieces(urls: readonly string[]): string[] {
  const pieces = new Set<string>()
  const add = (s: string, min = 2) => {
    if (s.length < min) return
    pieces.add(s)
    try {
      pieces.add(decodeURIComponent(s))
    } catch {}
  }
  for (const href of urls) {
    let url: URL
    try {
      url = new URL(href)
    } catch {
      continue
    }
    add(url.pathname + url.search)
    add(url.pathname)
    add(url.search)
    add(url.password, 8)
    for (const segment of url.pathname.split('/')) add(segment, TOKEN_MIN)
    for (const value of url.searchParams.values()) add(value, TOKEN_MIN)
  }
  return [...pieces].filter((p) => p.length >= 2 && p !== '/')
}
