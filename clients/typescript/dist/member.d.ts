import type { components } from './openapi.js';
export type FeedPage = components['schemas']['FeedPage'];
export type MarkResult = components['schemas']['MarkResult'];
export type ReadStatus = 'unread' | 'read' | 'archived';
/** Events by id (at most 100), or everything up to an event (that one included), of one channel or all. */
export type MarkEvents = {
    eventIds: string[];
} | {
    before: string;
    channel?: string;
};
export interface MemberOptions {
    url: string;
    token: string;
    timeoutMs?: number;
    fetch?: (url: string, init: RequestInit) => Promise<Response>;
}
export interface FeedQuery {
    channel?: string;
    tag?: string;
    event?: string;
    q?: string;
    minPriority?: number;
    status?: ReadStatus;
    before?: string;
    limit?: number;
}
export declare class HeraldMember {
    private readonly url;
    private readonly token;
    private readonly timeoutMs;
    private readonly fetch;
    constructor(options: MemberOptions);
    /** A page of the workspace's feed (GET /v1/feed): each event with its `status` for you, and your unread `counts` (each up to 1,000). */
    feed(workspace: string, query?: FeedQuery): Promise<FeedPage>;
    /** Marks events read for you (POST /v1/workspaces/{ws}/feed/read); "mark all read" passes `{before: <the newest id>}`. */
    markRead(workspace: string, events: MarkEvents): Promise<MarkResult>;
    /** Archives events for you (POST /v1/workspaces/{ws}/feed/archive); archived implies read. */
    archive(workspace: string, events: MarkEvents): Promise<MarkResult>;
    private call;
}
