// Usage: this month's events against the quota (a meter with the numbers in
// text), and events per day over the last 30 days as a chart and a table.
// The numbers are read and worked out in state/usage.ts.
import { api } from './api'
import { html, render } from './html'
import type { PageContext } from './router'
import { barChart, dayTable } from './chart'
import { time } from './ui'
import { loadUsage, quotaMeter } from './state/usage'

export async function usagePage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Usage')
  const u = await loadUsage(api, ws)
  const m = quotaMeter(u)
  render(
    ctx.root,
    html`<h1 tabindex="-1">Usage</h1>
    <section aria-labelledby="quota-h" class="card">
      <h2 id="quota-h">This month (${u.period})</h2>
      <p class="big"><strong>${u.used.toLocaleString()}</strong> of ${u.limit.toLocaleString()} events <span class="muted">(${m.shown}%)</span></p>
      <meter id="quota-meter" min="0" max="${m.max}" value="${u.used}" low="${m.low}" high="${m.high}" optimum="0" aria-labelledby="quota-h" aria-describedby="quota-text">${Math.round(m.pct)}%</meter>
      <p id="quota-text">${u.remaining.toLocaleString()} remaining. The quota starts again ${time(u.resetsAt)}.${m.refused ? html` <strong class="error">Events are refused (429) until then.</strong>` : ''}</p>
    </section>
    <section aria-labelledby="days-h" class="card">
      <h2 id="days-h">Events per day</h2>
      ${barChart(u.days, 'usage-chart', Math.min(960, ctx.root.clientWidth - 40))}
      <details><summary>Show the numbers as a table</summary>${dayTable(u.days)}</details>
    </section>`,
  )
}
