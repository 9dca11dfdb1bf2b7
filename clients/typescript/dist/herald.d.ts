import { HeraldError } from './errors.js';
import { type RetryPolicy } from './retry.js';
import type { Accepted, Cancelled, HeraldEvent, Preferences, PreferencesInput, Queued, Receipt, ScheduledEvent, ScheduledPage, Stats } from './types.js';
export interface HeraldOptions {
    /** A workspace API key (`hrld_…`): sending events, receipts. Required unless `userToken` is given. */
    apiKey?: string;
    /** A member's user token (`hrlu_…`, from signing in with client "app"): their own calls, such as getPreferences and setPreferences. */
    userToken?: string;
    /** Herald's base URL, such as https://herald.example.com. */
    url: string;
    /** Per request; a try that runs past it is retried like a lost connection. Default 10,000. */
    timeoutMs?: number;
    /** Tries, backoff and jitter; see DEFAULT_RETRY. */
    retry?: Partial<RetryPolicy>;
    /** `enqueue`: the longest an event waits for a batch to fill. Default 250. */
    flushIntervalMs?: number;
    /** `enqueue`: events per POST /events, 1 to 1,000. Default 500. */
    maxBatch?: number;
    /** `enqueue`: events pending (queued or in flight) at most. Default 10,000. */
    maxQueue?: number;
    /** `enqueue` on a full queue: wait for room (default), or reject with HeraldQueueFullError. */
    whenFull?: 'wait' | 'reject';
    /** An enqueued event given up: Herald refused it, or the retries ran out. Always called with the event. */
    onError?: (err: HeraldError, event?: HeraldEvent) => void;
    /** A request failed and will be tried again after `delayMs` (`events`: 1 for `send`, the batch's size for `enqueue`). */
    onRetry?: (err: HeraldError, retry: {
        attempt: number;
        delayMs: number;
        events: number;
    }) => void;
    /** The fetch to use; the global one by default. */
    fetch?: Fetch;
}
/** What the client needs of fetch (a narrower type than a runtime's, which may add its own members). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;
export declare class Herald {
    readonly url: string;
    private readonly apiKey;
    private readonly userToken;
    private readonly timeoutMs;
    private readonly retry;
    private readonly fetch;
    private readonly onRetry;
    private readonly counters;
    private readonly queue;
    private warnedOfRateLimit;
    constructor(options: HeraldOptions);
    /** The first time the rate limit holds events back, a warning (console.warn) says so. */
    private rateLimited;
    /** sent, failed, retried, dropped and rate-limited events so far (a copy); the README defines each. */
    get stats(): Stats;
    /**
     * Sends one event (POST /event) and returns Herald's answer, or throws the
     * HeraldError of the last try. Every try carries the same Idempotency-Key
     * (a fresh UUID unless given), so Herald stores the event once. With
     * `deliverAt` (a Date or RFC 3339) or `delay` (seconds or `30m`) it goes out
     * then, and the answer carries `scheduledFor`; `cancel(eventId)` stops it.
     */
    send(event: HeraldEvent, options?: {
        idempotencyKey?: string;
    }): Promise<Accepted>;
    /**
     * The receipt of an event sent with `ack` (GET /receipts/{receipt}): pending,
     * acknowledged (by whom, how, when), expired or cancelled. Throws a
     * HeraldError: 404 for a receipt of another workspace, or none.
     */
    receipt(id: string): Promise<Receipt>;
    /**
     * Cancels a pending receipt (POST /receipts/{receipt}/cancel): its repeats
     * stop. Returns the receipt, now cancelled; a HeraldError of status 409
     * when it is no longer pending (acknowledged, expired or cancelled).
     */
    cancelReceipt(id: string): Promise<Receipt>;
    /**
     * Cancels a scheduled event (`deliverAt` / `delay`) that has not gone out
     * (DELETE /events/{eventId}): it is never shown, pushed or routed. Returns
     * `{eventId, status: 'cancelled', scheduledFor}`, again on a repeat. Throws a
     * HeraldError: status 409 and kind `event-sent` once it went out (a cancel
     * racing the release ends in exactly one of the two), 404 for no scheduled
     * event of this id in the key's workspace.
     */
    cancel(eventId: string): Promise<Cancelled>;
    /**
     * A page of the workspace's scheduled events that have not gone out, soonest
     * first (GET /events?status=scheduled): `{events, nextCursor}`. Pass
     * `nextCursor` as `cursor` for the next page; `limit` is 1 to 100 (default 50).
     */
    scheduled(query?: {
        cursor?: string | null;
        limit?: number;
    }): Promise<ScheduledPage>;
    /** Every scheduled event, soonest first, fetching page after page of `limit` (default 100) as the loop asks for them. */
    allScheduled(query?: {
        limit?: number;
    }): AsyncGenerator<ScheduledEvent, void, undefined>;
    /** One try of a receipt's read or cancel: nothing to store twice, so no retries (a repeated cancel would answer 409). */
    private receiptCall;
    /** One try of a call with the API key and no body; the caller repeats a read, and a cancel answers the same twice. */
    private keyCall;
    /**
     * Your preferences in a workspace (GET /v1/workspaces/{workspace}/preferences),
     * with the `userToken`: quiet hours, a level per channel (a muted channel
     * is `none`) and the default level.
     */
    getPreferences(workspace: string): Promise<Preferences>;
    /**
     * Replaces your preferences in a workspace (PUT …/preferences) with the
     * `userToken`: a field left out takes its default. Returns them as stored
     * (the time zone as Intl spells it, `except` filled in). A HeraldError of
     * status 400 names each bad field (`errors[].pointer`): an unknown time
     * zone, a time out of range, an unknown channel.
     */
    setPreferences(workspace: string, preferences: PreferencesInput): Promise<Preferences>;
    /** One try of a member's call with the user token; a PUT that replaces a document is safe to repeat, but its caller decides. */
    private memberCall;
    /**
     * Queues an event for the background batches (POST /events). Resolves once
     * it is queued: at once, or when there is room (`whenFull: 'wait'`); rejects
     * with HeraldQueueFullError (`whenFull: 'reject'`) or HeraldClosedError.
     * `result` settles when Herald stored the event or the client gave it up.
     */
    enqueue(event: HeraldEvent, options?: {
        idempotencyKey?: string;
    }): Promise<Queued>;
    /** Sends every queued event now; resolves once each event pending at the call has its outcome. */
    flush(): Promise<void>;
    /** Refuses new events, then sends and settles every pending one. Call it before the process exits. */
    close(): Promise<void>;
    /** One try: Herald's answer, or a HeraldError of status 0 when none came. */
    private post;
    private json;
}
