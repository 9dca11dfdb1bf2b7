// The CLI's client of the operator API. It turns every failure into a
// CliError: a problem+json answer into its `detail` (and each `errors[].detail`),
// word for word, a refused connection into a sentence naming the URL. The
// token is sent in a header and never appears in any message.
import { adminTokenPath, readLocalAdminToken } from '../core/admin_token'
import { readConfigFile } from '../core/config'
import { CliError, usageError, type CliErrorCode } from './output'
import { Herald } from '../../clients/typescript/src/index'

// An operator call is one small query; 30 s only guards against a hung server.
export const REQUEST_TIMEOUT_MS = 30_000

/** The flags of a command that acts with a workspace's API key (herald scheduled, herald receipt show|cancel). */
export interface KeyOptions {
  key?: string
  url?: string
  json?: boolean
}

export interface AdminClient {
  baseUrl: string
  request<T>(method: string, path: string, body?: unknown): Promise<T>
}

export interface ClientOptions {
  url?: string
  token?: string
}

type Env = Record<string, string | undefined>

/**
 * The settings as the server on this machine reads them: herald.toml (or
 * HERALD_CONFIG) under the environment, so that PORT, HERALD_DATA_DIR and
 * HERALD_ADMIN_TOKEN set in the file lead the CLI to the same server.
 */
export const localSettings = (env: Env): Env => ({ ...readConfigFile(env)?.values, ...env })

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

/**
 * `--token`, else HERALD_ADMIN_TOKEN, else the token file a Herald on the
 * embedded default wrote in its data directory (HERALD_DATA_DIR, default
 * ./.herald), when this user can read it.
 */
export function resolveToken(flag: string | undefined, env: Env): string {
  const dataDir = env.HERALD_DATA_DIR || './.herald'
  const token = flag || env.HERALD_ADMIN_TOKEN || readLocalAdminToken(dataDir)
  if (!token) {
    throw usageError(`no operator token: set HERALD_ADMIN_TOKEN or pass --token (a Herald started on the embedded default keeps one in ${adminTokenPath(dataDir)})`)
  }
  return token
}

/** A workspace's API key: `--key`, else HERALD_KEY (better: a flag shows up in ps). */
export function resolveApiKey(flag: string | undefined, env: Env): string {
  const key = flag || env.HERALD_KEY
  if (!key) throw usageError('no API key: set HERALD_KEY or pass --key (prefer the variable: a flag shows up in ps)')
  return key
}

interface Problem {
  title?: string
  detail?: string
  errors?: { pointer?: string; detail?: string }[]
}

/** A refusal as a CliError of `code`: the problem's detail, and each field error that says more. */
export async function problemOf(res: Response, code: CliErrorCode = 'api'): Promise<CliError> {
  const fallback = `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`
  let body: Problem = {}
  if ((res.headers.get('content-type') ?? '').includes('json')) body = ((await res.json().catch(() => ({}))) ?? {}) as Problem
  const detail = body.detail || body.title || fallback
  const errors = Array.isArray(body.errors) ? body.errors.map((e) => e.detail ?? '').filter(Boolean) : []
  // A single field error usually repeats `detail` word for word; print it once.
  const details = errors.length === 1 && errors[0] === detail ? [] : errors
  return new CliError(code, detail, details)
}

export function transportError(baseUrl: string, err: unknown, timeoutMs = REQUEST_TIMEOUT_MS): CliError {
  const e = err as Error
  if (e?.name === 'TimeoutError') return new CliError('unreachable', `Herald at ${baseUrl} did not answer within ${timeoutMs / 1000} s`)
  const reason = (e?.message ?? String(err)).split('. ')[0]
  return new CliError('unreachable', `cannot reach Herald at ${baseUrl} (${reason}): is it running? Give its address with --url or HERALD_URL.`)
}

/** A bad --url is refused at once; the token is looked for at the first request, after the command checked its own arguments. */
export function adminClient(opts: ClientOptions, processEnv: Env = process.env): AdminClient {
  const env = localSettings(processEnv)
  const baseUrl = resolveBaseUrl(opts.url, env)
  let token: string | undefined
  return {
    baseUrl,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      token ??= resolveToken(opts.token, env)
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

/** The TypeScript client with the API key of --key or HERALD_KEY, at the URL of --url or the settings, and that URL for errors. */
export function keyClient(opts: KeyOptions, env: Env): { herald: Herald; baseUrl: string } {
  const baseUrl = resolveBaseUrl(opts.url, localSettings(env))
  return { herald: new Herald({ apiKey: resolveApiKey(opts.key, env), url: baseUrl, timeoutMs: REQUEST_TIMEOUT_MS }), baseUrl }
}
