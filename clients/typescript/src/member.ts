// What a member does with an app token (`hrlu_…`, from POST /v1/auth/signin
// with client "app"): read the feed with each event's read state and the
// unread counts, and mark events read or archived, on all their devices.
// No retries: a read is repeated by calling again, and a mark is idempotent.
import { answerError, transportError } from './errors.js'
import type { components } from './openapi.js'

export type FeedPage = components['schemas']['FeedPage']
export type MarkResult = components['schemas']['MarkResult']
export type ReadStatus = 'unread' | 'read' | 'archived'
/** Events by id (at most 100), or everything up to an event (that one included), of one channel or all. */
export type MarkEvents = { eventIds: string[] } | { before: string; channel?: string }

export interface MemberOptions {
  url: string
  token: string
  timeoutMs?: number
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

export interface FeedQuery {
  channel?: string
  tag?: string
  event?: string
  q?: string
  minPriority?: number
  status?: ReadStatus
  before?: string
  limit?: number
}

export class HeraldMember {
  private readonly url: string
  private readonly token: string
  private readonly timeoutMs: number
  private readonly fetch: NonNullable<MemberOptions['fetch']>

  constructor(options: MemberOptions) {
    if (!options?.token) throw new TypeError('HeraldMember needs a token')
    this.url = new URL(options.url).toString().replace(/\/+$/, '')
    this.token = options.token
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init))
  }

  /** A page of the workspace's feed (GET /v1/feed): each event with its `status` for you, and your unread `counts` (each up to 1,000). */
  feed(workspace: string, query: FeedQuery = {}): Promise<FeedPage> {
    const params = new URLSearchParams({ workspace })
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v))
    return this.call<FeedPage>('GET', `/v1/feed?${params}`)
  }

  /** Marks events read for you (POST /v1/workspaces/{ws}/feed/read); "mark all read" passes `{before: <the newest id>}`. */
  markRead(workspace: string, events: MarkEvents): Promise<MarkResult> {
    return this.call<MarkResult>('POST', `/v1/workspaces/${encodeURIComponent(workspace)}/feed/read`, events)
  }

  /** Archives events for you (POST /v1/workspaces/{ws}/feed/archive); archived implies read. */
  archive(workspace: string, events: MarkEvents): Promise<MarkResult> {
    return this.call<MarkResult>('POST', `/v1/workspaces/${encodeURIComponent(workspace)}/feed/archive`, events)
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response
    try {
      res = await this.fetch(this.url + path, {
        method,
        headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      throw transportError(this.url, err, this.timeoutMs)
    }
    if (!res.ok) throw await answerError(res)
    return (await res.json()) as T
  }
}
