import type { HeraldError } from './errors.js';
export interface RetryPolicy {
    /** Tries in all, the first included. */
    maxAttempts: number;
    /** The backoff's first cap; it doubles with each try, up to maxDelayMs. */
    baseDelayMs: number;
    maxDelayMs: number;
    /** A Retry-After longer than this is a verdict, not a pause (a quota's says "next month"). */
    maxRetryAfterMs: number;
    /** 'full': a random wait between 0 and the cap, so that clients a restart failed together do not come back together. */
    jitter: 'full' | 'none';
}
export declare const DEFAULT_RETRY: RetryPolicy;
/**
 * Whether trying again can succeed: no answer (but a failed TLS handshake), a 5xx, or a 429 of the rate
 * limit. 400, 401, 413 and 422 are the request's fault, and a used-up
 * monthly quota does not come back within any retry.
 */
export declare function retryable(err: HeraldError): boolean;
/** The wait before the next try after try number `attempt` failed with `err`, or undefined when it was the last. */
export declare function retryDelayMs(policy: RetryPolicy, attempt: number, err: HeraldError): number | undefined;
export declare const sleep: (ms: number) => Promise<void>;
