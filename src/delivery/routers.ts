// Queries on routers, shared by the operator API, the CLI (through it) and the
// delivery pipeline. A router's destination and signing secret are sealed
// together in `secrets` (src/core/secrets.ts); the API only ever reads
// `destination_view`, the redacted copy, so nothing secret leaves this file
// except through loadRouters.
import { randomBytes } from 'node:crypto'
import type postgres from 'postgres'
import type { Sql, Tx } from '../core/db'
import type { SecretBox } from '../core/secrets'
import { redactDestination, type Destination } from './destinations'
import type { Template } from './template'
import type { RouterSpec } from './job'
import { clearRouterHealth, healthColumn, type RouterHealthView } from './health'
import type { Digest, Throttle } from './router_windows'

/** What an operator sees of a router: no URL path, token, password or signing secret. */
export interface RouterView {
  id: string
  name: string
  pattern: string
  destination: Record<string, unknown>
  template: Template | null
  enabled: boolean
  minPriority: number // 1-5: it forwards only events at or above it
  /** Whether it is told when a receipt of an event it forwarded ends (a delivery of kind `receipt`). */
  receipts: boolean
  throttle: Throttle | null
  digest: Digest | null
  /** Null while its destination takes deliveries; else since when it fails, and how (health.ts). */
  health: RouterHealthView | null
  createdAt: string
  updatedAt: string
}

/** What the delivery pipeline needs of an enabled router, secrets decrypted. */
export interface RouterRecord {
  id: string
  name: string
  pattern: string
  destination: Destination
  template?: Template
  signingSecret: string
  minPriority: number
  throttle?: Throttle
  digest?: Digest
  updatedAt: string
}

/** A router as a delivery job carries it (src/delivery/job.ts). */
export const routerSpec = (r: RouterRecord): RouterSpec => ({
  id: r.id, name: r.name, pattern: r.pattern, destination: r.destination, signingSecret: r.signingSecret, ...(r.template ? { template: r.template } : {}),
  ...(r.minPriority > 1 ? { minPriority: r.minPriority } : {}),
  ...(r.throttle ? { throttle: r.throttle } : {}),
  ...(r.digest ? { digest: r.digest } : {}),
})

export interface RouterInput {
  name: string
  pattern: string
  destination: Destination
  template: Template | null
  enabled: boolean
  minPriority: number
  receipts: boolean
  throttle: Throttle | null
  digest: Digest | null
}

/** A PATCH: absent fields are kept; `template: null` clears the template. */
export type RouterPatch = Partial<RouterInput>

/** What `secrets` holds once opened. */
interface SealedSecrets {
  destination: Destination
  signingSecret: string
}

/** A Standard Webhooks signing secret: `whsec_` and base64 of 24 random bytes. */
export const generateSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`

// postgres.js sends a Buffer as bytea; the box's Uint8Array would go as text.
const seal = (box: SecretBox, value: SealedSecrets) => Buffer.from(box.seal(value))

const jsonb = (sql: Tx, value: object) => sql.json(value as postgres.JSONValue)

// A path parameter that is not a UUID would make PostgreSQL fail the query
// (22P02); such a router cannot exist, so callers answer 404 without asking.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isRouterId = (id: string) => UUID.test(id)

const viewColumns = (sql: Tx) => sql`
  id::text AS id, name, pattern, destination_view AS destination, template, enabled, min_priority AS "minPriority", receipts, throttle, digest, ${healthColumn(sql)},
  iso_time(created_at) AS "createdAt", iso_time(updated_at) AS "updatedAt"`

/** Creates a router with a new signing secret. Returns null when the name is taken in the workspace. */
/**
 * Creates a router unless its name is taken or the workspace has `max`
 * routers already. The count and the insert run under the workspace's router
 * lock, in a statement that starts once the lock is held, so two creations at
 * once on any instances cannot both take the last place.
 */
export async function insertRouter(sql: Sql, box: SecretBox, workspaceId: number, input: RouterInput, max: number): Promise<{ id: string; secret: string } | 'name-taken' | 'limit'> {
  const id = Bun.randomUUIDv7()
  const signingSecret = generateSigningSecret()
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.routers', ${workspaceId}))`
    const [row] = await tx<{ id: string | null; ok: boolean }[]>`
      WITH room AS (SELECT count(*) < ${max} AS ok FROM routers WHERE workspace_id = ${workspaceId}),
      ins AS (
        INSERT INTO routers (id, workspace_id, name, pattern, destination_type, destination_view, secrets, template, enabled, min_priority, receipts, throttle, digest)
        SELECT ${id}, ${workspaceId}, ${input.name}, ${input.pattern}, ${input.destination.type},
          ${jsonb(tx, redactDestination(input.destination))}, ${seal(box, { destination: input.destination, signingSecret })},
          ${input.template ? jsonb(tx, input.template) : null}, ${input.enabled}, ${input.minPriority}, ${input.receipts},
          ${input.throttle ? jsonb(tx, input.throttle) : null}, ${input.digest ? jsonb(tx, input.digest) : null}
        FROM room WHERE room.ok
        ON CONFLICT (workspace_id, name) DO NOTHING
        RETURNING id
      )
      SELECT (SELECT id FROM ins) AS id, (SELECT ok FROM room) AS ok`
    if (row!.id) return { id, secret: signingSecret }
    return row!.ok ? 'name-taken' : 'limit'
  })
}

export const listRouters = (sql: Tx, workspaceId: number) =>
  sql<RouterView[]>`SELECT ${viewColumns(sql)} FROM routers WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`

export async function getRouter(sql: Tx, workspaceId: number, id: string): Promise<RouterView | null> {
  if (!isRouterId(id)) return null
  const [row] = await sql<RouterView[]>`SELECT ${viewColumns(sql)} FROM routers WHERE workspace_id = ${workspaceId} AND id = ${id}`
  return row ?? null
}

/**
 * Applies a PATCH. A new destination replaces the old one whole and is sealed
 * again with the router's signing secret, which never changes (so two
 * concurrent PATCHes cannot disagree about it and need no lock).
 */
export async function updateRouter(sql: Tx, box: SecretBox, workspaceId: number, id: string, patch: RouterPatch): Promise<RouterView | 'not-found' | 'name-taken' | 'both-windows'> {
  if (!isRouterId(id)) return 'not-found'
  let destination = sql``
  if (patch.destination) {
    const [row] = await sql<{ secrets: Uint8Array }[]>`SELECT secrets FROM routers WHERE workspace_id = ${workspaceId} AND id = ${id}`
    if (!row) return 'not-found'
    const { signingSecret } = box.open<SealedSecrets>(row.secrets)
    destination = sql`
      destination_type = ${patch.destination.type},
      destination_view = ${jsonb(sql, redactDestination(patch.destination))},
      secrets = ${seal(box, { destination: patch.destination, signingSecret })},`
  }
  try {
    const [row] = await sql<RouterView[]>`
      UPDATE routers SET
        name = COALESCE(${patch.name ?? null}::text, name),
        pattern = COALESCE(${patch.pattern ?? null}::text, pattern),
        enabled = COALESCE(${patch.enabled ?? null}::boolean, enabled),
        min_priority = COALESCE(${patch.minPriority ?? null}::smallint, min_priority),
        receipts = COALESCE(${patch.receipts ?? null}::boolean, receipts),
        template = ${patch.template === undefined ? sql`template` : patch.template ? jsonb(sql, patch.template) : null},
        throttle = ${patch.throttle === undefined ? sql`throttle` : patch.throttle ? jsonb(sql, patch.throttle) : null},
        digest = ${patch.digest === undefined ? sql`digest` : patch.digest ? jsonb(sql, patch.digest) : null},
        ${destination}
        updated_at = now()
      WHERE workspace_id = ${workspaceId} AND id = ${id}
      RETURNING ${viewColumns(sql)}`
    // Enabled again, or sent elsewhere: its failing state is the old one's.
    if (row && (patch.enabled === true || patch.destination)) {
      await clearRouterHealth(sql, id)
      row.health = null
    }
    return row ?? 'not-found'
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'name-taken' // UNIQUE (workspace_id, name)
    // The other one is set already (postgres.js names the constraint in constraint_name, PGlite only in its message).
    if ((err as { code?: string }).code === '23514' && /routers_one_window/.test(`${(err as Error).message} ${(err as { constraint_name?: string }).constraint_name ?? ''}`)) return 'both-windows'
    throw err
  }
}

/** Deletes a router; true when it existed. Its past deliveries stay, and keep its id. */
export async function deleteRouter(sql: Tx, workspaceId: number, id: string): Promise<boolean> {
  if (!isRouterId(id)) return false
  const rows = await sql`DELETE FROM routers WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`
  return rows.length > 0
}

/** A router's row as the pipeline reads it. */
interface StoredRouter {
  id: string
  name: string
  pattern: string
  secrets: Uint8Array
  template: Template | null
  minPriority: number
  throttle: Throttle | null
  digest: Digest | null
  updatedAt: string
}

const windowsOf = (r: StoredRouter) => ({ ...(r.throttle ? { throttle: r.throttle } : {}), ...(r.digest ? { digest: r.digest } : {}) })

/** The enabled routers of a workspace with their secrets opened, oldest first, for the delivery pipeline. */
export async function loadRouters(sql: Tx, box: SecretBox, workspaceId: number): Promise<RouterRecord[]> {
  const rows = await sql<StoredRouter[]>`
    SELECT id::text AS id, name, pattern, secrets, template, min_priority AS "minPriority", throttle, digest, to_json(updated_at)#>>'{}' AS "updatedAt"
    FROM routers WHERE workspace_id = ${workspaceId} AND enabled ORDER BY created_at, id`
  return rows.map((r) => {
    let opened: SealedSecrets
    try {
      opened = box.open<SealedSecrets>(r.secrets)
    } catch (err) {
      // Every router was sealed under one key: this means HERALD_SECRET_KEY
      // (or HERALD_DATA_DIR/secret.key) is not the key the routers were saved with.
      throw new Error(`cannot decrypt the secrets of router ${r.id}: is HERALD_SECRET_KEY the key it was saved with? (${(err as Error).message})`)
    }
    return {
      id: r.id,
      name: r.name,
      pattern: r.pattern,
      destination: opened.destination,
      ...(r.template ? { template: r.template } : {}),
      signingSecret: opened.signingSecret,
      minPriority: r.minPriority,
      ...windowsOf(r),
      updatedAt: r.updatedAt,
    }
  })
}

/** One router with its secrets opened, enabled or not (a test send from the dashboard), or null. */
export async function loadRouter(sql: Tx, box: SecretBox, workspaceId: number, id: string): Promise<RouterRecord | null> {
  if (!isRouterId(id)) return null
  const [r] = await sql<StoredRouter[]>`
    SELECT id::text AS id, name, pattern, secrets, template, min_priority AS "minPriority", throttle, digest, to_json(updated_at)#>>'{}' AS "updatedAt"
    FROM routers WHERE workspace_id = ${workspaceId} AND id = ${id}`
  if (!r) return null
  const opened = box.open<SealedSecrets>(r.secrets)
  return { id: r.id, name: r.name, pattern: r.pattern, destination: opened.destination, ...(r.template ? { template: r.template } : {}), signingSecret: opened.signingSecret, minPriority: r.minPriority, ...windowsOf(r), updatedAt: r.updatedAt }
}
