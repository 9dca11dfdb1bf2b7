// Operator API: the pipeline at a glance, as `herald status` prints it: the
// bus (and JetStream's stream), the outbox backlog, deliveries by state and
// the workspaces nearest their monthly quota. `herald status` reads the same
// from DATABASE_URL and NATS_URL itself when it has them; on the embedded
// default only the running server can read its database, so it asks here.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { EventBus } from '../../delivery/bus'
import type { readDatabaseStatus } from '../../delivery/status'
import { OPERATOR_OFF, operatorDetail as detail } from './admin_auth'

const Count = (description: string) => Type.Integer({ minimum: 0, description })

export const StatusSchema = Type.Object({
  bus: Type.Union([Type.Literal('jetstream'), Type.Literal('in-process')], { description: 'in-process on the embedded default; jetstream with NATS_URL.' }),
  jetstream: Type.Union(
    [
      Type.Object({
        stream: Type.Object({ name: Type.String(), messages: Count('Messages in the stream: each a committed batch of events, or part of a large one.'), events: Count('Events those messages carry.'), bytes: Count('Their size.'), firstSeq: Type.Integer(), lastSeq: Type.Integer(), consumers: Count('Consumers of the stream.') }),
        consumer: Type.Union(
          [Type.Object({
            name: Type.String(), pending: Count('num_pending: messages (batches) not yet handed to a worker.'), ackPending: Count('num_ack_pending: messages handed to workers, not yet acknowledged.'), redelivered: Count('num_redelivered: messages redelivered, not yet acknowledged.'), waiting: Count('Pull requests waiting.'),
            delivered: Count('Deliveries to workers so far, redeliveries included (the delivered consumer sequence): it stands still while no worker takes anything.'),
          }), Type.Null()],
          { description: 'The delivery workers\' consumer: null while no worker has made it.' },
        ),
      }),
      Type.Null(),
    ],
    { description: 'null on the in-process bus.' },
  ),
  outbox: Type.Object({ rows: Count('Outbox rows waiting for the relay.'), events: Count('Events in them.'), oldestAgeSeconds: Type.Number({ minimum: 0, description: 'Age of the oldest row; 0 when empty.' }) }),
  deliveries: Type.Object({
    pendingDue: Count('Pending deliveries whose next attempt is due now.'),
    pendingLater: Count('Pending deliveries waiting for a later attempt.'),
    succeeded: Count("Succeeded deliveries of the last 24 h's events."),
    failed: Count("Failed deliveries of the last 24 h's events."),
  }),
  nearestQuota: Type.Array(
    Type.Object({ workspace: Type.String(), used: Count('Events this month (UTC).'), quota: Count('Monthly quota.'), percent: Type.Number({ description: 'Share used, to one decimal; 100 for a quota of 0.' }) }),
    { description: 'The ten workspaces that used the largest share of their monthly quota, largest first.' },
  ),
}, { $id: 'PipelineStatus' })

/** `readStatus`: the outbox, the deliveries by state and the workspaces nearest their quota (delivery/status.ts). */
export const adminStatusRoute = ({ readStatus, bus }: { readStatus: () => ReturnType<typeof readDatabaseStatus>; bus: Pick<EventBus, 'kind' | 'state'> }) =>
  new Elysia({ name: 'route.admin.status' }).get(
    '/admin/status',
    async () => {
      const [db, jetstream] = await Promise.all([readStatus(), bus.state()])
      return { bus: bus.kind, jetstream, ...db }
    },
    {
      response: { 200: StatusSchema },
      detail: detail('Read the pipeline status', 'What `herald status` prints: the bus, the outbox backlog, deliveries by state and the workspaces nearest their quota.', { 404: OPERATOR_OFF }),
    },
  )
