// An inline SVG bar chart of events per day. The SVG is one labelled image
// for screen readers (its title and description say what it shows, the
// table beside it holds the numbers); each bar has a tooltip for pointers.
import { html } from './html'

export interface Day {
  day: string // YYYY-MM-DD (UTC)
  events: number
}

const PAD = { top: 16, right: 24, bottom: 28, left: 48 }

/** A round number at or above `max`, for the top of the axis: 1, 2, 5 × 10^n. */
export function niceMax(max: number): number {
  if (max <= 0) return 1
  const p = 10 ** Math.floor(Math.log10(max))
  return ([1, 2, 5, 10].map((m) => m * p).find((v) => v >= max) ?? 10 * p)
}

const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
export const dayLabel = (day: string) => shortDay.format(new Date(`${day}T00:00:00Z`))

/** `width`: the width it is drawn for, in CSS pixels, so that its text keeps its size (it still scales). */
export function barChart(days: Day[], id: string, width = 720) {
  const W = Math.round(Math.max(280, width))
  const H = W < 480 ? 200 : 240
  const top = niceMax(Math.max(0, ...days.map((d) => d.events)))
  const innerW = W - PAD.left - PAD.right
  const innerH = H - PAD.top - PAD.bottom
  const step = innerW / Math.max(days.length, 1)
  const barW = Math.max(2, step * 0.7)
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH
  const total = days.reduce((s, d) => s + d.events, 0)
  const busiest = days.reduce<Day | null>((b, d) => (!b || d.events > b.events ? d : b), null)
  const description = `${total.toLocaleString()} events over ${days.length} days, from ${dayLabel(days[0]?.day ?? '')} to ${dayLabel(days.at(-1)?.day ?? '')}${busiest && busiest.events ? `; the busiest day was ${dayLabel(busiest.day)} with ${busiest.events.toLocaleString()}` : ''}.`
  const ticks = [0, top / 2, top].filter(Number.isInteger)
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-title ${id}-desc" preserveAspectRatio="xMidYMid meet">
    <title id="${id}-title">Events per day, last ${days.length} days</title>
    <desc id="${id}-desc">${description}</desc>
    <g class="axis" aria-hidden="true">
      ${ticks.map((t) => html`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}" class="${t === 0 ? 'baseline' : 'grid'}"></line>
        <text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end">${Math.round(t).toLocaleString()}</text>`)}
      ${days.map((d, i) => ((days.length - 1 - i) % 7 === 0 ? html`<text x="${PAD.left + step * i + step / 2}" y="${H - 8}" text-anchor="middle">${dayLabel(d.day)}</text>` : ''))}
    </g>
    <g class="bars">
      ${days.map((d, i) => {
        const h = Math.max(d.events > 0 ? 1 : 0, PAD.top + innerH - y(d.events))
        return html`<rect x="${(PAD.left + step * i + (step - barW) / 2).toFixed(1)}" y="${(PAD.top + innerH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" rx="2"><title>${dayLabel(d.day)}: ${d.events.toLocaleString()} events</title></rect>`
      })}
    </g>
  </svg>`
}

/** The same numbers as a table, the chart's text alternative. */
export const dayTable = (days: Day[]) => html`<div class="table-wrap"><table class="compact">
  <caption>Events per day (UTC)</caption>
  <thead><tr><th scope="col">Day</th><th scope="col" class="num">Events</th></tr></thead>
  <tbody>${[...days].reverse().map((d) => html`<tr><th scope="row"><time datetime="${d.day}">${dayLabel(d.day)}</time></th><td class="num">${d.events.toLocaleString()}</td></tr>`)}</tbody>
</table></div>`
