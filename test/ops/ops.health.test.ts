// Operations endpoints: liveness, readiness, the generated OpenAPI document
// and its HTML rendering at /docs.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { expectProblem, schemaIn, send, vias } from '../support'

describe.each(backends)('operations endpoints on %s', (backend) => {
  const h = useTestHerald(backend)

  describe.each(vias)('via %s', (via) => {
    test('GET /healthz is 200 without authentication', async () => {
      const res = await send(h, via, '/healthz')
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ status: 'ok' })
    })

    test('GET /readyz is 200 while the database answers', async () => {
      const res = await send(h, via, '/readyz')
      expect(res.status).toBe(200)
      expect((await res.json()).status).toBe('ready')
    })

    test('GET /openapi.json documents POST /event with its request body schema', async () => {
      const res = await send(h, via, '/openapi.json')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('json')
      const doc = await res.json()
      expect(doc.openapi).toMatch(/^3\./)
      const post = doc.paths?.['/event']?.post
      expect(post).toBeDefined()
      const schema = schemaIn(doc, post.requestBody.content['application/json'].schema)
      expect(schema.type).toBe('object')
      expect(schema.required).toEqual(['message'])
      expect(Object.keys(schema.properties).sort()).toEqual(['ack', 'channel', 'collapseKey', 'data', 'delay', 'deliverAt', 'event', 'link', 'message', 'priority', 'tags', 'title', 'to', 'ttl'])
      expect(schema.properties.message.type).toBe('string')
      for (const code of ['200', '400', '401', '413', '429']) expect(post.responses).toHaveProperty(code)
      const ok = schemaIn(doc, post.responses['200'].content['application/json'].schema)
      expect(Object.keys(ok.properties).sort()).toEqual(['channel', 'errors', 'eventId', 'receipt', 'remainingQuota', 'scheduledFor', 'workspace'])
    })

    test('GET /openapi.json documents reading an event and the operator API', async () => {
      const doc = await (await send(h, via, '/openapi.json')).json()
      const paths = Object.keys(doc.paths)
      expect(paths.some((p) => /^\/events\/\{[^}]+\}$/.test(p))).toBe(true)
      expect(doc.paths['/admin/workspaces']?.post).toBeDefined()
    })

    test('GET /docs is an HTML page that describes POST /event', async () => {
      const res = await send(h, via, '/docs')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('text/html')
      const html = await res.text()
      expect(html.toLowerCase()).toStartWith('<!doctype html>')
      expect(html).toContain('/event')
      expect(html).toContain('Submit an event') // its summary, listed for a browser without JavaScript
      // Self-contained: no scripts or styles from a CDN.
      expect(html).not.toMatch(/<script[^>]+src=["']https?:/i)
    })

    test('an unknown path is a 404 problem', async () => {
      await expectProblem(await send(h, via, '/no/such/path'), 404)
    })
  })

  // Runs last: it stops the server. afterAll's close() then finds it stopped.
  test('GET /readyz is 503 once the server is shutting down', async () => {
    await h.stop()
    const res = await h.app.handle(new Request('http://localhost/readyz'))
    expect(res.status).toBe(503)
  })
})
