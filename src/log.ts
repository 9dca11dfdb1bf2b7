import pino from 'pino'

// Never let a secret reach the logs, whatever a caller passes in.
const redact = ['req.headers.authorization', 'authorization', 'apiKey', 'token', 'secret', 'password', '*.apiKey', '*.secret']

export function createLogger(level: string, destination?: pino.DestinationStream) {
  return pino({ level, redact, base: { service: 'herald' } }, destination)
}
export type Logger = pino.Logger
