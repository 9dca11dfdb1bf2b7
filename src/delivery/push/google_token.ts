// The OAuth2 access token of a Google service account, as Google documents it
// for server-to-server calls (RFC 7523, the JWT bearer grant): an assertion
// signed RS256 with the account's private key ({iss: the account's e-mail,
// scope, aud: the token endpoint, iat, exp: iat + 1 h}) is posted to the
// token endpoint, which answers {access_token, expires_in}.
//
// This replaces google-auth-library (23 packages, and a token URL hard-coded
// in it that only an interceptor could move): the token endpoint is simply
// the one configured (GOOGLE_OAUTH_TOKEN_URL), which lets a local server stand
// in for Google.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto'

export interface ServiceAccountKey {
  client_email: string
  private_key: string
  private_key_id?: string
}

export interface AccessToken {
  token: string
  expiresAt: number // ms since the epoch
}

/** A token request that failed: `status` is the endpoint's HTTP status, when it answered. */
export class TokenError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message)
  }
}

// A token this close to its expiry is replaced before it is used (Google's
// tokens live an hour; a push in flight must not carry one that lapses).
const REFRESH_MARGIN_MS = 5 * 60_000
// Google accepts an assertion of at most an hour.
const ASSERTION_LIFETIME_S = 3600

export interface AccessTokensOptions {
  account: ServiceAccountKey
  tokenUrl: string
  scope: string
  timeoutMs: number
}

/** One account's access token, cached until shortly before it expires; concurrent callers share one request. */
export class AccessTokens {
  private current: AccessToken | undefined
  private pending: Promise<AccessToken> | undefined
  private key: KeyObject | undefined

  constructor(private readonly opts: AccessTokensOptions) {}

  /**
   * A token valid for at least a few more minutes. `ca`: the certificate
   * authorities to trust for an https token endpoint instead of the
   * runtime's (OutboundOptions.ca), for a request this makes.
   */
  get(ca?: string[]): Promise<AccessToken> {
    if (this.current && this.current.expiresAt - Date.now() > REFRESH_MARGIN_MS) return Promise.resolve(this.current)
    this.pending ??= this.request(ca).finally(() => (this.pending = undefined))
    return this.pending
  }

  /** Forgets the cached token if it is still `used` (the API refused it), so the next get() asks for a new one. */
  expire(used: string): void {
    if (this.current?.token === used) this.current = undefined
  }

  /** The token cached now, if any (for handing on to the pool's threads). */
  peek(): AccessToken | undefined {
    return this.current
  }

  private assertion(): string {
    const { account, tokenUrl, scope } = this.opts
    this.key ??= createPrivateKey(account.private_key)
    const iat = Math.floor(Date.now() / 1000)
    const header = { alg: 'RS256', typ: 'JWT', ...(account.private_key_id ? { kid: account.private_key_id } : {}) }
    const claims = { iss: account.client_email, scope, aud: tokenUrl, iat, exp: iat + ASSERTION_LIFETIME_S }
    const unsigned = `${b64url(header)}.${b64url(claims)}`
    return `${unsigned}.${sign('sha256', Buffer.from(unsigned), this.key).toString('base64url')}`
  }

  private async request(given: string[] | undefined): Promise<AccessToken> {
    const { tokenUrl, timeoutMs } = this.opts
    const ca = tokenUrl.startsWith('https:') ? given : undefined
    let res: Response
    let text: string
    try {
      res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: this.assertion() }),
        signal: AbortSignal.timeout(timeoutMs),
        ...(ca ? { tls: { ca } } : {}),
      })
      text = await res.text()
    } catch (err) {
      const e = err as Error
      throw new TokenError(e.name === 'TimeoutError' ? `the token endpoint did not answer within ${timeoutMs} ms` : `network error talking to ${tokenUrl}: ${e.message}`)
    }
    const body = parseJson(text)
    if (!res.ok) {
      // OAuth2 errors (RFC 6749 §5.2): {error, error_description}.
      const why = typeof body?.error === 'string' ? (typeof body.error_description === 'string' ? `${body.error}: ${body.error_description}` : body.error) : `HTTP ${res.status}`
      throw new TokenError(why, res.status)
    }
    if (typeof body?.access_token !== 'string' || !body.access_token) throw new TokenError('the token endpoint returned no access_token')
    const lifetimeS = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : ASSERTION_LIFETIME_S
    this.current = { token: body.access_token, expiresAt: Date.now() + lifetimeS * 1000 }
    return this.current
  }
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' ? v : undefined
  } catch {
    return undefined
  }
}
