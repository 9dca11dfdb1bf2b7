// The catalogue of every problem Herald answers with, and the one function
// that turns a problem into an RFC 9457 application/problem+json response.

/** Every problem type is this URI and a code of the catalogue. */
export const PROBLEM_BASE = 'https://herald.dev/problems/'

export const problems = {
  unauthorized: { status: 401, title: 'Unauthorized' },
  'invalid-credentials': { status: 401, title: 'Invalid Credentials' },
  forbidden: { status: 403, title: 'Forbidden' },
  'csrf-failed': { status: 403, title: 'CSRF Check Failed' },
  'signin-throttled': { status: 429, title: 'Too Many Sign-in Attempts' },
  'mail-throttled': { status: 429, title: 'Too Many E-mails' },
  'too-many-streams': { status: 429, title: 'Too Many Live Streams' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'invalid-content-type': { status: 400, title: 'Invalid Content-Type' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  'bad-request': { status: 400, title: 'Bad Request' },
  'validation-failed': { status: 400, title: 'Validation Failed' },
  'rate-limited': { status: 429, title: 'Rate Limit Exceeded' },
  'quota-exceeded': { status: 429, title: 'Monthly Quota Exceeded' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency Key Reused' },
  'not-found': { status: 404, title: 'Not Found' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'limit-reached': { status: 409, title: 'Limit Reached' },
  'channel-limit': { status: 422, title: 'Channel Limit Reached' },
  'receipt-limit': { status: 429, title: 'Too Many Pending Receipts' },
  'schedule-limit': { status: 429, title: 'Too Many Scheduled Events' },
  'event-sent': { status: 409, title: 'Event Already Sent' },
  unavailable: { status: 503, title: 'Service Unavailable' },
  internal: { status: 500, title: 'Internal Server Error' },
} as const

export type ProblemCode = keyof typeof problems
/** One thing wrong: a JSON pointer into the body, or the name of a path or query parameter. */
export interface FieldError {
  pointer?: string
  parameter?: string
  detail: string
}

/** The one error class of Herald; `code` names its entry in the catalogue. */
export class HeraldError extends Error {
  readonly status: number
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail)
    this.status = problems[code].status
  }
}

export const problemType = (code: ProblemCode) => PROBLEM_BASE + code

export function problemBody(err: HeraldError) {
  const { title } = problems[err.code]
  const body: Record<string, unknown> = { type: problemType(err.code), title, status: err.status, detail: err.detail }
  if (err.errors?.length) body.errors = err.errors
  return body
}

export function problemResponse(err: HeraldError, extraHeaders?: Record<string, string>): Response {
  return new Response(JSON.stringify(problemBody(err)), {
    status: err.status,
    headers: { 'content-type': 'application/problem+json', ...err.headers, ...extraHeaders },
  })
}

export const validationError = (errors: FieldError[]) =>
  new HeraldError('validation-failed', errors.map((e) => e.detail).join('; '), errors)
