// The write path's one statement: a batch of events written in one round
// trip and one commit, with every workspace's monthly quota and token bucket
// applied under row locks (so the limits hold across API instances), and the
// outcome of each submission read from its workspace's grant.
import type { Tx } from '../core/db'
import { rateState, resultBody, type Outcome, type Submission } from './submission'

interface Grant {
  outbox_id: number | null // the batch's outbox row, when it accepted any event
  id: number
  sroom: number // how many more events the workspace may schedule (in a batch without scheduled events: 0, unread)
  used: number
  granted: number
  quota: number
  tokens: number
  rate: number
  burst: number
  quota_reset_s: number
}

/** A PostgreSQL array literal of `tags`: each event's tags travel as one text of an unnest array. */
const textArray = (tags: string[]) =>
  `{${tags.map((t) => `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`

/** What a batch wrote: an outcome per submission, and the outbox row of the accepted ones. */
export interface Written {
  outcomes: Outcome[]
  outboxId: number | null
}

/**
 * Writes a batch in one statement, one round trip and one commit, with no
 * BEGIN or COMMIT of its own when `sql` is not a transaction: it locks the
 * batch's workspace rows in id order (so no two batches, on any instance,
 * deadlock) and spends quota and tokens under the lock; inserts only the
 * events that fit (none is written and then deleted); adds them to
 * usage_daily; writes one outbox row listing them (the ledger of their
 * fan-out, src/delivery/relay.ts); and creates the channels they name for
 * the first time. Every table access is an index look-up or an insert,
 * so the plan is as good on a full partition as on an empty one
 * (test/ingest/ingest.plans.test.ts).
 */
export async function writeEventBatch(sql: Tx, items: Submission[], newChannels: { ws: number; channel: string }[], maxScheduled = Number.MAX_SAFE_INTEGER): Promise<Written> {
  const ord = new Map<number, number>()
  const n = items.length
  const cols = {
    id: new Array<string>(n), ws: new Array<number>(n), ord: new Array<number>(n), at: new Array<string>(n), channel: new Array<string>(n),
    event: new Array<string | null>(n), title: new Array<string | null>(n), message: new Array<string>(n), link: new Array<string | null>(n),
    tags: new Array<string>(n), data: new Array<string | null>(n), priority: new Array<number>(n), ttl: new Array<number | null>(n),
    collapse: new Array<string | null>(n), receipt: new Array<string | null>(n), recipients: new Array<string | null>(n),
    due: new Array<number>(n), // 1: scheduled (postgres.js sends no bool[])
    sb: new Array<number>(n), // how many scheduled events of its workspace come before it in the batch
  }
  const sbefore = new Map<number, number>()
  let scheduled = false
  items.forEach((s, i) => {
    const ws = s.principal.workspaceId
    const k = ord.get(ws) ?? 0
    ord.set(ws, k + 1)
    const sb = sbefore.get(ws) ?? 0
    cols.sb[i] = sb
    if (s.event.scheduledFor) sbefore.set(ws, sb + 1)
    const e = s.event
    cols.id[i] = s.id, cols.ws[i] = ws, cols.ord[i] = k, cols.at[i] = s.createdAt.toISOString(), cols.channel[i] = s.channel
    cols.event[i] = e.event, cols.title[i] = e.title, cols.message[i] = e.message, cols.link[i] = e.link
    cols.tags[i] = textArray(e.tags), cols.data[i] = e.data === null ? null : JSON.stringify(e.data)
    cols.priority[i] = e.priority, cols.ttl[i] = e.ttl, cols.collapse[i] = e.collapseKey, cols.receipt[i] = s.receipt ?? null
    cols.recipients[i] = s.recipients ? `{${s.recipients.join(',')}}` : null // uuids: nothing to escape
    cols.due[i] = e.scheduledFor ? 1 : 0
    if (cols.due[i]) scheduled = true
  })
  const ids = [...ord.keys()].sort((a, b) => a - b)
  const channels = newChannels.length
    ? sql`, ch AS (
        INSERT INTO channels (workspace_id, slug)
        SELECT DISTINCT c.ws, c.slug FROM unnest(${newChannels.map((c) => c.ws)}::bigint[], ${newChannels.map((c) => c.channel)}::text[]) AS c(ws, slug)
        WHERE EXISTS (SELECT 1 FROM ins WHERE ins.workspace_id = c.ws AND ins.channel = c.slug)
        ON CONFLICT DO NOTHING)`
    : sql``
  // The batch's rows; a batch with scheduled events has two more columns, so
  // that the statement of a batch without them is the one it always was.
  const rows = () => sql`unnest(${cols.id}::uuid[], ${cols.ws}::bigint[], ${cols.ord}::int[], ${cols.at}::timestamptz[], ${cols.channel}::text[],
        ${cols.event}::text[], ${cols.title}::text[], ${cols.message}::text[], ${cols.link}::text[], ${cols.tags}::text[], ${cols.data}::text[],
        ${cols.priority}::smallint[], ${cols.ttl}::int[], ${cols.collapse}::text[], ${cols.receipt}::uuid[], ${cols.recipients}::text[]${scheduled ? sql`, ${cols.due}::int[], ${cols.sb}::int[]` : sql``})
        AS e(id, ws, ord, at, channel, event, title, message, link, tags, data, priority, ttl, collapse, receipt, recipients${scheduled ? sql`, due, sb` : sql``})`
  // With scheduled events, the cap (HERALD_MAX_SCHEDULED_EVENTS) is applied
  // in this statement too, under the workspace row lock, from the
  // workspace's scheduled_count: a scheduled event past `sroom` is refused
  // and takes no quota, so the events after it move up by one (their `ord`
  // less the refused before them, `GREATEST(0, sb - sroom)`). The accepted
  // ones are written to events like the others (created_at and
  // scheduled_for: their due time, the time of their id), under the same
  // grant, each with a timer row in scheduled_events and no outbox row:
  // visibleTo (src/ingest/event_reads.ts) hides them until their time, and
  // src/delivery/release.ts writes their outbox row then.
  const fits = scheduled
    ? sql`NOT (e.due = 1 AND e.sb >= g.sroom) AND e.ord - GREATEST(0, e.sb - g.sroom) < g.granted`
    : sql`e.ord < g.granted`
  const sch = scheduled
    ? sql`, sch AS (
      INSERT INTO scheduled_events (id, workspace_id) SELECT id, workspace_id FROM ins WHERE scheduled_for IS NOT NULL
      RETURNING workspace_id
    )`
    : sql``
  const grants = await sql<Grant[]>`
    WITH req AS (
      ${scheduled
        ? sql`SELECT ws AS id, count(*)::int AS n, sum(due)::int AS s FROM unnest(${cols.ws}::bigint[], ${cols.due}::int[]) AS r(ws, due) GROUP BY ws`
        : sql`SELECT ws AS id, count(*)::int AS n, 0 AS s FROM unnest(${cols.ws}::bigint[]) AS ws GROUP BY ws`}
    ), locked AS MATERIALIZED (
      SELECT w.id, w.monthly_quota, w.quota_used, w.quota_period, w.tokens, w.tokens_at, w.rate_per_second, w.rate_burst${scheduled ? sql`, w.scheduled_count` : sql``}
      FROM workspaces w WHERE w.id = ANY(${ids}::bigint[]) ORDER BY w.id FOR NO KEY UPDATE
    ), cur AS MATERIALIZED (
      SELECT l.id, r.n, r.s, l.monthly_quota AS quota, l.rate_per_second AS rate, l.rate_burst AS burst,
        ${scheduled ? sql`GREATEST(0, ${maxScheduled}::bigint - l.scheduled_count)::int` : sql`0`} AS sroom,
        CASE WHEN l.quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE l.quota_used END AS used,
        LEAST(l.rate_burst::float8, l.tokens + GREATEST(0, extract(epoch FROM now() - l.tokens_at)::float8) * l.rate_per_second) AS tokens
      FROM locked l JOIN req r ON r.id = l.id
    ), g AS MATERIALIZED (
      -- n less the scheduled events past the cap: what asks for quota.
      SELECT *, GREATEST(0, LEAST(n - GREATEST(0, s - sroom), quota - used, floor(tokens)::bigint))::int AS granted FROM cur
    ), daily AS (
      -- Under the workspace row locks taken above, so batches of one
      -- workspace on several instances add up here one after the other.
      INSERT INTO usage_daily (workspace_id, day, events)
      SELECT id, (now() AT TIME ZONE 'UTC')::date, granted FROM g WHERE granted > 0
      ON CONFLICT (workspace_id, day) DO UPDATE SET events = usage_daily.events + excluded.events
    ), ins AS (
      -- The first "granted" events of each workspace, in the order they came.
      INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, link, tags, data, priority, ttl, collapse_key, receipt, recipients${scheduled ? sql`, scheduled_for` : sql``})
      SELECT e.id, e.ws, e.channel, e.at, e.event, e.title, e.message, e.link, e.tags::text[], e.data::json, e.priority, e.ttl, e.collapse, e.receipt, e.recipients::uuid[]${scheduled ? sql`, CASE WHEN e.due = 1 THEN e.at END` : sql``}
      FROM ${rows()}
      JOIN g ON g.id = e.ws WHERE ${fits}
      RETURNING id, workspace_id, channel${scheduled ? sql`, scheduled_for` : sql``}
    )${sch}, ob AS (
      -- The events that go out now; a scheduled one's row is the release's.
      INSERT INTO outbox (event_ids, workspace_ids)
      SELECT array_agg(id ORDER BY id), array_agg(workspace_id ORDER BY id) FROM ins ${scheduled ? sql`WHERE scheduled_for IS NULL` : sql``} HAVING count(*) > 0
      RETURNING id
    ), upd AS (
      UPDATE workspaces w SET quota_used = g.used + g.granted,${scheduled ? sql`
        scheduled_count = w.scheduled_count + (SELECT count(*) FROM sch WHERE sch.workspace_id = w.id),` : sql``}
        quota_period = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
        tokens = g.tokens - g.granted, tokens_at = now()
      FROM g WHERE w.id = ANY(${ids}::bigint[]) AND w.id = g.id
    )${channels}
    SELECT (SELECT id FROM ob) AS outbox_id, id, sroom, used, granted, quota, tokens, rate, burst,
      extract(epoch FROM date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month' - (now() AT TIME ZONE 'UTC'))::float8 AS quota_reset_s
    FROM g`
  return { outcomes: outcomes(items, grants, maxScheduled), outboxId: grants[0]?.outbox_id ?? null }
}

/** Settles each submission of a batch from its workspace's grant. */
function outcomes(items: Submission[], grants: Grant[], maxScheduled: number): Outcome[] {
  const byWs = new Map(grants.map((g) => [g.id, g]))
  const ord = new Map<number, number>() // each workspace's submissions so far that asked for quota
  const sb = new Map<number, number>() // and its scheduled ones so far
  return items.map((s) => {
    const g = byWs.get(s.principal.workspaceId)
    if (!g) return { kind: 'unknown-workspace' }
    if (s.event.scheduledFor) {
      const k = sb.get(g.id) ?? 0
      sb.set(g.id, k + 1)
      if (k >= g.sroom) return { kind: 'schedule-limit', max: maxScheduled }
    }
    const i = ord.get(g.id) ?? 0
    ord.set(g.id, i + 1)
    if (i < g.granted) {
      return { kind: 'accepted', body: resultBody(s, g.quota - g.used - i - 1), rate: rateState(g.tokens - i - 1, g.rate, g.burst) }
    }
    const left = g.tokens - g.granted
    const rate = rateState(left, g.rate, g.burst)
    if (i >= g.quota - g.used) return { kind: 'limited', reason: 'quota', retryAfter: Math.max(1, Math.ceil(g.quota_reset_s)), rate }
    return { kind: 'limited', reason: 'rate', retryAfter: Math.max(1, Math.ceil((1 - left) / g.rate)), rate }
  })
}
