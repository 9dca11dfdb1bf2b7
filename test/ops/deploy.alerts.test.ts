// deploy/prometheus-alerts.yml, checked by Prometheus' own promtool (Debian's
// package prometheus; .ci/run installs it): the rules load, and the unit tests
// of test/ops/prometheus-alerts.test.yml pass (which alerts fire, and which do
// not, all in one and scaled out). And every alert has its runbook: a heading
// of its name in docs/operating.md, which its runbook_url points at, saying
// what the alert means, how to confirm it and what to do.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const RULES = join(ROOT, 'deploy', 'prometheus-alerts.yml')
const UNIT_TESTS = join(import.meta.dir, 'prometheus-alerts.test.yml')
const OPERATING = join(ROOT, 'docs', 'operating.md')

const promtool = Bun.which('promtool')
if (process.env.CI === 'true' && !promtool) throw new Error('CI=true but promtool is missing: .ci/run installs it (apt-get install -y prometheus)')
if (!promtool) console.warn('deploy.alerts.test.ts: the promtool tests are skipped, promtool is missing (apt-get install --no-install-recommends prometheus)')
const withPromtool = promtool ? test : test.skip

interface Rule {
  alert: string
  expr: string
  annotations: Record<string, string>
}
const rules = (Bun.YAML.parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules)

function run(args: string[]) {
  const p = Bun.spawnSync([promtool!, ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  return { code: p.exitCode, output: `${p.stdout.toString()}${p.stderr.toString()}` }
}

describe('deploy/prometheus-alerts.yml under promtool', () => {
  withPromtool('promtool check rules accepts every rule', () => {
    const r = run(['check', 'rules', RULES])
    expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`)
    expect(r.code).toBe(0)
  })

  withPromtool('promtool test rules: the alerts fit the all-in-one and the scaled-out deployments', () => {
    const r = run(['test', 'rules', UNIT_TESTS])
    expect(r.code === 0 ? 'SUCCESS' : r.output).toBe('SUCCESS')
  })

  test('the unit tests cover the alerts this file is about', () => {
    const tested = new Set([...readFileSync(UNIT_TESTS, 'utf8').matchAll(/alertname: (Herald[A-Za-z]+)/g)].map((m) => m[1]))
    for (const name of ['HeraldWorkersDown', 'HeraldEventsNotConsumed', 'HeraldDeliveriesOverdue', 'HeraldDestinationCircuitOpen', 'HeraldDeliveriesFailedForGood']) {
      expect(tested).toContain(name)
    }
  })
})

/** The `### Herald…` sections of docs/operating.md's alert runbooks, by heading. */
function runbooks(): Map<string, string> {
  const md = readFileSync(OPERATING, 'utf8')
  const start = md.indexOf('\n## Alerts and their runbooks\n')
  expect(start).toBeGreaterThan(-1)
  const part = md.slice(start + 1)
  const end = part.indexOf('\n## ', 1)
  const sections = (end < 0 ? part : part.slice(0, end)).split(/^### /m).slice(1)
  return new Map(sections.map((s) => [s.slice(0, s.indexOf('\n')).trim(), s]))
}

describe('every alert has its runbook in docs/operating.md', () => {
  const entries = runbooks()

  test('one entry per alert, under its name, and none for an alert that does not exist', () => {
    expect([...entries.keys()].sort()).toEqual(rules.map((r) => r.alert).sort())
  })

  test.each(rules.map((r) => [r.alert, r] as const))('%s: its runbook_url points at its entry, which says what it means, how to confirm it and what to do', (name, rule) => {
    // GitHub's anchor of a heading that is one word: the word in lower case.
    expect(rule.annotations.runbook_url).toBe(`docs/operating.md#${name.toLowerCase()}`)
    const entry = entries.get(name)
    expect(entry).toBeDefined()
    for (const part of ['**Means**:', '**Confirm**:', '**Do**:']) expect(entry).toContain(part)
  })
})
