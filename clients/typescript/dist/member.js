// What a member does with an app token (`hrlu_…`, from POST /v1/auth/signin
// with client "app"): read the feed with each event's read state and the
// unread counts, and mark events read or archived, on all their devices.
// No retries: a read is repeated by calling again, and a mark is idempotent.
import { answerError, transportError } from './errors.js';
export class HeraldMember {
    url;
    token;
    timeoutMs;
    fetch;
    constructor(options) {
        if (!options?.token)
            throw new TypeError('HeraldMember needs a token');
        this.url = new URL(options.url).toString().replace(/\/+$/, '');
        this.token = options.token;
        this.timeoutMs = options.timeoutMs ?? 10_000;
        this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
    }
    /** A page of the workspace's feed (GET /v1/feed): each event with its `status` for you, and your unread `counts` (each up to 1,000). */
    feed(workspace, query = {}) {
        const params = new URLSearchParams({ workspace });
        for (const [k, v] of Object.entries(query))
            if (v !== undefined)
                params.set(k, String(v));
        return this.call('GET', `/v1/feed?${params}`);
    }
    /** Marks events read for you (POST /v1/workspaces/{ws}/feed/read); "mark all read" passes `{before: <the newest id>}`. */
    markRead(workspace, events) {
        return this.call('POST', `/v1/workspaces/${encodeURIComponent(workspace)}/feed/read`, events);
    }
    /** Archives events for you (POST /v1/workspaces/{ws}/feed/archive); archived implies read. */
    archive(workspace, events) {
        return this.call('POST', `/v1/workspaces/${encodeURIComponent(workspace)}/feed/archive`, events);
    }
    async call(method, path, body) {
        let res;
        try {
            res = await this.fetch(this.url + path, {
                method,
                headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
                signal: AbortSignal.timeout(this.timeoutMs),
            });
        }
        catch (err) {
            throw transportError(this.url, err, this.timeoutMs);
        }
        if (!res.ok)
            throw await answerError(res);
        return (await res.json());
    }
}
