import { HeraldError } from './errors.js';
import { type RetryPolicy } from './retry.js';
import type { HeraldEvent, Queued, Stats } from './types.js';
/** POST /events takes at most 4 MiB per request (docs/events.md#limits). */
export declare const MAX_BATCH_BYTES = 4194304;
/** …and at most 1,000 events. */
export declare const MAX_BATCH_EVENTS = 1000;
export interface QueueContext {
    post(path: string, body: string, headers: Record<string, string>): Promise<Response>;
    retry: RetryPolicy;
    maxBatch: number;
    maxQueue: number;
    flushIntervalMs: number;
    whenFull: 'wait' | 'reject';
    stats: Stats;
    onError?: (err: HeraldError, event?: HeraldEvent) => void;
    onRetry?: (err: HeraldError, retry: {
        attempt: number;
        delayMs: number;
        events: number;
    }) => void;
    /** Says once per client that the rate limit, not the network, paces the events. */
    rateLimited(limit?: number): void;
    newKey(): string;
}
/**
 * The warning a client gives the first time the workspace's rate limit holds
 * its events back (from `send` or the batches): the events are not lost,
 * they are paced, and the setting that paces them is the operator's.
 * `limit` is RateLimit-Limit: the bucket's size (the burst), not the rate.
 */
export declare function rateLimitWarning(limit?: number): string;
export declare class BatchQueue {
    private readonly ctx;
    private readonly queue;
    /** Queued or in flight: every event whose outcome is not known yet. */
    private readonly pending;
    private readonly waiters;
    private timer;
    private running;
    /** Send whatever is queued, full batch or not (the timer fired, or flush()). */
    private due;
    /** Not before this time (ms since the epoch): the rate limit asked for a pause. */
    private resumeAt;
    closed: boolean;
    constructor(ctx: QueueContext);
    enqueue(event: HeraldEvent, idempotencyKey?: string): Promise<Queued>;
    /** Sends everything queued now, full batch or not; resolves once every event pending at the call has its outcome. */
    flush(): Promise<void>;
    /** Refuses new events, then drains the queue and the enqueues waiting for room. */
    close(): Promise<void>;
    private item;
    private admit;
    private settle;
    /** Starts a run of batches when one is due, else makes sure the timer will start one. */
    private wake;
    private run;
    /** The next batch: up to maxBatch events and 4 MiB, at least one event (alone, one over 4 MiB gets its 413). */
    private take;
    /** Sends one batch until Herald answers it; every event of it is settled or held back after. */
    private deliver;
    /** A 200: each result settles its event, in request order; those the rate limit held back go again. */
    private results;
    /**
     * Back to the front of the queue, in order, with their keys, after a pause
     * for the bucket to refill. Said to onRetry (attempt 0: no try is used up)
     * and counted in stats.rateLimited; the first time, a warning says that the
     * workspace's rate limit, not the network, is what paces the events.
     */
    private holdBack;
    private fail;
    /** A hook that throws must not stop the queue. */
    private hook;
}
