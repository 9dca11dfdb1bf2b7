// GET /events/{eventId}: an event as stored, read with the workspace's API key.
import { Elysia } from 'elysia'
import { Type, type Static } from '@sinclair/typebox'
import type { Sql } from '../db'
import type { ApiKeyAuth } from '../auth'
import { HeraldError } from '../problems'
import { unauthorized, uuidv7Time } from './event'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

export const StoredEvent = Type.Object({
  eventId: Type.String({ format: 'uuid' }),
  workspace: Type.String(),
  channel: Type.String(),
  event: Type.Union([Type.String(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  link: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  data: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
})

/** The event as stored, or null. The id carries the creation time, which picks the partition. */
export async function findEvent(sql: Sql, workspaceId: number, eventId: string): Promise<Static<typeof StoredEvent> | null> {
  if (!UUID.test(eventId)) return null
  const [row] = await sql<Static<typeof StoredEvent>[]>`
    SELECT e.id AS "eventId", w.name AS workspace, e.channel, e.event, e.title, e.message, e.link, e.tags, e.data, to_json(e.created_at)#>>'{}' AS "createdAt"
    FROM events e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${eventId} AND e.created_at = ${uuidv7Time(eventId)}`
  return row ?? null
}

export const eventReadRoute = (sql: Sql, auth: ApiKeyAuth) =>
  new Elysia({ name: 'route.event.read' }).get(
    '/events/:eventId',
    async ({ params, request }) => {
      const principal = await auth.verify(request.headers.get('authorization'))
      if (!principal) throw unauthorized()
      const event = await findEvent(sql, principal.workspaceId, params.eventId)
      if (!event) throw new HeraldError('not-found', 'There is no event with this id in this workspace.')
      return event
    },
    {
      params: Type.Object({ eventId: Type.String({ description: 'The eventId returned by POST /event.' }) }),
      response: { 200: StoredEvent },
      detail: { summary: 'Read an event as stored (after truncation)', tags: ['Events'], security: [{ apiKey: [] }] },
    },
  )
