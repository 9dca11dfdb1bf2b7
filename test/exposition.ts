// Reading Prometheus' text exposition in tests: /metrics of a real server,
// parsed into samples keyed by name and sorted labels.

/** Samples of an exposition, keyed `name{k="v",…}` with the labels sorted. */
export function parseExposition(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort()
    out.set(labels.length ? `${m[1]}{${labels.join(',')}}` : m[1]!, Number(m[3]))
  }
  return out
}

/** The key of a sample: `sample('x_total', { b: '2', a: '1' })` → `x_total{a="1",b="2"}`. */
export const sample = (name: string, labels: Record<string, string> = {}) => {
  const l = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort()
  return l.length ? `${name}{${l.join(',')}}` : name
}

/** GET /metrics of a server (200 expected), parsed. */
export async function scrapeMetrics(url: string, headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const res = await fetch(url + '/metrics', { headers })
  if (res.status !== 200) throw new Error(`GET ${url}/metrics answered ${res.status}: ${await res.text()}`)
  return parseExposition(await res.text())
}
