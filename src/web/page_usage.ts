// Usage: this month's events against the quota (a meter with the numbers in
// text), and events per day over the last 30 days as a chart and a table.
import { api, paths } from './api'
import { html, render } from './html'
import type { PageContext } from './router'
import { barChart, dayTable, type Day } from './chart'
import { time } from './ui'

interface Usage {
  period: string
  used: number
  limit: number
  remaining: number
  resetsAt: string
  days: Day[]
}

const percent = (used: number, limit: number) => (limit > 0 ? Math.min(100, (used / limit) * 100) : 100)

export async function usagePage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Usage')
  const u = await api<Usage>('GET', paths.usage(ws))
  const pct = percent(u.used, u.limit)
  render(
    ctx.root,
    html`<h1 tabindex="-1">Usage</h1>
    <section aria-labelledby="quota-h" class="card">
      <h2 id="quota-h">This month (${u.period})</h2>
      <p class="big"><strong>${u.used.toLocaleString()}</strong> of ${u.limit.toLocaleString()} events <span class="muted">(${pct < 1 && u.used > 0 ? '<1' : Math.round(pct)}%)</span></p>
      <meter id="quota-meter" min="0" max="${Math.max(u.limit, 1)}" value="${u.used}" low="${Math.round(u.limit * 0.75)}" high="${Math.round(u.limit * 0.9)}" optimum="0" aria-labelledby="quota-h" aria-describedby="quota-text">${Math.round(pct)}%</meter>
      <p id="quota-text">${u.remaining.toLocaleString()} remaining. The quota starts again ${time(u.resetsAt)}.${u.remaining === 0 ? html` <strong class="error">Events are refused (429) until then.</strong>` : ''}</p>
    </section>
    <section aria-labelledby="days-h" class="card">
      <h2 id="days-h">Events per day</h2>
      ${barChart(u.days, 'usage-chart', Math.min(960, ctx.root.clientWidth - 40))}
      <details><summary>Show the numbers as a table</summary>${dayTable(u.days)}</details>
    </section>`,
  )
}
