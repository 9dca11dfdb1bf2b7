import type { FieldError, HeraldError } from './errors.js';
import type { components, operations, paths } from './openapi.js';
export type { FieldError };
type PostEvent = operations['postEvent'];
type PostEvents = operations['postEvents'];
type EventBody = PostEvent['requestBody']['content']['application/json'];
/**
 * The body of POST /event: `message` is required; see docs/events.md for each
 * field's rules. `deliverAt` may be a Date (sent as its ISO string) or an RFC
 * 3339 string; `delay` whole seconds or a duration (`30m`). Not both.
 */
export type HeraldEvent = Omit<NamedFields<EventBody>, 'deliverAt'> & {
    deliverAt?: string | Date | null;
    [key: string]: unknown;
};
type NamedFields<T> = {
    [K in keyof T as string extends K ? never : K]: T[K];
};
/**
 * POST /event's 200 body: the event is committed. `errors` lists what Herald
 * changed (truncations); `receipt` is there when the event has `ack`: the id
 * that `herald.receipt(id)` and `herald.cancelReceipt(id)` take.
 */
export type Accepted = PostEvent['responses'][200]['content']['application/json'];
/** An event's priority: 1 to 5, or its name (`min`, `low`, `default`, `high`, `urgent`). */
export type Priority = NonNullable<HeraldEvent['priority']>;
/** A scheduled event that has not gone out, as GET /events?status=scheduled lists it (`scheduledFor`, `status: 'scheduled'`). */
export type ScheduledEvent = components['schemas']['ScheduledEvent'];
/** A page of scheduled events, soonest first; pass `nextCursor` as `cursor` for the next one (null at the end). */
export type ScheduledPage = components['schemas']['ScheduledPage'];
/** DELETE /events/{eventId}'s answer: the event will never go out. */
export type Cancelled = components['schemas']['CancelledEvent'];
/** A receipt, as GET /receipts/{receipt} answers it: its status, who acknowledged it and how, its pushes so far. */
export type Receipt = paths['/receipts/{receipt}']['get']['responses'][200]['content']['application/json'];
/** A member's preferences in a workspace, as GET …/preferences answers them. */
export type Preferences = paths['/v1/workspaces/{workspace}/preferences']['get']['responses'][200]['content']['application/json'];
type PreferencesBody = NonNullable<paths['/v1/workspaces/{workspace}/preferences']['put']['requestBody']>['content']['application/json'];
/** The body of PUT …/preferences: the whole document, each field optional (its default when left out); quietHours null is none. */
export type PreferencesInput = Omit<PreferencesBody, 'quietHours'> & {
    quietHours?: PreferencesBody['quietHours'] | null;
};
/** One result of POST /events: an accepted event, or a problem with the status POST /event would have answered. */
export type BatchResult = PostEvents['responses'][200]['content']['application/json']['results'][number];
/** What an event enqueued for the background batches came to: stored, or given up (never both). */
export type Outcome = {
    ok: true;
    value: Accepted;
} | {
    ok: false;
    error: HeraldError;
};
/** What `enqueue` resolves to once the event is in the queue. */
export interface Queued {
    /** The idempotency key the event carries on every try. */
    idempotencyKey: string;
    /** Settles once Herald stored the event or the client gave it up; never rejects. */
    result: Promise<Outcome>;
}
/** The counters of `herald.stats`; the README defines each. */
export interface Stats {
    sent: number;
    failed: number;
    retried: number;
    dropped: number;
    /** Events the workspace's rate limit held back, each time (they wait their turn and are sent later; `retried` counts them too). */
    rateLimited: number;
}
