// POST /event in the style of ntfy: a text body is the message, and the
// Title, Priority, Tags, Channel, Event and Click headers (or their X-
// spellings, which win) the other fields; curl's default form type is read
// the same way. What a careless producer sends gets a clear answer: a JSON
// object as text, bytes that are not UTF-8, a bad header named as the
// header, a misspelled JSON field with the field it meant, a JSON body with
// text headers (said to be ignored), and GET on the route (405, Allow: POST).
import { beforeAll, describe, expect, test } from 'bun:test'
import { useTestHerald } from '../harness'

type Stored = { message: string; title: string | null; priority: number; tags: string[]; channel: string; event: string | null; link: string | null }
type Problem = { type: string; detail: string; errors?: { pointer?: string; parameter?: string; detail: string }[] }

describe('POST /event with a text body (embedded)', () => {
  const h = useTestHerald('embedded')
  let apiKey = ''
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  })
  const send = (body: BodyInit, headers: Record<string, string>) =>
    fetch(`${h.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, ...headers }, body })
  const stored = async (eventId: string) =>
    (await (await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as Stored

  test('curl -d "Backup done", as ntfy takes it: 200, the message stored, the default channel', async () => {
    const proc = Bun.spawn(['curl', '-s', '-w', '\n%{http_code}', '-d', 'Backup done', '-H', `Authorization: Bearer ${apiKey}`, '-H', 'Priority: high', '-H', 'Tags: backup, nightly', `${h.url}/event`], { stdout: 'pipe' })
    const out = await new Response(proc.stdout).text()
    const [json, status] = [out.slice(0, out.lastIndexOf('\n')), out.slice(out.lastIndexOf('\n') + 1)]
    expect(status).toBe('200')
    const answer = JSON.parse(json) as { eventId: string; channel: string; errors?: string[] }
    expect(answer.channel).toBe('general')
    expect(answer.errors).toBeUndefined()
    expect(await stored(answer.eventId)).toMatchObject({ message: 'Backup done', priority: 4, tags: ['backup', 'nightly'], title: null })
  })

  test('every header gives its field; an X- spelling wins over the plain one; trailing whitespace is dropped', async () => {
    const res = await send('Disk at 91%\n\n', {
      'content-type': 'text/plain; charset=utf-8',
      Title: 'ignored: X-Title wins', 'X-Title': 'Disk almost full', Priority: '5', Tags: 'disk,, ops ', Channel: 'Alerts', Event: 'disk.full', Click: 'https://grafana.example.com/d/disk',
    })
    expect(res.status).toBe(200)
    const answer = (await res.json()) as { eventId: string; channel: string }
    expect(answer.channel).toBe('alerts')
    expect(await stored(answer.eventId)).toMatchObject({ message: 'Disk at 91%', title: 'Disk almost full', priority: 5, tags: ['disk', 'ops'], channel: 'alerts', event: 'disk.full', link: 'https://grafana.example.com/d/disk' })
  })

  test('non-ASCII headers: raw UTF-8 bytes (curl -H "Title: Café") and RFC 2047 encoded words; ntfy\'s priority names', async () => {
    const raw = Buffer.from('Café ☕', 'utf8').toString('latin1') // the bytes curl sends
    const a = await send('one', { 'content-type': 'text/plain', Title: raw, Priority: 'max' })
    expect(a.status).toBe(200)
    expect(await stored(((await a.json()) as { eventId: string }).eventId)).toMatchObject({ title: 'Café ☕', priority: 5 })
    const b = await send('two', { 'content-type': 'text/plain', 'X-Title': `=?UTF-8?B?${Buffer.from('Déjà vu', 'utf8').toString('base64')}?=`, Priority: 'Low' })
    expect(b.status).toBe(200)
    expect(await stored(((await b.json()) as { eventId: string }).eventId)).toMatchObject({ title: 'Déjà vu', priority: 2 })
    const c = await send('Grüße', { 'content-type': 'text/plain', Title: '=?utf-8?q?caf=C3=A9_au_lait?=' })
    expect(await stored(((await c.json()) as { eventId: string }).eventId)).toMatchObject({ message: 'Grüße', title: 'café au lait' })
  })

  test('bad input is a 400 in the request\'s own terms: the header at fault, the body as the message; nothing is stored', async () => {
    const before = (await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events`)[0]!.n
    const cases: [BodyInit, Record<string, string>, number, (p: Problem) => void][] = [
      ['x', { 'content-type': 'text/plain', Priority: '9' }, 400, (p) => expect(p.errors).toEqual([{ parameter: 'Priority', detail: expect.stringMatching(/^the Priority header: priority must be an integer from 1 to 5/) }])],
      ['x', { 'content-type': 'text/plain', 'X-Channel': 'Not a slug!' }, 400, (p) => expect(p.errors?.[0]).toMatchObject({ parameter: 'X-Channel', detail: expect.stringMatching(/^the X-Channel header: channel must be a slug/) })],
      ['x', { 'content-type': 'text/plain', Click: 'javascript:alert(1)' }, 400, (p) => expect(p.errors?.[0]).toMatchObject({ parameter: 'Click' })],
      [' \n ', { 'content-type': 'text/plain' }, 400, (p) => expect(p.errors).toEqual([{ pointer: '', detail: 'the message (the body) must not be empty' }])],
      [new Uint8Array([0x66, 0xff, 0xfe]), { 'content-type': 'text/plain' }, 400, (p) => expect(p.errors?.[0]?.detail).toBe('the message (the body) must be UTF-8 text')],
      // A browser's fetch gives a string body this type: the JSON is not taken as the message.
      [JSON.stringify({ message: 'hi' }), { 'content-type': 'text/plain;charset=UTF-8' }, 400, (p) => expect(p.detail).toMatch(/JSON object sent as text: send it with Content-Type: application\/json/)],
      ['<p>hi</p>', { 'content-type': 'text/html' }, 400, (p) => expect(p.detail).toMatch(/application\/json, or text\/plain for a message alone/)],
    ]
    for (const [body, headers, status, check] of cases) {
      const res = await send(body, headers)
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      check((await res.json()) as Problem)
    }
    expect((await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events`)[0]!.n).toBe(before)
  })

  test('an Idempotency-Key covers the text and its headers: a retry is the same event, another title a 422', async () => {
    const headers = { 'content-type': 'text/plain', Title: 'Deploy', 'idempotency-key': `plain-${Date.now()}` }
    const first = (await (await send('v1.2 is live', headers)).json()) as { eventId: string }
    const again = await send('v1.2 is live', headers)
    expect(again.status).toBe(200)
    expect(((await again.json()) as { eventId: string }).eventId).toBe(first.eventId)
    expect((await send('v1.2 is live', { ...headers, Title: 'Rollback' })).status).toBe(422)
  })

  test('a JSON body is unchanged: text headers are ignored and said to be; a misspelled field gets the field it meant', async () => {
    const res = await send(JSON.stringify({ message: 'json wins', titel: 'typo' }), { 'content-type': 'application/json', Title: 'from a header' })
    expect(res.status).toBe(200)
    const answer = (await res.json()) as { eventId: string; errors: string[] }
    expect(answer.errors.toSorted()).toEqual([
      'the Title header was ignored: with a JSON body, send title in the JSON',
      'unknown property "titel" was dropped: did you mean "title"?',
    ])
    expect(await stored(answer.eventId)).toMatchObject({ message: 'json wins', title: null })
    // A property far from every field is only dropped.
    const far = (await (await send(JSON.stringify({ message: 'm', x: 1, plan: 'pro' }), { 'content-type': 'application/json' })).json()) as { errors: string[] }
    expect(far.errors.toSorted()).toEqual(['unknown property "plan" was dropped', 'unknown property "x" was dropped'])

    const missing = await send(JSON.stringify({ mesage: 'typo' }), { 'content-type': 'application/json' })
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as Problem).errors).toEqual([{ pointer: '/message', detail: 'message is required (the body has "mesage": did you mean "message"?)' }])
    const batch = await fetch(`${h.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ events: [{ Message: 'capital' }] }) })
    expect(JSON.stringify(await batch.json())).toContain('did you mean \\"message\\"?')
  })

  test('a path asked with a method it does not take is a 405 naming the ones it does; other paths stay 404', async () => {
    const get = await fetch(`${h.url}/event`, { headers: { authorization: `Bearer ${apiKey}` } })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    expect(get.headers.get('content-type')).toBe('application/problem+json')
    expect(((await get.json()) as Problem).detail).toBe('GET is not allowed on /event: it takes POST.')
    const put = await fetch(`${h.url}/events`, { method: 'PUT' })
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST'])
    expect((await fetch(`${h.url}/nothing-here`)).status).toBe(404)
    expect((await fetch(`${h.url}/w/anything/at/all`, { method: 'POST' })).status).toBe(404)
  })
})
