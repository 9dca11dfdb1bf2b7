// The client: `send` for one event and its answer, `enqueue` for background
// batches (src/queue.ts). Only `fetch`, `AbortSignal.timeout` and
// `crypto.randomUUID`: it runs on Node >= 18, Bun, Deno, Workers and browsers.
import { answerError, HeraldClosedError, HeraldError, transportError } from './errors.js';
import { BatchQueue, MAX_BATCH_EVENTS, rateLimitWarning } from './queue.js';
import { DEFAULT_RETRY, retryDelayMs, sleep } from './retry.js';
// One event commits within a second, a batch of 1,000 within a few: 10 s
// means the server is stuck, and the retry (same key) is safe.
const DEFAULT_TIMEOUT_MS = 10_000;
// A quarter second adds little latency to a notification and fills batches under load.
const DEFAULT_FLUSH_INTERVAL_MS = 250;
// Half of POST /events' limit: a batch commits quickly and a retry resends little.
const DEFAULT_MAX_BATCH = 500;
// 10,000 events of 1 KiB are 10 MB: enough to ride out a restart, small for any process.
const DEFAULT_MAX_QUEUE = 10_000;
/** crypto.randomUUID is global on Node >= 19, Bun, Deno, Workers and browsers; Node 18 gets a Math.random v4. */
function newKey() {
    const c = globalThis.crypto;
    if (c?.randomUUID)
        return c.randomUUID();
    const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
    hex[12] = '4';
    hex[16] = ((parseInt(hex[16], 16) & 3) | 8).toString(16);
    return hex.join('').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}
const whole = (name, value, min, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isInteger(value) || value < min || value > max)
        throw new RangeError(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
    return value;
};
export class Herald {
    url;
    apiKey;
    userToken;
    timeoutMs;
    retry;
    fetch;
    onRetry;
    counters = { sent: 0, failed: 0, retried: 0, dropped: 0, rateLimited: 0 };
    queue;
    warnedOfRateLimit = false;
    constructor(options) {
        if (!options?.apiKey && !options?.userToken)
            throw new TypeError('Herald needs an apiKey (or, for a member\'s own calls, a userToken)');
        let url;
        try {
            url = new URL(options.url);
        }
        catch {
            throw new TypeError(`Herald's url must be an http(s) URL, got ${JSON.stringify(options.url)}`);
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
            throw new TypeError(`Herald's url must be an http(s) URL, got ${JSON.stringify(options.url)}`);
        this.url = url.toString().replace(/\/+$/, '');
        this.apiKey = options.apiKey ?? '';
        this.userToken = options.userToken;
        this.timeoutMs = whole('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
        this.retry = { ...DEFAULT_RETRY, ...options.retry };
        whole('retry.maxAttempts', this.retry.maxAttempts, 1);
        // Bound late: a Worker's or a browser's fetch must be called on globalThis.
        this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
        this.onRetry = options.onRetry;
        this.queue = new BatchQueue({
            post: (path, body, headers) => this.post(path, body, headers),
            retry: this.retry,
            maxBatch: whole('maxBatch', options.maxBatch ?? DEFAULT_MAX_BATCH, 1, MAX_BATCH_EVENTS),
            maxQueue: whole('maxQueue', options.maxQueue ?? DEFAULT_MAX_QUEUE, 1),
            flushIntervalMs: whole('flushIntervalMs', options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS, 0),
            whenFull: options.whenFull ?? 'wait',
            stats: this.counters,
            onError: options.onError,
            onRetry: options.onRetry,
            rateLimited: (limit) => this.rateLimited(limit),
            newKey,
        });
    }
    /** The first time the rate limit holds events back, a warning (console.warn) says so. */
    rateLimited(limit) {
        if (this.warnedOfRateLimit)
            return;
        this.warnedOfRateLimit = true;
        console.warn(rateLimitWarning(limit));
    }
    /** sent, failed, retried, dropped and rate-limited events so far (a copy); the README defines each. */
    get stats() {
        return { ...this.counters };
    }
    /**
     * Sends one event (POST /event) and returns Herald's answer, or throws the
     * HeraldError of the last try. Every try carries the same Idempotency-Key
     * (a fresh UUID unless given), so Herald stores the event once. With
     * `deliverAt` (a Date or RFC 3339) or `delay` (seconds or `30m`) it goes out
     * then, and the answer carries `scheduledFor`; `cancel(eventId)` stops it.
     */
    async send(event, options = {}) {
        let body;
        try {
            if (this.queue.closed)
                throw new HeraldClosedError();
            body = JSON.stringify(event); // throws on a BigInt or a cycle
        }
        catch (err) {
            this.counters.dropped++;
            throw err;
        }
        const headers = { 'idempotency-key': options.idempotencyKey ?? newKey() };
        for (let attempt = 1;; attempt++) {
            let err;
            try {
                const res = await this.post('/event', body, headers);
                if (res.ok) {
                    const accepted = await this.json(res, '/event');
                    this.counters.sent++;
                    return accepted;
                }
                err = await answerError(res);
            }
            catch (e) {
                if (!(e instanceof HeraldError))
                    throw e;
                err = e;
            }
            const delayMs = retryDelayMs(this.retry, attempt, err);
            if (delayMs === undefined) {
                this.counters.failed++;
                throw err;
            }
            this.counters.retried++;
            const limited = err.status === 429 && err.kind === 'rate-limited';
            if (limited)
                this.counters.rateLimited++;
            try {
                this.onRetry?.(err, { attempt, delayMs, events: 1 });
                if (limited)
                    this.rateLimited();
            }
            catch { } // a hook that throws does not stop the retries
            await sleep(delayMs);
        }
    }
    /**
     * The receipt of an event sent with `ack` (GET /receipts/{receipt}): pending,
     * acknowledged (by whom, how, when), expired or cancelled. Throws a
     * HeraldError: 404 for a receipt of another workspace, or none.
     */
    async receipt(id) {
        return this.receiptCall('GET', `/receipts/${encodeURIComponent(id)}`);
    }
    /**
     * Cancels a pending receipt (POST /receipts/{receipt}/cancel): its repeats
     * stop. Returns the receipt, now cancelled; a HeraldError of status 409
     * when it is no longer pending (acknowledged, expired or cancelled).
     */
    async cancelReceipt(id) {
        return this.receiptCall('POST', `/receipts/${encodeURIComponent(id)}/cancel`);
    }
    /**
     * Cancels a scheduled event (`deliverAt` / `delay`) that has not gone out
     * (DELETE /events/{eventId}): it is never shown, pushed or routed. Returns
     * `{eventId, status: 'cancelled', scheduledFor}`, again on a repeat. Throws a
     * HeraldError: status 409 and kind `event-sent` once it went out (a cancel
     * racing the release ends in exactly one of the two), 404 for no scheduled
     * event of this id in the key's workspace.
     */
    async cancel(eventId) {
        return this.keyCall('DELETE', `/events/${encodeURIComponent(eventId)}`);
    }
    /**
     * A page of the workspace's scheduled events that have not gone out, soonest
     * first (GET /events?status=scheduled): `{events, nextCursor}`. Pass
     * `nextCursor` as `cursor` for the next page; `limit` is 1 to 100 (default 50).
     */
    async scheduled(query = {}) {
        const params = new URLSearchParams({ status: 'scheduled' });
        if (query.cursor)
            params.set('cursor', query.cursor);
        if (query.limit !== undefined)
            params.set('limit', String(whole('limit', query.limit, 1, 100)));
        return this.keyCall('GET', `/events?${params}`);
    }
    /** Every scheduled event, soonest first, fetching page after page of `limit` (default 100) as the loop asks for them. */
    async *allScheduled(query = {}) {
        let cursor = null;
        do {
            const page = await this.scheduled({ cursor, limit: query.limit ?? 100 });
            yield* page.events;
            cursor = page.nextCursor;
        } while (cursor);
    }
    /** One try of a receipt's read or cancel: nothing to store twice, so no retries (a repeated cancel would answer 409). */
    receiptCall(method, path) {
        return this.keyCall(method, path);
    }
    /** One try of a call with the API key and no body; the caller repeats a read, and a cancel answers the same twice. */
    async keyCall(method, path) {
        let res;
        try {
            res = await this.fetch(this.url + path, {
                method,
                headers: { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' },
                signal: AbortSignal.timeout(this.timeoutMs),
            });
        }
        catch (err) {
            throw transportError(this.url, err, this.timeoutMs);
        }
        if (!res.ok)
            throw await answerError(res);
        return this.json(res, path);
    }
    /**
     * Your preferences in a workspace (GET /v1/workspaces/{workspace}/preferences),
     * with the `userToken`: quiet hours, a level per channel (a muted channel
     * is `none`) and the default level.
     */
    async getPreferences(workspace) {
        return this.memberCall('GET', `/v1/workspaces/${encodeURIComponent(workspace)}/preferences`);
    }
    /**
     * Replaces your preferences in a workspace (PUT …/preferences) with the
     * `userToken`: a field left out takes its default. Returns them as stored
     * (the time zone as Intl spells it, `except` filled in). A HeraldError of
     * status 400 names each bad field (`errors[].pointer`): an unknown time
     * zone, a time out of range, an unknown channel.
     */
    async setPreferences(workspace, preferences) {
        return this.memberCall('PUT', `/v1/workspaces/${encodeURIComponent(workspace)}/preferences`, preferences);
    }
    /** One try of a member's call with the user token; a PUT that replaces a document is safe to repeat, but its caller decides. */
    async memberCall(method, path, body) {
        if (!this.userToken)
            throw new TypeError(`this call is a member's own: create the Herald with a userToken (hrlu_…)`);
        let res;
        try {
            res = await this.fetch(this.url + path, {
                method,
                headers: { authorization: `Bearer ${this.userToken}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
                body: body === undefined ? undefined : JSON.stringify(body),
                signal: AbortSignal.timeout(this.timeoutMs),
            });
        }
        catch (err) {
            throw transportError(this.url, err, this.timeoutMs);
        }
        if (!res.ok)
            throw await answerError(res);
        return this.json(res, path);
    }
    /**
     * Queues an event for the background batches (POST /events). Resolves once
     * it is queued: at once, or when there is room (`whenFull: 'wait'`); rejects
     * with HeraldQueueFullError (`whenFull: 'reject'`) or HeraldClosedError.
     * `result` settles when Herald stored the event or the client gave it up.
     */
    enqueue(event, options = {}) {
        return this.queue.enqueue(event, options.idempotencyKey);
    }
    /** Sends every queued event now; resolves once each event pending at the call has its outcome. */
    flush() {
        return this.queue.flush();
    }
    /** Refuses new events, then sends and settles every pending one. Call it before the process exits. */
    close() {
        return this.queue.close();
    }
    /** One try: Herald's answer, or a HeraldError of status 0 when none came. */
    async post(path, body, headers) {
        try {
            return await this.fetch(this.url + path, {
                method: 'POST',
                headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
                body,
                signal: AbortSignal.timeout(this.timeoutMs),
            });
        }
        catch (err) {
            throw transportError(this.url, err, this.timeoutMs);
        }
    }
    async json(res, path) {
        try {
            return (await res.json());
        }
        catch {
            throw new HeraldError({ status: res.status, title: 'Invalid Response', detail: `${this.url}${path} did not answer JSON: is ${this.url} a Herald server?` });
        }
    }
}
