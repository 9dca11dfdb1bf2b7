/** A field a problem points at (`/message`, `/events/3/channel`) and what is wrong with it. */
export interface FieldError {
    pointer: string;
    detail: string;
}
export declare const PROBLEM_BASE = "https://herald.dev/problems/";
interface Problem {
    status: number;
    type?: string;
    title?: string;
    detail?: string;
    errors?: FieldError[];
    retryAfterMs?: number;
}
export declare class HeraldError extends Error {
    readonly name = "HeraldError";
    /** The HTTP status; 0 when Herald did not answer (a network error or the timeout, in `cause`). */
    readonly status: number;
    /** The problem type, such as https://herald.dev/problems/validation-failed; about:blank when the answer had none. */
    readonly type: string;
    readonly title: string;
    readonly detail: string;
    /** The fields at fault, by JSON pointer into the request body; empty when none were named. */
    readonly errors: FieldError[];
    /** What Retry-After asked for (429, 503), in milliseconds. */
    readonly retryAfterMs: number | undefined;
    constructor(problem: Problem, options?: {
        cause?: unknown;
    });
    /** The problem type without its base: `validation-failed`, `quota-exceeded`, `rate-limited`. */
    get kind(): string;
}
/** Retry-After in ms (delta-seconds or an HTTP date), or undefined. */
export declare function retryAfterMs(headers: Headers): number | undefined;
/** A problem object (a whole answer's, or one item's of a batch) as a HeraldError. */
export declare function problemError(body: Record<string, unknown>, status: number, retryAfter?: number): HeraldError;
/** A refusal or failure answer as a HeraldError; an answer that is not a problem is named by its status line. */
export declare function answerError(res: Response): Promise<HeraldError>;
/**
 * Why no answer came, as the `kind` of a status-0 HeraldError, so that a
 * caller can branch on it: `connection-refused` (nothing listens there: not
 * started, or the wrong port), `dns-failed` (the host name does not
 * resolve), `tls-failed` (no TLS there, or a certificate not trusted: not
 * retried), `timeout`, `connection-reset`, else `network-error`.
 */
export type NetworkKind = 'connection-refused' | 'dns-failed' | 'tls-failed' | 'timeout' | 'connection-reset' | 'network-error';
/** No answer: the request failed on the way, or ran past `timeoutMs`; its kind says why (see NetworkKind). */
export declare function transportError(url: string, cause: unknown, timeoutMs: number): HeraldError;
/** `enqueue` with `whenFull: 'reject'` while `maxQueue` events are pending. */
export declare class HeraldQueueFullError extends Error {
    readonly maxQueue: number;
    readonly name = "HeraldQueueFullError";
    constructor(maxQueue: number);
}
/** `enqueue` or `send` after `close()`. */
export declare class HeraldClosedError extends Error {
    readonly name = "HeraldClosedError";
    constructor();
}
export {};
