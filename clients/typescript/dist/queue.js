// The background batches of `enqueue`: events wait in a bounded queue and go
// out through POST /events, a batch when `maxBatch` events are waiting, or
// when the oldest has waited `flushIntervalMs`, one request at a time so that
// Herald receives them in order. A batch that failed as a whole is sent again
// with the same idempotency keys (what was stored is answered from the first
// time); an event Herald refused is given up, and one the rate limit held
// back goes to the front of the queue until the bucket refills.
import { answerError, HeraldClosedError, HeraldError, HeraldQueueFullError, problemError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';
/** POST /events takes at most 4 MiB per request (docs/events.md#limits). */
export const MAX_BATCH_BYTES = 4_194_304;
/** …and at most 1,000 events. */
export const MAX_BATCH_EVENTS = 1000;
// The bytes of `{"events":[` and `]}` around the events.
const ENVELOPE_BYTES = 13;
// When the rate limit held events back and the answer says nothing of when to come back.
const RATE_LIMIT_PAUSE_MS = 1000;
/**
 * The warning a client gives the first time the workspace's rate limit holds
 * its events back (from `send` or the batches): the events are not lost,
 * they are paced, and the setting that paces them is the operator's.
 * `limit` is RateLimit-Limit: the bucket's size (the burst), not the rate.
 */
export function rateLimitWarning(limit) {
    return `herald-client: the workspace's rate limit${limit ? ` (bursts of up to ${limit} events, then its rate per second)` : ''} holds events back; they wait their turn and are sent later (stats.rateLimited counts them). An operator raises it with \`herald workspace set <workspace> --rate <events/s> --burst <n>\` (\`npx herald …\` in a clone of Herald).`;
}
const encoder = new TextEncoder();
export class BatchQueue {
    ctx;
    queue = [];
    /** Queued or in flight: every event whose outcome is not known yet. */
    pending = new Set();
    waiters = [];
    timer;
    running;
    /** Send whatever is queued, full batch or not (the timer fired, or flush()). */
    due = false;
    /** Not before this time (ms since the epoch): the rate limit asked for a pause. */
    resumeAt = 0;
    closed = false;
    constructor(ctx) {
        this.ctx = ctx;
    }
    enqueue(event, idempotencyKey) {
        if (this.closed) {
            this.ctx.stats.dropped++;
            return Promise.reject(new HeraldClosedError());
        }
        let item;
        try {
            item = this.item(event, idempotencyKey ?? this.ctx.newKey());
        }
        catch (err) {
            this.ctx.stats.dropped++;
            return Promise.reject(err); // not JSON: a BigInt, a cycle
        }
        const queued = () => ({ idempotencyKey: item.key, result: item.done });
        if (this.pending.size < this.ctx.maxQueue && this.waiters.length === 0) {
            this.admit(item);
            return Promise.resolve(queued());
        }
        if (this.ctx.whenFull === 'reject') {
            this.ctx.stats.dropped++;
            return Promise.reject(new HeraldQueueFullError(this.ctx.maxQueue));
        }
        return new Promise((resolve) => this.waiters.push(() => (this.admit(item), resolve(queued()))));
    }
    /** Sends everything queued now, full batch or not; resolves once every event pending at the call has its outcome. */
    async flush() {
        const items = [...this.pending];
        if (items.length === 0)
            return;
        this.due = true;
        this.wake();
        await Promise.all(items.map((i) => i.done));
    }
    /** Refuses new events, then drains the queue and the enqueues waiting for room. */
    async close() {
        this.closed = true;
        while (this.pending.size > 0 || this.waiters.length > 0)
            await this.flush();
    }
    item(event, key) {
        const json = JSON.stringify({ ...event, idempotencyKey: key });
        let resolve;
        const done = new Promise((r) => (resolve = r));
        return { event, key, json, bytes: encoder.encode(json).byteLength, resolve, done };
    }
    admit(item) {
        this.pending.add(item);
        this.queue.push(item);
        this.wake();
    }
    settle(item, outcome) {
        this.pending.delete(item);
        item.resolve(outcome);
        // Room again: the longest-waiting enqueue goes in, synchronously, so that close() sees it.
        while (this.waiters.length > 0 && this.pending.size < this.ctx.maxQueue)
            this.waiters.shift()();
    }
    /** Starts a run of batches when one is due, else makes sure the timer will start one. */
    wake() {
        if (this.running || this.queue.length === 0)
            return;
        if (this.due || this.queue.length >= this.ctx.maxBatch) {
            this.running = this.run().finally(() => {
                this.running = undefined;
                this.wake();
            });
        }
        else {
            this.timer ??= setTimeout(() => {
                this.timer = undefined;
                this.due = true;
                this.wake();
            }, this.ctx.flushIntervalMs);
        }
    }
    async run() {
        while (this.queue.length > 0 && (this.due || this.queue.length >= this.ctx.maxBatch)) {
            const pause = this.resumeAt - Date.now();
            if (pause > 0)
                await sleep(pause);
            const batch = this.take();
            if (this.queue.length === 0) {
                this.due = false;
                clearTimeout(this.timer);
                this.timer = undefined;
            }
            await this.deliver(batch).catch((err) => {
                // A bug of the client, not a failure of Herald: the batch is given up rather than stuck.
                const error = new HeraldError({ status: 0, title: 'Client Error', detail: `the Herald client failed: ${err?.message ?? String(err)}` }, { cause: err });
                batch.filter((item) => this.pending.has(item)).forEach((item) => this.fail(item, error));
            });
        }
    }
    /** The next batch: up to maxBatch events and 4 MiB, at least one event (alone, one over 4 MiB gets its 413). */
    take() {
        let n = 0;
        let bytes = ENVELOPE_BYTES;
        for (const item of this.queue) {
            if (n === this.ctx.maxBatch || (n > 0 && bytes + item.bytes + 1 > MAX_BATCH_BYTES))
                break;
            bytes += item.bytes + 1;
            n++;
        }
        return this.queue.splice(0, n);
    }
    /** Sends one batch until Herald answers it; every event of it is settled or held back after. */
    async deliver(batch) {
        const body = `{"events":[${batch.map((i) => i.json).join(',')}]}`;
        for (let attempt = 1;; attempt++) {
            let err;
            let limit;
            try {
                const res = await this.ctx.post('/events', body, {});
                if (res.ok)
                    return await this.results(batch, res);
                limit = Number(res.headers.get('ratelimit-limit')) || undefined;
                err = await answerError(res);
            }
            catch (e) {
                if (!(e instanceof HeraldError))
                    throw e;
                err = e;
            }
            // The rate limit refused the whole batch and stored nothing: it waits its turn, and the tries are not used up.
            if (err.status === 429 && err.kind !== 'quota-exceeded')
                return this.holdBack(batch, err.retryAfterMs ?? RATE_LIMIT_PAUSE_MS, err, limit);
            const delayMs = retryDelayMs(this.ctx.retry, attempt, err);
            if (delayMs === undefined)
                return batch.forEach((item) => this.fail(item, err));
            this.ctx.stats.retried += batch.length;
            this.hook(() => this.ctx.onRetry?.(err, { attempt, delayMs, events: batch.length }));
            await sleep(delayMs);
        }
    }
    /** A 200: each result settles its event, in request order; those the rate limit held back go again. */
    async results(batch, res) {
        const parsed = (await res.json().catch(() => undefined));
        const results = parsed?.results;
        if (!Array.isArray(results) || results.length !== batch.length) {
            const err = new HeraldError({ status: res.status, title: 'Invalid Response', detail: 'POST /events did not answer one result per event: is the URL a Herald server?' });
            return batch.forEach((item) => this.fail(item, err));
        }
        const limited = [];
        let limitedBy;
        batch.forEach((item, i) => {
            const result = (results[i] ?? {});
            if (typeof result.eventId === 'string') {
                this.ctx.stats.sent++;
                return this.settle(item, { ok: true, value: result });
            }
            const err = problemError(result, 0);
            if (err.status === 429 && err.kind !== 'quota-exceeded') {
                limited.push(item);
                limitedBy ??= err;
            }
            else
                this.fail(item, err);
        });
        if (limited.length > 0) {
            const reset = Number(res.headers.get('ratelimit-reset'));
            this.holdBack(limited, reset > 0 ? reset * 1000 : RATE_LIMIT_PAUSE_MS, limitedBy, Number(res.headers.get('ratelimit-limit')) || undefined);
        }
    }
    /**
     * Back to the front of the queue, in order, with their keys, after a pause
     * for the bucket to refill. Said to onRetry (attempt 0: no try is used up)
     * and counted in stats.rateLimited; the first time, a warning says that the
     * workspace's rate limit, not the network, is what paces the events.
     */
    holdBack(items, pauseMs, err, limit) {
        this.ctx.stats.retried += items.length;
        this.ctx.stats.rateLimited += items.length;
        this.hook(() => this.ctx.onRetry?.(err, { attempt: 0, delayMs: pauseMs, events: items.length }));
        this.hook(() => this.ctx.rateLimited(limit));
        this.queue.unshift(...items);
        this.resumeAt = Date.now() + pauseMs;
        this.due = true;
    }
    fail(item, err) {
        this.ctx.stats.failed++;
        this.hook(() => this.ctx.onError?.(err, item.event));
        this.settle(item, { ok: false, error: err });
    }
    /** A hook that throws must not stop the queue. */
    hook(call) {
        try {
            call();
        }
        catch { }
    }
}
