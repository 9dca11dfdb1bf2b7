// herald-client: send events to Herald, the self-hostable event notification
// service, from any runtime with fetch. See README.md.
export { Herald } from './herald.js';
export { HeraldMember } from './member.js';
export { HeraldClosedError, HeraldError, HeraldQueueFullError, PROBLEM_BASE } from './errors.js';
export { DEFAULT_RETRY } from './retry.js';
export { MAX_BATCH_BYTES, MAX_BATCH_EVENTS } from './queue.js';
