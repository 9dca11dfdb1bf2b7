// The destination registry (src/delivery/destinations): each type is one
// object, complete and consistent with its schema, and every table of types
// is the registry's: the API takes exactly its types, the OpenAPI document
// shows each schema, the dashboard's bundle carries its forms (and none of
// its send code), the CLI has its URL flags, docs/routers.md its table.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { Value } from '@sinclair/typebox/value'
import { DESTINATIONS, DESTINATION_TYPES, Destination, destinationForms, destinationHost, destinationSecrets, previewPayload, redactDestination } from '../../src/delivery/destinations'
import type { AnyDestinationType, DestinationType, FieldKey } from '../../src/delivery/destinations/destination'
import { slack } from '../../src/delivery/destinations/slack'
import { ROUTERS_DOC, TABLE_END, TABLE_START, destinationsTable } from '../../src/delivery/destinations/docs'
import { sampleEvent } from '../../src/delivery/router_ops'
import { useTestHerald } from '../harness'
import { expectFieldError, schemaIn } from '../support'
import { herald as cli } from '../cli/run'

interface JsonSchema {
  type?: string
  const?: unknown
  properties?: Record<string, JsonSchema>
  required?: string[]
  examples?: unknown[]
}

/** The registry as the tables hold it. */
const TYPES: readonly AnyDestinationType[] = DESTINATIONS
const schemaOf = (d: AnyDestinationType) => d.schema as unknown as JsonSchema
const exampleOf = (d: AnyDestinationType) => schemaOf(d).examples?.[0] as Destination

/** The schema of a dotted field key, and whether every step to it is required. */
function propertyAt(schema: JsonSchema, key: string): { schema: JsonSchema; required: boolean } | undefined {
  let at: JsonSchema | undefined = schema
  let required = true
  for (const part of key.split('.')) {
    required &&= at?.required?.includes(part) ?? false
    at = at?.properties?.[part]
    if (!at) return undefined
  }
  return { schema: at!, required }
}

// The compiler holds every type object to the interface: these must not type-check.
// @ts-expect-error a type without `send`
const noSend: DestinationType<typeof slack.schema> = (({ send: _send, ...rest }) => rest)(slack)
// @ts-expect-error a type whose name is not its schema's literal
const misnamed: DestinationType<typeof slack.schema> = { ...slack, type: 'slak' }
// @ts-expect-error a field naming what the schema lacks
const stray: FieldKey<Extract<Destination, { type: 'email' }>> = 'smtp.token'
void [noSend, misnamed, stray]

describe('the destination registry', () => {
  test('each type is named once, by its schema too, and has a label, a description and an example its schema accepts', () => {
    expect(new Set(DESTINATION_TYPES).size).toBe(DESTINATIONS.length)
    for (const d of TYPES) {
      const schema = schemaOf(d)
      expect({ type: d.type, literal: schema.properties?.type?.const, required: schema.required?.includes('type') }).toEqual({ type: d.type, literal: d.type, required: true })
      expect(d.label.length).toBeGreaterThan(0)
      expect(d.description.length).toBeGreaterThan(20)
      const example = exampleOf(d)
      expect({ type: d.type, valid: Value.Check(d.schema, example), union: Value.Check(Destination, example) }).toEqual({ type: d.type, valid: true, union: true })
    }
  })

  test("each type's form fields name properties of its schema, say which are required, and cover every required property", () => {
    for (const d of TYPES) {
      const schema = schemaOf(d)
      for (const f of d.fields) {
        const property = propertyAt(schema, f.key)
        expect({ type: d.type, field: f.key, named: property !== undefined }).toEqual({ type: d.type, field: f.key, named: true })
        expect({ type: d.type, field: f.key, required: !!f.required }).toEqual({ type: d.type, field: f.key, required: property!.required })
        expect(f.label.length).toBeGreaterThan(0)
      }
      const missing = (schema.required ?? []).filter((p) => p !== 'type' && !d.fields.some((f) => f.key === p || f.key.startsWith(`${p}.`)))
      expect({ type: d.type, missing }).toEqual({ type: d.type, missing: [] })
      expect(new Set(d.fields.map((f) => f.key)).size).toBe(d.fields.length)
    }
  })

  test('a type with a CLI flag is one URL: --<type> URL stands for {"type", "url"}', () => {
    const flagged = TYPES.filter((d) => d.flag !== undefined)
    expect(flagged.length).toBeGreaterThan(0)
    for (const d of flagged) {
      expect({ type: d.type, required: schemaOf(d).required }).toEqual({ type: d.type, required: ['type', 'url'] })
      expect(Value.Check(d.schema, { type: d.type, url: 'https://example.com/x' })).toBe(true)
    }
  })

  test('each type previews a sample event, from its example and from a half-filled form (its stand-ins)', () => {
    const event = sampleEvent('acme', 'general')
    for (const d of TYPES) {
      for (const destination of [exampleOf(d), { type: d.type, ...d.previewDefaults } as Destination]) {
        const p = previewPayload(destination, undefined, event, 'Herald <herald@example.com>')
        expect({ type: d.type, contentType: p.contentType.length > 0, message: p.body.includes('Jane Doe signed up for the Pro plan') }).toEqual({ type: d.type, contentType: true, message: true })
      }
      // Every required property has a stand-in, so that a form with nothing filled in previews.
      const missing = (schemaOf(d).required ?? []).filter((p) => p !== 'type' && !(p in d.previewDefaults))
      expect({ type: d.type, missing }).toEqual({ type: d.type, missing: [] })
    }
  })

  test("each type's redacted view keeps none of what its secrets name, and its host is a host[:port]", () => {
    const endpoints = { telegram: 'https://api.telegram.org', twilio: 'https://api.twilio.com:8443', smtpUrl: 'smtp://mail.example.com:2525' }
    for (const d of TYPES) {
      const example = exampleOf(d)
      const view = JSON.stringify(redactDestination(example))
      const { urls, values } = destinationSecrets(example)
      for (const secret of [...values, ...urls.map((u) => new URL(u).pathname).filter((p) => p.length > 1)]) {
        expect({ type: d.type, secret, shown: view.includes(secret) }).toEqual({ type: d.type, secret, shown: false })
      }
      expect(JSON.parse(view).type).toBe(d.type)
      expect(destinationHost(example, endpoints)).toMatch(/^[a-z0-9.-]+(:\d+)?$/)
    }
  })

  test('docs/routers.md holds the table generated from the registry (bun src/delivery/destinations/docs.ts rewrites it)', () => {
    const doc = readFileSync(ROUTERS_DOC, 'utf8')
    const start = doc.indexOf(TABLE_START)
    const end = doc.indexOf(TABLE_END)
    expect(start).toBeGreaterThan(-1)
    expect(end).toBeGreaterThan(start)
    expect(doc.slice(start + TABLE_START.length, end).trim()).toBe(destinationsTable())
    for (const d of DESTINATIONS) expect(destinationsTable()).toContain(`| \`${d.type}\` |`)
  })

  test('router create --help has the flag of each URL type, with its help', async () => {
    const help = (await cli(['router', 'create', '--help'])).stdout.replace(/\s+/g, ' ')
    for (const d of DESTINATIONS) if (d.flag) expect(help).toContain(`--${d.type} <url> ${d.flag}`)
  })
})

describe('the tables built from the registry, in a running Herald', () => {
  const h = useTestHerald('embedded')

  test('the operator API creates a router of each type, and refuses any other type, naming exactly the registry\'s', async () => {
    const { name: ws } = await h.workspace()
    for (const d of TYPES) {
      const res = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: `r-${d.type}`, pattern: '*', destination: exampleOf(d) })
      expect({ type: d.type, status: res.status }).toEqual({ type: d.type, status: 201 })
    }
    const refused = await expectFieldError(await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: 'fax', pattern: '*', destination: { type: 'fax' } }), '/destination/type')
    expect(refused.detail).toBe(`destination.type: Expected one of ${DESTINATIONS.map((d) => d.type).join(', ')}, got "fax"`)
    const list = (await (await h.admin('GET', `/admin/workspaces/${ws}/routers`)).json()) as { destination: { type: string } }[]
    expect(list.map((r) => r.destination.type)).toEqual([...DESTINATION_TYPES])
  })

  test("the OpenAPI document's router bodies take exactly the registry's schemas, each with its example", async () => {
    const doc = await (await fetch(`${h.url}/openapi.json`)).json()
    for (const body of ['CreateRouterBody', 'UpdateRouterBody']) {
      const destination = schemaIn(doc, schemaIn(doc, doc.components.schemas[body]).properties.destination) as { oneOf: JsonSchema[] }
      const members = destination.oneOf.map((s) => schemaIn(doc, s) as JsonSchema)
      expect(members.map((s) => s.properties?.type?.const)).toEqual([...DESTINATION_TYPES])
      expect(members.map((s) => s.examples?.[0])).toEqual(TYPES.map(exampleOf))
    }
  })

  test("the dashboard's bundle carries every type's form, and none of their send code", async () => {
    const shell = await (await fetch(`${h.url}/`)).text()
    const script = /\/assets\/app\.[0-9a-f]+\.js/.exec(shell)?.[0]
    expect(script).toBeDefined()
    const bundle = await (await fetch(h.url + script)).text()
    for (const form of destinationForms()) {
      expect(bundle).toContain(JSON.stringify(form.label))
      for (const f of form.fields) expect(bundle).toContain(JSON.stringify(f.label))
    }
    // Strings of the send code: the e-mail header, Telegram's API path, Slack's Block Kit.
    for (const server of ['X-Herald-Delivery', '/sendMessage', 'plain_text', 'nodemailer']) expect({ server, inBundle: bundle.includes(server) }).toEqual({ server, inBundle: false })
  })
})
