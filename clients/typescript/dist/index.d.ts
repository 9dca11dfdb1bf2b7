export { Herald, type Fetch, type HeraldOptions } from './herald.js';
export { HeraldMember, type FeedPage, type FeedQuery, type MarkEvents, type MarkResult, type MemberOptions, type ReadStatus } from './member.js';
export { HeraldClosedError, HeraldError, HeraldQueueFullError, PROBLEM_BASE, type NetworkKind } from './errors.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
export { MAX_BATCH_BYTES, MAX_BATCH_EVENTS } from './queue.js';
export type { Accepted, BatchResult, Cancelled, ScheduledEvent, ScheduledPage, FieldError, HeraldEvent, Outcome, Preferences, PreferencesInput, Priority, Queued, Receipt, Stats } from './types.js';
export type { components, operations, paths } from './openapi.js';
