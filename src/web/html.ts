// The dashboard's only way to make markup: a tagged template that escapes
// every interpolated value unless it is itself the result of `html`. Event
// data is untrusted (anyone with an API key writes it), so safety comes from
// construction, not from remembering to escape.

export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' }
export const escapeText = (s: string) => s.replace(/[&<>"'`]/g, (c) => ENTITIES[c]!)

function piece(value: unknown): string {
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(piece).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeText(String(value))
}

/** `html\`<p>${untrusted}</p>\``: strings, numbers and nested `html` results; arrays are joined; null, undefined and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]!
  return new Html(out)
}

/** Replaces an element's content. The only innerHTML assignment in the dashboard. */
export function render(target: Element, content: Html) {
  target.innerHTML = content.text
}

/** Inserts markup at a position of an element (for the live feed). */
export function insert(target: Element, where: InsertPosition, content: Html) {
  target.insertAdjacentHTML(where, content.text)
}

/** A link's href when it is safe to follow (http, https, mailto, tel), otherwise null. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null
  return /^(https?:\/\/|mailto:|tel:)/i.test(url.trim()) ? url.trim() : null
}

/** An event's `link` when it is a web address (http or https) to open in a new tab, otherwise null. */
export function httpHref(url: string | null | undefined): string | null {
  if (!url) return null
  const href = url.trim()
  if (!/^https?:\/\//i.test(href)) return null
  try {
    return new URL(href).href
  } catch {
    return null
  }
}

/** Path segments of internal links, escaped for a URL. */
export const path = (...segments: string[]) => '/' + segments.map(encodeURIComponent).join('/')
