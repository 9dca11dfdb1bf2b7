// The serial path of the write path, beside idempotency.ts: a batch that holds
// idempotency keys, or names channels for the first time, is written in a
// transaction. The channel limits are checked under the workspaces' channel
// locks, held until the events and their new channels commit (so two batches
// on any instances cannot both take a workspace's last channel place); the
// events past a limit take no quota; the keys are claimed, and the events
// written with the one statement of every batch.
import type { Sql } from '../core/db'
import { channelKey } from '../core/channel_key'
import { channelsPastLimit, type WantedChannel } from '../accounts/channels'
import { claimIdempotencyKeys, findIdempotencyKeys, settleIdempotencyKeys } from './idempotency'
import { writeEventBatch } from './statement'
import { rateState, type Outcome, type Submission } from './submission'

export interface SerialWrite<I extends Submission> {
  /** The submissions written, with their outcomes, in order. */
  written: I[]
  outcomes: Outcome[]
  outboxId: number | null
  /** Submissions refused for naming a new channel past the workspace's limit. */
  refused: I[]
  /** Submissions whose idempotency key another request holds: see replayKeyed. */
  losers: I[]
}

/** Writes a batch in a transaction on `conn`; `fresh` are the channels it names that this process has not seen committed. */
export async function writeSerialBatch<I extends Submission>(conn: Sql, items: I[], fresh: WantedChannel[], maxChannels: number): Promise<SerialWrite<I>> {
  const out: SerialWrite<I> = { written: [], outcomes: [], outboxId: null, refused: [], losers: [] }
  await conn.begin(async (tx) => {
    const key = (c: WantedChannel) => channelKey(c.ws, c.channel)
    const over = new Set((fresh.length ? await channelsPastLimit(tx, fresh, maxChannels) : []).map(key))
    out.refused = items.filter((i) => over.has(channelKey(i.principal.workspaceId, i.channel)))
    const admitted = out.refused.length ? items.filter((i) => !out.refused.includes(i)) : items
    const claims = admitted.filter((i) => i.idempotency)
    const won = new Set(claims.length ? (await claimIdempotencyKeys(tx, claims)).map((r) => `${r.ws}:${r.key}`) : [])
    out.losers = claims.filter((i) => !won.has(`${i.principal.workspaceId}:${i.idempotency!.key}`))
    out.written = admitted.filter((i) => !out.losers.includes(i))
    if (out.written.length) {
      const w = await writeEventBatch(tx, out.written, fresh.filter((c) => !over.has(key(c))))
      out.outcomes = w.outcomes
      out.outboxId = w.outboxId
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
