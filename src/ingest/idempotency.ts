// Idempotency-Key: a key is claimed in the batch's transaction, and keeps the
// 200 body of its event for 24 hours; a repeat is answered from it.
import type { Sql, Tx } from '../core/db'
import type { Outcome, SubmitResult, Submission } from './submission'

/** Claims the keys of a batch; returns those this batch won (a key older than 24 h is claimed again). */
export async function claimIdempotencyKeys(tx: Tx, items: Submission[]) {
  const claims = items.map((i) => ({ ws: i.principal.workspaceId, key: i.idempotency!.key, hash: i.idempotency!.hash }))
  return tx<{ ws: number; key: string }[]>`
    INSERT INTO idempotency_keys (workspace_id, key, request_hash)
    SELECT ws, key, decode(hash, 'hex') FROM json_to_recordset(${JSON.stringify(claims)}::text::json) AS c(ws bigint, key text, hash text)
    ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = excluded.request_hash, response = NULL, created_at = now()
      WHERE idempotency_keys.created_at < now() - interval '24 hours'
    RETURNING workspace_id AS ws, key`
}

/** Stores the 200 body of accepted keyed events; releases the keys of refused ones. */
export async function settleIdempotencyKeys(tx: Tx, items: Submission[], res: Outcome[]) {
  const keep: { ws: number; key: string; response: SubmitResult }[] = []
  const drop: { ws: number; key: string }[] = []
  items.forEach((it, i) => {
    if (!it.idempotency) return
    const o = res[i]!
    const ref = { ws: it.principal.workspaceId, key: it.idempotency.key }
    if (o.kind === 'accepted') keep.push({ ...ref, response: o.body })
    else drop.push(ref)
  })
  if (keep.length) {
    await tx`UPDATE idempotency_keys i SET response = k.response
      FROM json_to_recordset(${JSON.stringify(keep)}::text::json) AS k(ws bigint, key text, response jsonb)
      WHERE i.workspace_id = k.ws AND i.key = k.key`
  }
  if (drop.length) {
    await tx`DELETE FROM idempotency_keys i USING json_to_recordset(${JSON.stringify(drop)}::text::json) AS k(ws bigint, key text)
      WHERE i.workspace_id = k.ws AND i.key = k.key`
  }
}

export async function findIdempotencyKeys(sql: Sql, items: Submission[]) {
  const refs = items.map((i) => ({ ws: i.principal.workspaceId, key: i.idempotency!.key }))
  return sql<{ ws: number; key: string; hash: string; response: SubmitResult | null; tokens: number; rate: number; burst: number }[]>`
    SELECT i.workspace_id AS ws, i.key, encode(i.request_hash, 'hex') AS hash, i.response,
      LEAST(w.rate_burst::float8, w.tokens + GREATEST(0, extract(epoch FROM now() - w.tokens_at)::float8) * w.rate_per_second) AS tokens,
      w.rate_per_second AS rate, w.rate_burst AS burst
    FROM idempotency_keys i
    JOIN json_to_recordset(${JSON.stringify(refs)}::text::json) AS k(ws bigint, key text) ON i.workspace_id = k.ws AND i.key = k.key
    JOIN workspaces w ON w.id = i.workspace_id`
}

/** Deletes idempotency keys older than 24 h; they no longer deduplicate anything. */
export const deleteExpiredIdempotencyKeys = (sql: Sql) =>
  sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`
