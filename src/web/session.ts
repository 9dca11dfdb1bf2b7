// Who is signed in: GET /v1/me, kept for the pages, with the CSRF token
// handed to the API client.
import { api, ApiError, setCsrf, type Me } from './api'

export const session = {
  me: null as Me | null,

  /** Reads /v1/me; a 401 means signed out. Other failures are thrown. */
  async refresh(): Promise<Me | null> {
    try {
      this.me = await api.get('/v1/me')
      setCsrf(this.me.csrf)
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err
      this.clear()
    }
    return this.me
  },

  clear() {
    this.me = null
    setCsrf(undefined)
  },
}

/**
 * Whether the shell saw a session cookie. The cookie is HttpOnly, so the page
 * cannot look; asking /v1/me without one would only log a 401 in the console.
 */
export const mayBeSignedIn = () => document.querySelector('meta[name="herald-session"]')?.getAttribute('content') !== 'none'
