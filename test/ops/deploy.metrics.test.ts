// deploy/: the Grafana dashboard and the Prometheus alerting rules parse, have
// the shape Grafana and Prometheus expect, and name only metrics that Herald
// exports (src/core/metrics.ts), so a renamed metric cannot leave a dead panel or
// an alert that never fires.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { enableProcessMetrics, registry } from '../../src/core/metrics'
// Each area registers its own metrics when it is loaded, as a running Herald loads them all.
import '../../src/ingest/metrics'
import '../../src/delivery/metrics'
import '../../src/delivery/metrics_scrape'

const DEPLOY = join(import.meta.dir, '..', '..', 'deploy')

/** Every name a query may use: each metric, and a histogram's _bucket, _sum and _count series. */
function exportedNames(): Set<string> {
  enableProcessMetrics()
  const names = new Set<string>()
  for (const m of registry.getMetricsAsArray()) {
    names.add(m.name)
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s)
  }
  return names
}

const metricNames = (expr: string) => [...expr.matchAll(/\bherald_[a-z0-9_]+/g)].map((m) => m[0])

interface Panel {
  type: string
  title: string
  targets?: { expr: string; refId: string }[]
}

interface Rule {
  alert: string
  expr: string
  for?: string
  labels: { severity: string }
  annotations: { summary: string }
}

describe('deploy/', () => {
  const exported = exportedNames()

  test('the Grafana dashboard parses, and every panel queries Prometheus', () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as { uid: string; title: string; panels: Panel[] }
    expect(dashboard.title).toBe('Herald')
    const graphs = dashboard.panels.filter((p) => p.type !== 'row')
    expect(graphs.length).toBeGreaterThanOrEqual(20)
    for (const p of graphs) {
      expect(p.targets?.length).toBeGreaterThan(0)
      // Every query reads Herald's metrics, or Prometheus' own `up` of the scrape targets.
      for (const t of p.targets!) expect(metricNames(t.expr).length > 0 || /\bup\{/.test(t.expr)).toBe(true)
    }
  })

  test('an instance variable narrows every query of every panel; the stream\'s bytes have a panel', () => {
    const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana-dashboard.json'), 'utf8')) as { templating: { list: { name: string; type: string; query: unknown; includeAll?: boolean; multi?: boolean }[] }; panels: Panel[] }
    const instance = dashboard.templating.list.find((v) => v.name === 'instance')
    expect(instance).toMatchObject({ type: 'query', includeAll: true, multi: true })
    // Its values are the instances of Herald's processes, not of every job.
    expect(JSON.stringify(instance!.query)).toMatch(/label_values\(herald_[a-z_]+, instance\)/)
    const selectors = dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\b(herald_[a-z0-9_]+|up)(\{[^}]*\})?/g)].filter((m) => m[1] !== 'up' || m[2])))
    expect(selectors.length).toBeGreaterThan(30)
    expect(selectors.filter((m) => !m[2]?.includes('instance=~"$instance"')).map((m) => m[0])).toEqual([])
    const bytes = dashboard.panels.find((p) => p.targets?.some((t) => t.expr.includes('herald_jetstream_stream_bytes')))
    expect(bytes?.title).toBe('Stream bytes')
    for (const name of ['herald_deliveries_pending', 'herald_deliveries_pending_oldest_age_seconds', 'herald_deliveries_failed_last_hour', 'herald_destination_circuit_state']) {
      expect(dashboard.panels.some((p) => p.targets?.some((t) => t.expr.includes(name)))).toBe(true)
    }
  })

  test('the alerting rules parse as Prometheus rule groups', () => {
    const file = Bun.YAML.parse(readFileSync(join(DEPLOY, 'prometheus-alerts.yml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] }
    expect(file.groups.length).toBeGreaterThan(0)
    const rules = file.groups.flatMap((g) => g.rules)
    const names = rules.map((r) => r.alert)
    expect(new Set(names).size).toBe(names.length)
    for (const r of rules) {
      expect(r.alert).toMatch(/^Herald[A-Za-z]+$/)
      expect(typeof r.expr).toBe('string')
      if (r.for !== undefined) expect(r.for).toMatch(/^\d+[smh]$/)
      expect(['critical', 'warning', 'info']).toContain(r.labels.severity)
      expect(r.annotations.summary.length).toBeGreaterThan(0)
    }
    // What the issue asks for: backlog and its age, failures, consumer lag, API 5xx, workers down.
    for (const expected of ['HeraldOutboxBacklogGrowing', 'HeraldOutboxStale', 'HeraldDeliveryFailureRateHigh', 'HeraldConsumerLagGrowing', 'HeraldApiErrors', 'HeraldWorkersDown']) {
      expect(names).toContain(expected)
    }
  })

  test.each(['grafana-dashboard.json', 'prometheus-alerts.yml'])('%s names only metrics src/core/metrics.ts exports', (file) => {
    const used = new Set(metricNames(readFileSync(join(DEPLOY, file), 'utf8')))
    expect(used.size).toBeGreaterThan(5)
    expect([...used].filter((name) => !exported.has(name))).toEqual([])
  })
})
