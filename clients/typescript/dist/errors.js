export const PROBLEM_BASE = 'https://herald.dev/problems/';
export class HeraldError extends Error {
    name = 'HeraldError';
    /** The HTTP status; 0 when Herald did not answer (a network error or the timeout, in `cause`). */
    status;
    /** The problem type, such as https://herald.dev/problems/validation-failed; about:blank when the answer had none. */
    type;
    title;
    detail;
    /** The fields at fault, by JSON pointer into the request body; empty when none were named. */
    errors;
    /** What Retry-After asked for (429, 503), in milliseconds. */
    retryAfterMs;
    constructor(problem, options) {
        const title = problem.title ?? `HTTP ${problem.status}`;
        const detail = problem.detail ?? title;
        super(detail, options);
        this.status = problem.status;
        this.type = problem.type ?? 'about:blank';
        this.title = title;
        this.detail = detail;
        this.errors = problem.errors ?? [];
        this.retryAfterMs = problem.retryAfterMs;
    }
    /** The problem type without its base: `validation-failed`, `quota-exceeded`, `rate-limited`. */
    get kind() {
        return this.type.startsWith(PROBLEM_BASE) ? this.type.slice(PROBLEM_BASE.length) : this.type;
    }
}
/** Retry-After in ms (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(headers) {
    const raw = headers.get('retry-after')?.trim();
    if (!raw)
        return undefined;
    if (/^\d+$/.test(raw))
        return Number(raw) * 1000;
    const at = Date.parse(raw);
    return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
const fieldErrors = (raw) => Array.isArray(raw) ? raw.map((e) => ({ pointer: String(e?.pointer ?? ''), detail: String(e?.detail ?? '') })) : undefined;
/** A problem object (a whole answer's, or one item's of a batch) as a HeraldError. */
export function problemError(body, status, retryAfter) {
    const text = (v) => (typeof v === 'string' && v !== '' ? v : undefined);
    return new HeraldError({
        status: typeof body.status === 'number' ? body.status : status,
        type: text(body.type),
        title: text(body.title),
        detail: text(body.detail) ?? text(body.title),
        errors: fieldErrors(body.errors),
        retryAfterMs: retryAfter,
    });
}
/** A refusal or failure answer as a HeraldError; an answer that is not a problem is named by its status line. */
export async function answerError(res) {
    const line = `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`;
    let body = {};
    if ((res.headers.get('content-type') ?? '').includes('json')) {
        const parsed = await res.json().catch(() => undefined);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
            body = parsed;
    }
    else {
        await res.body?.cancel().catch(() => { });
    }
    const text = (v) => (typeof v === 'string' && v !== '' ? v : undefined);
    const title = text(body.title) ?? line;
    return problemError({ ...body, title, detail: text(body.detail) ?? title, status: res.status }, res.status, retryAfterMs(res.headers));
}
const NETWORK = [
    { kind: 'connection-refused', title: 'Connection Refused', match: /ECONNREFUSED|ConnectionRefused|connection refused/i, words: 'the connection was refused: is Herald running, on that port?' },
    { kind: 'dns-failed', title: 'Host Not Found', match: /ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|DNS/i, words: 'its host name does not resolve: check the URL' },
    { kind: 'tls-failed', title: 'TLS Failed', match: /EPROTO|CERT|TLS|SSL|self.signed|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/i, words: 'the TLS handshake failed: is it https on that port, and is its certificate trusted (NODE_EXTRA_CA_CERTS)?' },
    { kind: 'connection-reset', title: 'Connection Reset', match: /ECONNRESET|EPIPE|socket hang up|ConnectionClosed|other side closed/i, words: 'the connection was closed before an answer came' },
];
/** What the runtime said, with its code: Bun puts it on the error, Node's fetch on its cause. */
function causeText(cause) {
    const e = cause;
    const code = [e?.code, e?.cause?.code].find((c) => typeof c === 'string' && c !== '');
    return { code, text: [code, e?.message, e?.cause?.code, e?.cause?.message].filter((x) => typeof x === 'string').join(' ') };
}
/** No answer: the request failed on the way, or ran past `timeoutMs`; its kind says why (see NetworkKind). */
export function transportError(url, cause, timeoutMs) {
    if (cause?.name === 'TimeoutError') {
        return new HeraldError({ status: 0, type: PROBLEM_BASE + 'timeout', title: 'Timeout', detail: `Herald at ${url} did not answer within ${timeoutMs / 1000} s` }, { cause });
    }
    const { code, text } = causeText(cause);
    const known = NETWORK.find((n) => n.match.test(text));
    const why = known ? known.words : cause?.message ?? String(cause);
    return new HeraldError({ status: 0, type: PROBLEM_BASE + (known?.kind ?? 'network-error'), title: known?.title ?? 'Network Error', detail: `cannot reach Herald at ${url}${code ? ` (${code})` : ''}: ${why}` }, { cause });
}
/** `enqueue` with `whenFull: 'reject'` while `maxQueue` events are pending. */
export class HeraldQueueFullError extends Error {
    maxQueue;
    name = 'HeraldQueueFullError';
    constructor(maxQueue) {
        super(`the Herald client's queue is full (${maxQueue} events waiting to be sent): the event was not queued`);
        this.maxQueue = maxQueue;
    }
}
/** `enqueue` or `send` after `close()`. */
export class HeraldClosedError extends Error {
    name = 'HeraldClosedError';
    constructor() {
        super('the Herald client is closed: the event was not sent');
    }
}
