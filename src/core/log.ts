import pino from 'pino'
import pretty from 'pino-pretty'

// Never let a secret reach the logs, whatever a caller passes in.
const redact = ['req.headers.authorization', 'authorization', 'apiKey', 'token', 'secret', 'password', '*.apiKey', '*.secret']

export type LogFormat = 'auto' | 'json' | 'pretty'

/**
 * A pino logger. JSON lines on stdout (or `destination`), for machines; on a
 * terminal (LOG_FORMAT auto) or with LOG_FORMAT pretty, coloured lines for
 * people, written synchronously so the last line before an exit is not lost.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = 'auto') {
  const tty = destination ? false : !!process.stdout.isTTY
  if (format === 'pretty' || (format === 'auto' && tty)) {
    const stream = pretty({ colorize: tty, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', destination: destination ?? 1 })
    return pino({ level, redact, base: { service: 'herald' } }, stream)
  }
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
