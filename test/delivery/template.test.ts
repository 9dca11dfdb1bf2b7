// Router templates (docs/routers.md, "Templates"): the variables, missing ones as
// '', JSON-safe escaping in webhook bodies, and no way to run code.
import { describe, expect, test } from 'bun:test'
import { renderMessage, renderTemplate, validateTemplate } from '../../src/delivery/template'
import type { EventView } from '../../src/delivery/event_view'
import { eventView } from '../support'

const event = (over: Partial<EventView> = {}): EventView =>
  eventView({ data: { plan: 'pro', seats: 5, paid: true, user: { name: 'Jane', address: { city: 'Oslo' } }, items: [{ sku: 'a' }, { sku: 'b' }] }, ...over })

describe('variables', () => {
  test('every top-level variable renders', () => {
    const t = '{{message}}|{{title}}|{{event}}|{{channel}}|{{workspace}}|{{link}}|{{tags}}|{{eventId}}|{{createdAt}}'
    expect(renderTemplate(t, event(), 'text')).toBe(
      'Jane Doe signed up|New user|user.signup|signups|acme|https://example.com/users/42|signup, web|0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b|2026-01-02T03:04:05.678Z',
    )
  })

  test('data.<path> reaches nested fields, numbers, booleans and array items', () => {
    const t = '{{data.plan}} {{data.seats}} {{data.paid}} {{data.user.address.city}} {{data.items.1.sku}} {{data.items.length}}'
    expect(renderTemplate(t, event(), 'text')).toBe('pro 5 true Oslo b 2')
  })

  test('objects render as their JSON text', () => {
    expect(renderTemplate('{{data.user.address}}', event(), 'text')).toBe('{"city":"Oslo"}')
    expect(renderTemplate('{{data.items}}', event(), 'text')).toBe('[{"sku":"a"},{"sku":"b"}]')
  })

  test('a missing variable, a missing path and a null field render as an empty string', () => {
    const e = event({ title: null, link: null, data: null })
    expect(renderTemplate('[{{nope}}][{{data.plan}}][{{title}}][{{link}}][{{data.a.b.c}}]', e, 'text')).toBe('[][][][][]')
    expect(renderTemplate('[{{data.user.nope}}][{{data.plan.x}}]', event(), 'json')).toBe('[][]')
  })

  test('sections iterate arrays and test presence', () => {
    const e = event()
    expect(renderTemplate('{{#tags}}<{{.}}>{{/tags}}', e, 'text')).toBe('<signup><web>')
    expect(renderTemplate('{{#data.items}}{{sku}};{{/data.items}}', e, 'text')).toBe('a;b;')
    expect(renderTemplate('{{#data.user}}{{name}} from {{address.city}} on {{channel}}{{/data.user}}', e, 'text')).toBe('Jane from Oslo on signups')
    expect(renderTemplate('{{^data.nope}}none{{/data.nope}}{{^tags}}no tags{{/tags}}', e, 'text')).toBe('none')
    expect(renderTemplate('{{^tags}}no tags{{/tags}}', event({ tags: [] }), 'text')).toBe('no tags')
  })

  test('to: the recipients\' user ids of an event sent to people; nothing for the channel\'s', () => {
    const to = ['0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e', '0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8f']
    expect(renderTemplate('{{#to}}<{{.}}>{{/to}}{{^to}}everyone{{/to}}', event({ to }), 'text')).toBe(`<${to[0]}><${to[1]}>`)
    expect(renderTemplate('{{#to}}<{{.}}>{{/to}}{{^to}}everyone{{/to}}', event(), 'text')).toBe('everyone')
  })
})

describe('JSON mode keeps a webhook body valid JSON', () => {
  const hostile = [
    'say "hi"',
    'back\\slash \\" \\\\',
    'line\nbreak\r\ttab',
    '</script><script>alert(1)</script>',
    'unicode: é ü 日本語 🎉 \u2028\u2029',
    'control: \u0000\u0001\u001f',
    '{{message}}',
    '"}, "injected": true, "x": {"',
  ]
  for (const value of hostile) {
    test(`value ${JSON.stringify(value)}`, () => {
      const e = event({ message: value, title: value, tags: [value, 'b'], data: { v: value, nested: { v: value } } })
      const body = renderTemplate('{"m":"{{message}}","t":"{{{title}}}","a":"{{& data.v}}","n":"{{data.nested}}","tags":"{{tags}}"}', e, 'json')
      const parsed = JSON.parse(body)
      expect(Object.keys(parsed)).toEqual(['m', 't', 'a', 'n', 'tags'])
      expect(parsed.m).toBe(value)
      expect(parsed.t).toBe(value)
      expect(parsed.a).toBe(value)
      expect(JSON.parse(parsed.n)).toEqual({ v: value })
      expect(JSON.parse(parsed.tags)).toEqual([value, 'b'])
    })
  }

  test('numbers and booleans can sit outside quotes', () => {
    expect(JSON.parse(renderTemplate('{"seats":{{data.seats}},"paid":{{data.paid}}}', event(), 'json'))).toEqual({ seats: 5, paid: true })
  })

  test('text mode leaves values as they are', () => {
    expect(renderTemplate('{{message}} {{{message}}}', event({ message: 'a "b" <c>' }), 'text')).toBe('a "b" <c> a "b" <c>')
  })
})

describe('a template can never run code', () => {
  test('inherited properties are not variables', () => {
    const t = '[{{constructor}}][{{data.constructor}}][{{data.constructor.constructor}}][{{message.constructor.name}}][{{data.hasOwnProperty}}][{{data.__proto__}}][{{toString}}]'
    expect(renderTemplate(t, event(), 'text')).toBe('[][][][][][][]')
  })

  test('a section over Function does not call it', () => {
    const t = '{{#data.constructor.constructor}}globalThis.ranCode = true{{/data.constructor.constructor}}{{#constructor.constructor}}x{{/constructor.constructor}}'
    expect(renderTemplate(t, event(), 'text')).toBe('')
    expect((globalThis as Record<string, unknown>).ranCode).toBeUndefined()
  })

  test('functions in data are never called', () => {
    let called = false
    const fn = () => {
      called = true
      return 'ran'
    }
    const t = '[{{data.fn}}][{{#data.fn}}body{{/data.fn}}][{{data.fn.name}}]'
    expect(renderTemplate(t, event({ data: { fn } }), 'text')).toBe('[][][]')
    expect(called).toBe(false)
  })

  test('event data that looks like a template is not rendered again', () => {
    expect(renderTemplate('{{message}}', event({ message: '{{eventId}} {{#tags}}x{{/tags}}' }), 'text')).toBe('{{eventId}} {{#tags}}x{{/tags}}')
  })

  test('partials render empty', () => {
    expect(renderTemplate('a{{> message}}b{{>data}}c', event(), 'text')).toBe('abc')
  })

  test('comments and delimiter changes render nothing', () => {
    expect(renderTemplate('{{! note }}{{=<% %>=}}<% channel %>', event(), 'text')).toBe('signups')
  })
})

describe('validateTemplate', () => {
  test('accepts templates that parse', () => {
    for (const t of ['', 'plain', '{{message}}', '{{#tags}}{{.}}{{/tags}}', '{{{title}}} {{&title}}', '{{> p}}']) expect(validateTemplate(t)).toBeNull()
  })

  test('names what is wrong', () => {
    expect(validateTemplate('hello {{message')).toMatch(/unclosed tag/i)
    expect(validateTemplate('{{#tags}}x')).toMatch(/unclosed section "tags"/i)
    expect(validateTemplate('x{{/tags}}')).toMatch(/unopened section "tags"/i)
    expect(validateTemplate('{{#a}}{{/b}}')).toMatch(/unclosed section "a"/i)
  })

  test('renderTemplate throws on what validateTemplate refuses', () => {
    expect(() => renderTemplate('{{#a}}', event(), 'text')).toThrow()
  })
})

describe('renderMessage', () => {
  test('defaults: title, else event, else "New event"; body is the message', () => {
    expect(renderMessage(event(), undefined)).toEqual({ title: 'New user', body: 'Jane Doe signed up', link: 'https://example.com/users/42' })
    expect(renderMessage(event({ title: null }), undefined).title).toBe('user.signup')
    expect(renderMessage(event({ title: null, event: null }), undefined).title).toBe('New event')
  })

  test('templates override, in text mode; a blank rendering falls back to the default', () => {
    const m = renderMessage(event(), { title: '{{data.plan}} "plan"', body: '{{data.missing}}' })
    expect(m.title).toBe('pro "plan"')
    expect(m.body).toBe('Jane Doe signed up')
  })
})
