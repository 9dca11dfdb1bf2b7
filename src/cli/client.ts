// The CLI's client of the operator API. It turns every failure into a
// CliError: a problem+json answer into its `detail` (and each `errors[].detail`),
// a refused connection into a sentence naming the URL. The token is sent in a
// header and never appears in any message.
import { CliError, usageError } from './output'

// An operator call is one small query; 30 s only guards against a hung server.
const REQUEST_TIMEOUT_MS = 30_000

export interface AdminClient {
  baseUrl: string
  request<T>(method: string, path: string, body?: unknown): Promise<T>
}

export interface ClientOptions {
  url?: string
  token?: string
}

type Env = Record<string, string | undefined>

/** `--url`, else HERALD_URL, else the local server on PORT (default 8080, as the server's). */
export function resolveBaseUrl(flag: string | undefined, env: Env): string {
  const raw = flag ?? (env.HERALD_URL || `http://127.0.0.1:${env.PORT || 8080}`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw usageError(`--url must be an http(s) URL, got ${JSON.stringify(raw)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--url must be an http(s) URL, got ${JSON.stringify(raw)}`)
  return url.toString().replace(/\/+$/, '')
}

export function resolveToken(flag: string | undefined, env: Env): string {
  const token = flag ?? env.HERALD_ADMIN_TOKEN
  if (!token) throw usageError('no operator token: set HERALD_ADMIN_TOKEN or pass --token')
  return token
}

interface Problem {
  title?: string
  detail?: string
  errors?: { pointer?: string; detail?: string }[]
}

async function problemOf(res: Response): Promise<CliError> {
  const fallback = `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`
  let body: Problem = {}
  if ((res.headers.get('content-type') ?? '').includes('json')) body = ((await res.json().catch(() => ({}))) ?? {}) as Problem
  const detail = body.detail || body.title || fallback
  const errors = Array.isArray(body.errors) ? body.errors.map((e) => e.detail ?? '').filter(Boolean) : []
  // A single field error usually repeats `detail` word for word; print it once.
  const details = errors.length === 1 && errors[0] === detail ? [] : errors
  return new CliError('api', detail, details)
}

function transportError(baseUrl: string, err: unknown): CliError {
  const e = err as Error
  if (e?.name === 'TimeoutError') return new CliError('unreachable', `Herald at ${baseUrl} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`)
  const reason = (e?.message ?? String(err)).split('. ')[0]
  return new CliError('unreachable', `cannot reach Herald at ${baseUrl} (${reason}): is it running? Give its address with --url or HERALD_URL.`)
}

export function adminClient(opts: ClientOptions, env: Env = process.env): AdminClient {
  const baseUrl = resolveBaseUrl(opts.url, env)
  const token = resolveToken(opts.token, env)
  return {
    baseUrl,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response
      try {
        res = await fetch(baseUrl + path, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        })
      } catch (err) {
        throw transportError(baseUrl, err)
      }
      if (!res.ok) throw await problemOf(res)
      if (res.status === 204) return undefined as T
      try {
        return (await res.json()) as T
      } catch {
        throw new CliError('api', `${baseUrl}${path} did not answer JSON: is ${baseUrl} a Herald server?`)
      }
    },
  }
}
