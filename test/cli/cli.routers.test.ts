// `herald router …`, run as a subprocess against a real server: create with
// each destination flag, list, show, update, disable/enable and delete, in
// text and JSON; API errors (exit 1) and usage errors (exit 2); and secrets
// shown once, at creation, never by list or show.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ADMIN_TOKEN, useTestHerald } from '../harness'
import { UUIDV7 } from '../support'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts')

interface Run {
  code: number
  stdout: string
  stderr: string
}

async function herald(args: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<Run> {
  // process.execPath is the bun binary under `bun test`; `bun` may not be on PATH.
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

const HOOK = 'https://hooks.example.com/in/CLIWEBHOOKPATHSECRET'
const SLACK = 'https://hooks.slack.com/services/T0/B0/CLISLACKSECRET'
const TELEGRAM = { type: 'telegram', botToken: '42:CLITELEGRAMTOKENSECRET', chatId: '@alerts' }
const SECRETS = ['CLIWEBHOOKPATHSECRET', 'CLISLACKSECRET', 'CLITELEGRAMTOKENSECRET', 'whsec_']

describe('herald router commands', () => {
  const h = useTestHerald('embedded')
  const op = (...args: string[]): Promise<Run> => herald(args, { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })
  const opIn = (stdin: string, ...args: string[]) => herald(args, { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, stdin)

  const api = async (path: string) => (await h.admin('GET', path)).json()
  const expectNoSecret = (r: Run) => {
    for (const s of SECRETS) expect({ leaked: s, found: (r.stdout + r.stderr).includes(s) }).toEqual({ leaked: s, found: false })
  }

  describe('happy', () => {
    test('router create --webhook prints the id and the signing secret once, alone on its line', async () => {
      const { name: ws } = await h.workspace()
      const r = await op('router', 'create', ws, '--name', 'signups', '--pattern', 'user.*', '--webhook', HOOK)
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const id = new RegExp(`^Created router signups \\((\\S+)\\) in workspace ${ws}: events matching user\\.\\* go to webhook\\.$`, 'm').exec(r.stdout)?.[1]
      expect(id).toMatch(UUIDV7)
      expect(r.stdout).toContain('shown only this once')
      expect(r.stdout).toMatch(/^ {4}whsec_[A-Za-z0-9+/]{32}$/m)
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ name: 'signups', pattern: 'user.*', destination: { type: 'webhook', url: 'https://hooks.example.com/…' }, enabled: true })
    })

    test('router create --json prints the API answer', async () => {
      const { name: ws } = await h.workspace()
      const r = await op('router', 'create', ws, '--name', 'j', '--pattern', '*', '--slack', SLACK, '--json')
      expect(r.code).toBe(0)
      const body = JSON.parse(r.stdout)
      expect(Object.keys(body).sort()).toEqual(['id', 'secret'])
      expect(body.secret).toMatch(/^whsec_/)
    })

    test.each(['slack', 'discord', 'teams'])('router create --%s makes a router of that type', async (type) => {
      const { name: ws } = await h.workspace()
      const r = await op('router', 'create', ws, '--name', type, '--pattern', '*', `--${type}`, `https://${type}.example.com/hook/SECRET`, '--json')
      expect(r.code).toBe(0)
      expect((await api(`/admin/workspaces/${ws}/routers/${JSON.parse(r.stdout).id}`)).destination).toEqual({ type, url: `https://${type}.example.com/…` })
    })

    test('only a webhook router prints a signing secret: the others do not sign what they send', async () => {
      const { name: ws } = await h.workspace()
      const cases: string[][] = [['--slack', SLACK], ['--discord', 'https://discord.com/api/webhooks/1/CLISLACKSECRET'], ['--teams', 'https://teams.example.com/hook/CLISLACKSECRET'], ['--destination', JSON.stringify(TELEGRAM)]]
      for (const [i, flags] of cases.entries()) {
        const r = await op('router', 'create', ws, '--name', `r${i}`, '--pattern', '*', ...flags)
        expect(r.code).toBe(0)
        expect(r.stdout).toMatch(/^Created router r\d \(\S+\) in workspace \S+: events matching \* go to (slack|discord|teams|telegram)\.\n$/)
        expect(r.stdout).not.toContain('secret')
        expectNoSecret(r)
      }
    })

    test("a Slack or Discord address on another host than the service's is noted, not refused", async () => {
      const { name: ws } = await h.workspace()
      const other = await op('router', 'create', ws, '--name', 'mm', '--pattern', '*', '--slack', 'https://chat.example.com/hooks/CLISLACKSECRET')
      expect(other.code).toBe(0)
      expect(other.stdout).toContain("\nNote: chat.example.com is not Slack's address (hooks.slack.com): fine for a Slack-compatible server; otherwise check the URL.\n")
      const own = await op('router', 'create', ws, '--name', 'sl', '--pattern', '*', '--slack', SLACK)
      expect(own.stdout).not.toContain('Note:')
      const moved = await op('router', 'update', ws, 'sl', '--discord', 'https://hooks.example.com/api/webhooks/1/CLISLACKSECRET')
      expect(moved.code).toBe(0)
      expect(moved.stdout).toContain("Note: hooks.example.com is not Discord's address (discord.com, discordapp.com)")
    })

    test('router create --destination takes JSON of any type, and "-" reads it from stdin', async () => {
      const { name: ws } = await h.workspace()
      const a = await op('router', 'create', ws, '--name', 'tg', '--pattern', 'deploy.*', '--destination', JSON.stringify(TELEGRAM), '--title-template', 'Deploy {{data.version}}', '--body-template', '{{message}}')
      expect(a.code).toBe(0)
      const b = await opIn(JSON.stringify({ type: 'sms', accountSid: `AC${'ab'.repeat(16)}`, authToken: 'tok', from: '+15005550006', to: '+15551234567' }), 'router', 'create', ws, '--name', 'text', '--pattern', 'alert.*', '--destination', '-')
      expect(b.stderr).toBe('')
      expect(b.code).toBe(0)
      const list = await api(`/admin/workspaces/${ws}/routers`)
      expect(list).toMatchObject([
        { name: 'tg', destination: { type: 'telegram', chatId: '@alerts' }, template: { title: 'Deploy {{data.version}}', body: '{{message}}' } },
        { name: 'text', destination: { type: 'sms', from: '+15005550006', to: '+15551234567' }, template: null },
      ])
    })

    test('router list prints an aligned table without secrets, or JSON', async () => {
      const { name: ws } = await h.workspace()
      expect((await op('router', 'list', ws)).stdout).toContain(`Workspace ${ws} has no routers.`)
      await op('router', 'create', ws, '--name', 'hooks', '--pattern', 'user.*', '--webhook', HOOK)
      await op('router', 'create', ws, '--name', 'chat', '--pattern', '*', '--destination', JSON.stringify(TELEGRAM))
      const r = await op('router', 'list', ws)
      expect(r.code).toBe(0)
      expectNoSecret(r)
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines[0]).toMatch(/^ID\s+NAME\s+PATTERN\s+DESTINATION\s+PACING\s+STATUS\s+UPDATED \(UTC\)$/)
      expect(lines[1]).toMatch(/^\S{36}\s+hooks\s+user\.\*\s+webhook https:\/\/hooks\.example\.com\/…\s+-\s+enabled\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      expect(lines[2]).toMatch(/^\S{36}\s+chat\s+\*\s+telegram chat @alerts\s+-\s+enabled\s/)
      expect(lines[2]!.indexOf('telegram')).toBe(lines[0]!.indexOf('DESTINATION'))
      const json = await op('router', 'list', ws, '--json')
      expectNoSecret(json)
      expect(JSON.parse(json.stdout).map((x: { name: string }) => x.name)).toEqual(['hooks', 'chat'])
    })

    test('--min-priority takes 1-5 or a name, on create and update; show prints it; anything else is a usage error', async () => {
      const { name: ws } = await h.workspace()
      const { id } = JSON.parse((await op('router', 'create', ws, '--name', 'pager', '--pattern', '*', '--webhook', HOOK, '--min-priority', 'high', '--json')).stdout)
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ minPriority: 4 })
      expect((await op('router', 'show', ws, 'pager')).stdout).toMatch(/^min priority:\s+4 \(high\)$/m)
      expect((await op('router', 'update', ws, 'pager', '--min-priority', '5')).code).toBe(0)
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ minPriority: 5 })
      const bad = await op('router', 'update', ws, 'pager', '--min-priority', '7')
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('--min-priority must be 1 to 5 or one of min, low, default, high, urgent, got "7"')
      expect((await op('router', 'show', ws, 'pager', '--json')).stdout).toContain('"minPriority": 5')
    })

    test('--throttle LIMIT/PERIOD and --throttle-key set a throttle; list and show say it in words; update keeps the key; --no-throttle removes it', async () => {
      const { name: ws } = await h.workspace()
      const r = await op('router', 'create', ws, '--name', 'disk', '--pattern', 'alert.*', '--webhook', HOOK, '--throttle', '5/1h', '--throttle-key', '{{data.host}}', '--json')
      expect(r.stderr).toBe('')
      const { id } = JSON.parse(r.stdout)
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ throttle: { limit: 5, per: 3600, key: '{{data.host}}' }, digest: null })
      expect((await op('router', 'show', ws, 'disk')).stdout).toMatch(/^throttle:\s+at most 5 per 1h per \{\{data\.host\}\}$/m)
      expect((await op('router', 'list', ws)).stdout).toMatch(/\sat most 5 per 1h per \{\{data\.host\}\}\s+enabled\s/)
      expect((await op('router', 'update', ws, 'disk', '--throttle', '10/90')).code).toBe(0)
      expect((await api(`/admin/workspaces/${ws}/routers/${id}`)).throttle).toEqual({ limit: 10, per: 90, key: '{{data.host}}' })
      expect((await op('router', 'update', ws, 'disk', '--throttle-key', '{{channel}}')).code).toBe(0)
      expect((await api(`/admin/workspaces/${ws}/routers/${id}`)).throttle).toEqual({ limit: 10, per: 90, key: '{{channel}}' })
      expect((await op('router', 'update', ws, 'disk', '--no-throttle')).code).toBe(0)
      expect((await api(`/admin/workspaces/${ws}/routers/${id}`)).throttle).toBeNull()
      expect((await op('router', 'show', ws, 'disk')).stdout).not.toContain('throttle:')
    })

    test('--digest WINDOW with its key, max and bypass; update changes one part; setting a throttle replaces the digest; --digest none removes it', async () => {
      const { name: ws } = await h.workspace()
      const r = await op('router', 'create', ws, '--name', 'orders', '--pattern', 'order.*', '--webhook', HOOK, '--digest', '10m', '--digest-key', '{{data.customer}}', '--digest-max', '50', '--digest-bypass', 'urgent', '--json')
      expect(r.stderr).toBe('')
      const { id } = JSON.parse(r.stdout)
      const path = `/admin/workspaces/${ws}/routers/${id}`
      expect((await api(path)).digest).toEqual({ window: 600, key: '{{data.customer}}', max: 50, bypassPriority: 5 })
      const show = (await op('router', 'show', ws, 'orders')).stdout
      expect(show).toMatch(/^digest:\s+digest every 10m per \{\{data\.customer\}\}; at most 50 events; priority 5 \(urgent\) goes at once$/m)
      expect((await op('router', 'list', ws)).stdout).toMatch(/\sdigest every 10m per \{\{data\.customer\}\}\s+enabled\s/)
      expect((await op('router', 'update', ws, 'orders', '--digest-max', '200', '--digest-bypass', '4')).code).toBe(0)
      expect((await api(path)).digest).toEqual({ window: 600, key: '{{data.customer}}', max: 200, bypassPriority: 4 })
      expect((await op('router', 'update', ws, 'orders', '--digest-bypass', 'none', '--digest', '1h')).code).toBe(0)
      expect((await api(path)).digest).toEqual({ window: 3600, key: '{{data.customer}}', max: 200 })
      expect((await op('router', 'update', ws, 'orders', '--throttle', '3/1m')).code).toBe(0)
      expect(await api(path)).toMatchObject({ throttle: { limit: 3, per: 60, key: '' }, digest: null })
      expect((await op('router', 'update', ws, 'orders', '--digest', '30s')).code).toBe(0)
      expect(await api(path)).toMatchObject({ throttle: null, digest: { window: 30, key: '', max: 100 } })
      expect((await op('router', 'update', ws, 'orders', '--digest', 'none')).code).toBe(0)
      expect(await api(path)).toMatchObject({ throttle: null, digest: null })
    })

    test('router show takes an id or a name and prints a record without secrets', async () => {
      const { name: ws } = await h.workspace()
      const { id } = JSON.parse((await op('router', 'create', ws, '--name', 'shown', '--pattern', 'user.*', '--webhook', HOOK, '--body-template', '{{message}}', '--json')).stdout)
      for (const ref of [id, 'shown']) {
        const r = await op('router', 'show', ws, ref)
        expect(r.code).toBe(0)
        expectNoSecret(r)
        expect(r.stdout).toMatch(new RegExp(`^id:\\s+${id}$`, 'm'))
        expect(r.stdout).toMatch(/^pattern:\s+user\.\*$/m)
        expect(r.stdout).toMatch(/^destination:\s+webhook https:\/\/hooks\.example\.com\/…$/m)
        expect(r.stdout).toMatch(/^status:\s+enabled$/m)
        expect(r.stdout).toMatch(/^body template:\s+"\{\{message\}\}"$/m)
      }
      const json = await op('router', 'show', ws, 'shown', '--json')
      expect(JSON.parse(json.stdout)).toMatchObject({ id, name: 'shown' })
    })

    test('router update changes what is given; one template flag keeps the other part; an empty one removes it', async () => {
      const { name: ws } = await h.workspace()
      const { id } = JSON.parse((await op('router', 'create', ws, '--name', 'u', '--pattern', 'a.*', '--webhook', HOOK, '--title-template', 'T', '--body-template', 'B', '--json')).stdout)
      let r = await op('router', 'update', ws, 'u', '--pattern', 'b.*', '--title-template', 'T2')
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('Updated router u in workspace')
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ pattern: 'b.*', template: { title: 'T2', body: 'B' } })
      r = await op('router', 'update', ws, id, '--body-template', '', '--name', 'renamed', '--slack', SLACK)
      expect(r.code).toBe(0)
      expectNoSecret(r)
      expect(await api(`/admin/workspaces/${ws}/routers/${id}`)).toMatchObject({ name: 'renamed', destination: { type: 'slack' }, template: { title: 'T2' } })
      r = await op('router', 'update', ws, 'renamed', '--title-template', '', '--json')
      expect(JSON.parse(r.stdout).template).toBeNull()
    })

    test('router disable and enable flip the router, by id or name', async () => {
      const { name: ws } = await h.workspace()
      const { id } = JSON.parse((await op('router', 'create', ws, '--name', 'flip', '--pattern', '*', '--webhook', HOOK, '--json')).stdout)
      const off = await op('router', 'disable', ws, 'flip')
      expect(off.code).toBe(0)
      expect(off.stdout).toBe(`Disabled router flip (${id}) in workspace ${ws}.\n`)
      expect((await api(`/admin/workspaces/${ws}/routers/${id}`)).enabled).toBe(false)
      expect((await op('router', 'list', ws)).stdout).toMatch(/\sdisabled\s/)
      const on = await op('router', 'enable', ws, id, '--json')
      expect(JSON.parse(on.stdout).enabled).toBe(true)
    })

    test('router delete removes it', async () => {
      const { name: ws } = await h.workspace()
      const { id } = JSON.parse((await op('router', 'create', ws, '--name', 'gone', '--pattern', '*', '--webhook', HOOK, '--json')).stdout)
      const r = await op('router', 'delete', ws, 'gone')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(`Deleted router ${id} from workspace ${ws}.\n`)
      expect(await api(`/admin/workspaces/${ws}/routers`)).toEqual([])
      const again = await op('router', 'delete', ws, id, '--json')
      expect(again.code).toBe(1)
    })

    test('help lists every router command, and router create --help every option with examples', async () => {
      const r = await herald(['help'])
      for (const c of ['router create', 'router list', 'router show', 'router update', 'router disable', 'router enable', 'router delete']) expect(r.stdout).toContain(c)
      const create = await herald(['router', 'create', '--help'])
      expect(create.code).toBe(0)
      expect(create.stdout).toStartWith('Usage: herald router create [options] <workspace>')
      for (const c of ['--name', '--pattern', '--webhook', '--slack', '--discord', '--teams', '--destination', '--title-template', '--body-template', '--throttle <limit/period>', '--no-throttle', '--throttle-key', '--digest <window>', '--no-digest', '--digest-key', '--digest-max', '--digest-bypass', '--json', '--url', '--token']) {
        expect(create.stdout).toContain(c)
      }
      expect(create.stdout).toContain('Examples:\n  $ herald router create acme --name signups')
    })
  })

  describe('error', () => {
    test('an invalid pattern or destination exits 1 with the API detail', async () => {
      const { name: ws } = await h.workspace()
      const p = await op('router', 'create', ws, '--name', 'x', '--pattern', 'a b', '--webhook', HOOK)
      expect(p.code).toBe(1)
      expect(p.stderr).toStartWith('error: pattern may hold only')
      const d = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--destination', '{"type":"fax"}')
      expect(d.code).toBe(1)
      expect(d.stderr).toContain('destination.type: Expected one of webhook, slack')
      const u = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--webhook', 'not a url')
      expect(u.code).toBe(1)
      expect(u.stderr).toContain('destination.url')
    })

    test('a throttle or digest out of bounds exits 1 with the API detail naming the field', async () => {
      const { name: ws } = await h.workspace()
      const per = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--webhook', HOOK, '--throttle', '5/2d')
      expect(per.code).toBe(1)
      expect(per.stderr).toContain('throttle.per: must be at most 1d')
      const win = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--webhook', HOOK, '--digest', '5s')
      expect(win.code).toBe(1)
      expect(win.stderr).toContain('digest.window: must be at least 10s')
      const max = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--webhook', HOOK, '--digest', '10m', '--digest-max', '1001')
      expect(max.code).toBe(1)
      expect(max.stderr).toContain('digest.max')
      const key = await op('router', 'create', ws, '--name', 'x', '--pattern', '*', '--webhook', HOOK, '--throttle', '1/1m', '--throttle-key', '{{#data}}')
      expect(key.code).toBe(1)
      expect(key.stderr).toContain('throttle.key: not a valid template')
      expect(await api(`/admin/workspaces/${ws}/routers`)).toEqual([])
    })

    test('a duplicate name exits 1 with the 409 detail', async () => {
      const { name: ws } = await h.workspace()
      await op('router', 'create', ws, '--name', 'dup', '--pattern', '*', '--webhook', HOOK)
      const r = await op('router', 'create', ws, '--name', 'dup', '--pattern', '*', '--webhook', HOOK)
      expect(r.code).toBe(1)
      expect(r.stderr).toBe('error: A router named "dup" already exists in this workspace.\n')
    })

    test('an unknown workspace or router exits 1', async () => {
      const { name: ws } = await h.workspace()
      const w = await op('router', 'list', 'nobody-here')
      expect(w.code).toBe(1)
      expect(w.stderr).toBe('error: There is no workspace named "nobody-here".\n')
      const n = await op('router', 'show', ws, 'no-such-router')
      expect(n.code).toBe(1)
      expect(n.stderr).toContain('no-such-router')
      const i = await op('router', 'disable', ws, '01900000-0000-7000-8000-000000000000')
      expect(i.code).toBe(1)
      expect(i.stderr).toStartWith('error: There is no router')
    })

    test('usage errors exit 2 with a one-line hint, and send nothing', async () => {
      const { name: ws } = await h.workspace()
      const cases = [
        ['router'],
        ['router', 'explode', ws],
        ['router', 'create'],
        ['router', 'create', ws, '--pattern', '*', '--webhook', HOOK],
        ['router', 'create', ws, '--name', 'n', '--webhook', HOOK],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--slack', SLACK],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--destination', '{not json'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--destination', '[1]'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--quota', '3'],
        ['router', 'update', ws, 'n'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--throttle', '5'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--throttle', '5/1 h'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--digest', 'often'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--throttle', '5/1h', '--digest', '10m'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--throttle-key', '{{data.host}}'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--digest', '10m', '--digest-bypass', '6'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--digest', '10m', '--digest-max', 'lots'],
        ['router', 'create', ws, '--name', 'n', '--pattern', '*', '--webhook', HOOK, '--no-digest', '--digest-max', '5'],
        ['router', 'show', ws],
        ['router', 'delete', ws, 'a', 'b'],
        ['router', 'list', ws, '--pattern', '*'],
        ['key', 'create', ws, '--pattern', '*'],
      ]
      const runs = await Promise.all(cases.map((args) => op(...args)))
      for (const [i, r] of runs.entries()) {
        expect({ args: cases[i], code: r.code }).toEqual({ args: cases[i], code: 2 })
        expect(r.stdout).toBe('')
        expect(r.stderr).toMatch(/^error: .+\nRun 'herald help' to see every command and option\.\n$/)
      }
      expect(await api(`/admin/workspaces/${ws}/routers`)).toEqual([])
    })
  })
})
