// API keys and the other secrets Herald hands out: a recognisable prefix and a
// checksum (so that a mistyped key is refused without a database look-up and
// a leaked one is found by secret scanners), and at rest only their SHA-256
// (or, for router destinations, ciphertext): no table holds a secret itself.
//
// Why no timing-safe comparison: a presented key is hashed first and looked up
// by `api_keys.hash = $1` (a unique index). Whatever the look-up's timing
// reveals is about the SHA-256 of the attacker's own guess, which says nothing
// about any stored key's preimage; there is no byte-by-byte comparison of
// secrets to time. (Secrets compared in memory, such as the admin token and
// CSRF tokens, go through timingSafeEqual: secretsEqual in src/core/keys.ts.)
import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { createApiKeyAuth } from '../../src/ingest/auth'
import { generateApiKey, generateSecret, hashSecret, isWellFormedKey, isWellFormedSecret, KEY_PATTERN, keyPrefix, PREFIX_LENGTH } from '../../src/core/keys'
import { backends, useMailedHerald } from '../harness'
import { browser, PASSWORD, signUp } from '../users'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

describe('API key format', () => {
  test('hrld_ + 30 base62 characters + a 6-character checksum, each key different', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey)
    for (const key of keys) {
      expect(key).toMatch(/^hrld_[0-9A-Za-z]{36}$/)
      expect(KEY_PATTERN.test(key)).toBe(true)
      expect(isWellFormedKey(key)).toBe(true)
    }
    expect(new Set(keys).size).toBe(keys.length)
    // Every base62 character turns up in the random part: no alphabet bias big enough to see.
    const seen = new Set(keys.flatMap((k) => [...k.slice(5, 35)]))
    expect(seen.size).toBe(62)
  })

  test('every single-character typo and every swap of two neighbours fails the checksum', () => {
    for (const key of Array.from({ length: 5 }, generateApiKey)) {
      for (let i = 5; i < key.length; i++) {
        for (const c of ALPHABET) {
          if (c === key[i]) continue
          expect(isWellFormedKey(key.slice(0, i) + c + key.slice(i + 1))).toBe(false)
        }
        if (i + 1 < key.length && key[i] !== key[i + 1]) {
          expect(isWellFormedKey(key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2))).toBe(false)
        }
      }
    }
  })

  test('the wrong prefix, length or alphabet is not an API key', () => {
    const key = generateApiKey()
    const userToken = generateSecret('hrlu_')
    expect(isWellFormedSecret(userToken, 'hrlu_')).toBe(true)
    expect(isWellFormedKey(userToken)).toBe(false) // a user token is not an API key, even with a valid checksum
    expect(isWellFormedKey('hrlu_' + key.slice(5))).toBe(false)
    expect(isWellFormedKey('HRLD_' + key.slice(5))).toBe(false)
    expect(isWellFormedKey(key + 'a')).toBe(false)
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false)
    expect(isWellFormedKey(key.slice(0, 20) + '-' + key.slice(21))).toBe(false)
    expect(isWellFormedKey(` ${key}`)).toBe(false)
    expect(isWellFormedKey('')).toBe(false)
  })

  test('the shown prefix is the first 12 characters, far too short to be the key', () => {
    const key = generateApiKey()
    expect(keyPrefix(key)).toBe(key.slice(0, PREFIX_LENGTH))
    expect(PREFIX_LENGTH).toBeLessThanOrEqual(12) // hrld_ + 7 random characters of 30
    expect(hashSecret(key).equals(createHash('sha256').update(key).digest())).toBe(true)
  })
})

describe.each(backends)('API keys on %s', (backend) => {
  const { h, smtp } = useMailedHerald(backend)

  test('a mistyped key is refused without a database look-up; a well-formed one is looked up once', async () => {
    let queries = 0
    const counted = new Proxy(h.db.sql, {
      apply(target, self, args) {
        queries++
        return Reflect.apply(target, self, args)
      },
    })
    const auth = createApiKeyAuth(counted, { ttlMs: 2000, maxAgeMs: 2000, max: 1000, announced: () => false })
    try {
      const { apiKey } = await h.workspace()
      const typo = apiKey.slice(0, 10) + (apiKey[10] === 'A' ? 'B' : 'A') + apiKey.slice(11)
      for (let i = 0; i < 100; i++) expect(await auth.verify(`Bearer ${typo}`)).toBeNull()
      expect(await auth.verify('Bearer hrld_short')).toBeNull()
      expect(await auth.verify(`Bearer ${generateSecret('hrlu_')}`)).toBeNull()
      expect(queries).toBe(0)
      // A well-formed key that does not exist: one query, then the brief negative cache.
      const unknown = generateApiKey()
      expect(await auth.verify(`Bearer ${unknown}`)).toBeNull()
      expect(await auth.verify(`Bearer ${unknown}`)).toBeNull()
      expect(queries).toBe(1)
      // The real key: one query, then the cache.
      expect((await auth.verify(`Bearer ${apiKey}`))?.workspace).toBeString()
      expect(await auth.verify(`Bearer ${apiKey}`)).not.toBeNull()
      expect(queries).toBe(2)
    } finally {
      auth.stop()
    }
  })

  test('api_keys holds the SHA-256 and a 12-character prefix, and no column that could hold the key', async () => {
    const ws = await h.workspace()
    const res = await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: 'second' })
    expect(res.status).toBe(201)
    const second = ((await res.json()) as { apiKey: string }).apiKey
    const columns = await h.db.sql<{ name: string; type: string }[]>`
      SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_name = 'api_keys' ORDER BY ordinal_position`
    expect(columns.map((c) => c.name).sort()).toEqual(['created_at', 'hash', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'workspace_id'])
    expect(columns.find((c) => c.name === 'hash')!.type).toBe('bytea')
    for (const key of [ws.apiKey, second]) {
      const rows = await h.db.sql<{ prefix: string; hash: Uint8Array; name: string }[]>`SELECT prefix, hash, name FROM api_keys WHERE hash = ${hashSecret(key)}`
      expect(rows).toHaveLength(1)
      expect(Buffer.from(rows[0]!.hash).toString('hex')).toBe(createHash('sha256').update(key).digest('hex'))
      expect(rows[0]!.prefix).toBe(key.slice(0, 12))
      expect(rows[0]!.name).not.toContain(key.slice(12))
    }
  })

  test('no table holds a secret Herald handed out: keys, tokens, links, router secrets', async () => {
    const ws = await h.workspace()
    const owner = await signUp(h)
    const created = await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'ci' })
    expect(created.status).toBe(201)
    const web = browser(h)
    expect((await web.session('/v1/auth/signin', { email: owner.email, password: PASSWORD })).status).toBe(200)
    const member = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `m-${process.pid}-${backend}@example.com` })
    const invitation = await owner.call('POST', `/v1/workspaces/${owner.workspace}/invitations`, { email: `i-${process.pid}-${backend}@example.com` })
    const hookToken = `hook${crypto.randomUUID().replaceAll('-', '')}`
    const router = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, {
      name: 'r', pattern: '*', destination: { type: 'webhook', url: `https://example.com/hooks/${hookToken}`, headers: { Authorization: `Bearer ${hookToken}x` } },
    })
    await owner.call('POST', '/v1/auth/password-reset', { email: owner.email })
    let reset: string | undefined
    for (let i = 0; i < 200 && !reset; i++) {
      reset = /\/reset\/([A-Za-z0-9_-]+)/.exec(smtp.mails.find((m) => m.to.includes(owner.email))?.body ?? '')?.[1]
      if (!reset) await Bun.sleep(25)
    }
    const secrets: Record<string, string | undefined> = {
      'API key (operator API)': ws.apiKey,
      'API key (user API)': ((await created.json()) as { apiKey: string }).apiKey,
      'user token': owner.token,
      'session token': web.cookie.slice(web.cookie.indexOf('=') + 1),
      'user token (operator API)': ((await member.json()) as { userToken: string }).userToken,
      'invitation token': /\/invite\/([A-Za-z0-9_-]+)/.exec(((await invitation.json()) as { link: string }).link)?.[1],
      'signing secret': ((await router.json()) as { secret: string }).secret,
      'webhook URL token': hookToken,
      'password-reset token': reset,
    }
    for (const [name, value] of Object.entries(secrets)) expect({ name, value: typeof value === 'string' && value.length >= 20 }).toEqual({ name, value: true })
    const tables = await h.db.sql<{ name: string }[]>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`
    const found: string[] = []
    const look = async (what: string, value: string) => {
      for (const { name } of tables) {
        const [row] = await h.db.sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${name}" t WHERE strpos(t::text, $1) > 0`, [value])
        if (row!.n) found.push(`${what} in ${name}`)
      }
    }
    // The scan finds what is stored in the clear: the e-mail address, in users (and elsewhere).
    await look('e-mail address', owner.email)
    expect(found).toContain('e-mail address in users')
    found.length = 0
    for (const [what, value] of Object.entries(secrets)) await look(what, value!)
    expect(found).toEqual([])
  }, 30_000)
})
