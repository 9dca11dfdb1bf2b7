import pino from 'pino'

// Never let a secret reach the logs, whatever a caller passes in.
const redact = ['req.headers.authorization', 'authorization', 'apiKey', 'token', 'secret', 'password', '*.apiKey', '*.secret']

export function createLogger(level: string, destination?: pino.DestinationStream) {
  return pino({ level, redact, base: { service: 'herald' } }, destination)
}
export type Logger = pino.Logger

// Link routes carry their secret in the path; a query string may carry
// anything a client put there (an API key, a token).
const TOKEN_IN_PATH = /^(\/v1\/invitations|\/reset|\/invite|\/signup\/confirm)\/[^/]+/

/** A request URL as logs show it: the path only, with the token of a link route masked. */
export function loggedPath(url: string): string {
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    path = url.split(/[?#]/)[0]!
  }
  return path.replace(TOKEN_IN_PATH, '$1/…')
}
