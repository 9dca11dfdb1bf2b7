// The serial path of the write path, beside idempotency.ts: a batch that holds
// idempotency keys, or names channels for the first time, is written in a
// transaction. The channel limits are checked under the workspaces' channel
// locks, held until the events and their new channels commit (so two batches
// on any instances cannot both take a workspace's last channel place); the
// events past a limit take no quota; the keys are claimed, and the events
// written with the one statement of every batch.
import type { Sql, Tx } from '../core/db'
import { channelKey } from '../core/channel_key'
import { channelsPastLimit, type WantedChannel } from '../accounts/channels'
import { claimIdempotencyKeys, findIdempotencyKeys, settleIdempotencyKeys } from './idempotency'
import { writeEventBatch } from './statement'
import type { Ack } from './event'
import { rateState, type Outcome, type Submission } from './submission'
import { insertReceipts, missingChannelSlugs, pendingRoom } from '../delivery/receipts'

export interface SerialWrite<I extends Submission> {
  /** The submissions written, with their outcomes, in order. */
  written: I[]
  outcomes: Outcome[]
  outboxId: number | null
  /** Submissions refused for naming a new channel past the workspace's limit. */
  refused: I[]
  /** Submissions whose idempotency key another request holds: see replayKeyed. */
  losers: I[]
  /** Submissions with `ack` refused: past the workspace's pending receipts, or escalating to a channel it lacks. (Scheduled events past their cap are refused by the statement: their outcome is `schedule-limit`.) */
  capped: { item: I; outcome: Outcome }[]
}

/** The caps of the serial path. */
export interface SerialLimits {
  maxChannels: number
  maxPendingReceipts: number
  maxScheduled: number
}

/** Writes a batch in a transaction on `conn`; `fresh` are the channels it names that this process has not seen committed. */
export async function writeSerialBatch<I extends Submission>(conn: Sql, items: I[], fresh: WantedChannel[], limits: SerialLimits): Promise<SerialWrite<I>> {
  const out: SerialWrite<I> = { written: [], outcomes: [], outboxId: null, refused: [], losers: [], capped: [] }
  await conn.begin(async (tx) => {
    const key = (c: WantedChannel) => channelKey(c.ws, c.channel)
    const over = new Set((fresh.length ? await channelsPastLimit(tx, fresh, limits.maxChannels) : []).map(key))
    out.refused = items.filter((i) => over.has(channelKey(i.principal.workspaceId, i.channel)))
    let admitted = out.refused.length ? items.filter((i) => !out.refused.includes(i)) : items
    if (admitted.some((i) => i.event.ack)) out.capped = await receiptRefusals(tx, admitted, limits.maxPendingReceipts)
    if (out.capped.length) admitted = admitted.filter((i) => !out.capped.some((u) => u.item === i))
    const claims = admitted.filter((i) => i.idempotency)
    const won = new Set(claims.length ? (await claimIdempotencyKeys(tx, claims)).map((r) => `${r.ws}:${r.key}`) : [])
    out.losers = claims.filter((i) => !won.has(`${i.principal.workspaceId}:${i.idempotency!.key}`))
    out.written = admitted.filter((i) => !out.losers.includes(i))
    if (out.written.length) {
      const w = await writeEventBatch(tx, out.written, fresh.filter((c) => !over.has(key(c))), limits.maxScheduled)
      out.outcomes = w.outcomes
      out.outboxId = w.outboxId
      await insertReceipts(tx, out.written.flatMap((s, i) => (s.event.ack && s.receipt && w.outcomes[i]!.kind === 'accepted'
        ? [{ id: s.receipt, workspaceId: s.principal.workspaceId, eventId: s.id, eventAt: s.createdAt, channel: s.channel, ack: ackWithin(s.event.ack, s.event.ttl) }]
        : [])))
    }
    if (claims.length) await settleIdempotencyKeys(tx, out.written, out.outcomes)
  })
  return out
}

/**
 * The answers of submissions that lost their idempotency key to another
 * request: the stored answer of that request, a mismatch when the body
 * differs, or undefined when the key was claimed and released meanwhile (the
 * submission goes again).
 */
export async function replayKeyed(sql: Sql, losers: Submission[]): Promise<(Outcome | undefined)[]> {
  const stored = await findIdempotencyKeys(sql, losers)
  return losers.map((it) => {
    const row = stored.find((r) => r.ws === it.principal.workspaceId && r.key === it.idempotency!.key)
    if (!row?.response) return undefined
    if (row.hash !== it.idempotency!.hash) return { kind: 'idempotency-mismatch' }
    return { kind: 'replayed', body: row.response, rate: rateState(row.tokens, row.rate, row.burst) }
  })
}

/**
 * The submissions with `ack` that may not be written: one escalating to a
 * channel its workspace does not have (a 400 naming the step), and those
 * past the workspace's pending receipts, counted under the workspace rows'
 * locks, which the transaction keeps until its receipts commit.
 */
async function receiptRefusals<I extends Submission>(tx: Tx, items: I[], max: number): Promise<{ item: I; outcome: Outcome }[]> {
  const out: { item: I; outcome: Outcome }[] = []
  const acked = items.filter((i) => i.event.ack)
  const room = await pendingRoom(tx, acked.map((i) => i.principal.workspaceId), max)
  for (const item of acked) {
    const steps = item.event.ack!.escalate
    const missing = await missingChannelSlugs(tx, item.principal.workspaceId, steps.map((s) => s.channel))
    const bad = steps.findIndex((s) => missing.has(s.channel))
    if (bad >= 0) {
      out.push({ item, outcome: { kind: 'escalation-channel', index: bad, channel: steps[bad]!.channel } })
      continue
    }
    const left = room.get(item.principal.workspaceId) ?? 0
    if (left <= 0) out.push({ item, outcome: { kind: 'receipt-limit', max } })
    else room.set(item.principal.workspaceId, left - 1)
  }
  return out
}

/**
 * An event's acknowledgement within its ttl: once the event is older than
 * its ttl no push of it is sent (its repeats would end `expired` one after
 * the other), so its receipt expires then, if `expire` is later.
 */
export const ackWithin = (ack: Ack, ttl: number | null): Ack => (ttl === null || ttl >= ack.expire ? ack : { ...ack, expire: ttl })
