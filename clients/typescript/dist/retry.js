export const DEFAULT_RETRY = {
    // With full jitter, 8 tries wait about 16 s in all on average (at most 32 s):
    // longer than Herald takes to restart or to fail over to a replica.
    maxAttempts: 8,
    baseDelayMs: 250,
    maxDelayMs: 30_000,
    // Herald's rate-limit 429s ask for a second or two; a minute means something is wrong.
    maxRetryAfterMs: 60_000,
    jitter: 'full',
};
/**
 * Whether trying again can succeed: no answer (but a failed TLS handshake), a 5xx, or a 429 of the rate
 * limit. 400, 401, 413 and 422 are the request's fault, and a used-up
 * monthly quota does not come back within any retry.
 */
export function retryable(err) {
    // A TLS failure (no TLS on that port, a certificate not trusted) does not mend itself.
    if (err.status === 0)
        return err.kind !== 'tls-failed';
    if (err.status >= 500)
        return true;
    return err.status === 429 && err.kind !== 'quota-exceeded';
}
/** The wait before the next try after try number `attempt` failed with `err`, or undefined when it was the last. */
export function retryDelayMs(policy, attempt, err) {
    if (attempt >= policy.maxAttempts || !retryable(err))
        return undefined;
    if (err.retryAfterMs !== undefined)
        return err.retryAfterMs <= policy.maxRetryAfterMs ? err.retryAfterMs : undefined;
    const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return policy.jitter === 'full' ? Math.round(Math.random() * cap) : cap;
}
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
