// The framework's own ceiling: Elysia with a TypeBox schema of the event body
// (the fields of POST /event, compiled by Elysia), answering 200 with a small
// JSON body; no auth, no database. Herald's HTTP path (bench/stub_server.ts)
// is measured against it.
//
//   PORT=0 bun bench/elysia_server.ts   → prints {"port":<n>} once listening
import { Elysia, t } from 'elysia'

const app = new Elysia().post('/event', ({ body }) => ({ workspace: 'bench', channel: body.channel ?? 'general', eventId: crypto.randomUUID(), remainingQuota: 1 }), {
  body: t.Object({
    message: t.String(),
    event: t.Optional(t.String()),
    channel: t.Optional(t.String()),
    title: t.Optional(t.String()),
    link: t.Optional(t.String()),
    tags: t.Optional(t.Array(t.String())),
    data: t.Optional(t.Object({}, { additionalProperties: true })),
  }),
})
app.listen({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', development: false })
console.log(JSON.stringify({ port: app.server!.port }))
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (app.stop(true), process.exit(0)))
