// An inline SVG bar chart of events per day over the last 30 days: one slot
// per day whether it had events or not, whole-number ticks, and the number
// on each bar while there are few. The SVG is one labelled image for screen
// readers (its title and description say what it shows, the table beside it
// holds the numbers); each bar has a tooltip for pointers.
import { html } from './html'

export interface Day {
  day: string // YYYY-MM-DD (UTC)
  events: number
}

const PAD = { top: 22, right: 24, bottom: 28, left: 48 }
/** The chart always shows this many days, the days without events as empty slots. */
export const CHART_DAYS = 30
const DAY_MS = 86_400_000
// Up to this many days with events, each bar carries its number; past it,
// only the busiest day's does (the table holds them all).
const LABEL_ALL_UP_TO = 7

/** Whole-number ticks from 0 to at least `max`, about four steps of 1, 2 or 5 × 10^n. */
export function axisTicks(max: number): number[] {
  if (max <= 0) return [0]
  const rough = max / 4
  const p = 10 ** Math.floor(Math.log10(rough))
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * p).find((v) => v >= rough) ?? 10 * p)
  const top = Math.ceil(max / step) * step
  return Array.from({ length: top / step + 1 }, (_, i) => i * step)
}

/** The CHART_DAYS days that end on the latest of `days` (today, UTC, when there is none), each with its count or 0. */
export function chartDays(days: Day[], today = new Date()): Day[] {
  const counts = new Map(days.map((d) => [d.day, d.events]))
  const latest = days.reduce((m, d) => (d.day > m ? d.day : m), '')
  const end = latest ? Date.parse(`${latest}T00:00:00Z`) : Math.floor(today.getTime() / DAY_MS) * DAY_MS
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(end - (CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10)
    return { day, events: counts.get(day) ?? 0 }
  })
}

const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' })
export const dayLabel = (day: string) => shortDay.format(new Date(`${day}T00:00:00Z`))

function describe(days: Day[]): string {
  const total = days.reduce((s, d) => s + d.events, 0)
  const span = `over ${days.length} days, from ${dayLabel(days[0]!.day)} to ${dayLabel(days.at(-1)!.day)}`
  if (!total) return `No events ${span}.`
  const active = days.filter((d) => d.events > 0)
  const busiest = active.reduce((b, d) => (d.events > b.events ? d : b))
  if (active.length === 1) return `${total.toLocaleString()} events ${span}, all on ${dayLabel(busiest.day)}.`
  return `${total.toLocaleString()} events ${span}, on ${active.length} days; the busiest was ${dayLabel(busiest.day)} with ${busiest.events.toLocaleString()}.`
}

/**
 * One slot per day of the last CHART_DAYS, so that one day of data reads as
 * one day, not as a bar stretched across: an empty day is a stub on the
 * baseline. `width`: the width it is drawn for, in CSS pixels, so that its
 * text keeps its size (it still scales).
 */
export function barChart(input: Day[], id: string, width = 720) {
  const days = chartDays(input)
  const W = Math.round(Math.max(280, width))
  const H = W < 480 ? 200 : 240
  const max = Math.max(0, ...days.map((d) => d.events))
  const ticks = axisTicks(max)
  const top = Math.max(1, ticks.at(-1)!)
  const innerW = W - PAD.left - PAD.right
  const innerH = H - PAD.top - PAD.bottom
  const step = innerW / days.length
  const barW = Math.max(2, step * 0.7)
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH
  const cx = (i: number) => PAD.left + step * i + step / 2
  const active = days.filter((d) => d.events > 0)
  const busiest = active.reduce<Day | null>((b, d) => (!b || d.events > b.events ? d : b), null)
  const labelled = (d: Day) => d.events > 0 && (active.length <= LABEL_ALL_UP_TO || d === busiest)
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-title ${id}-desc" preserveAspectRatio="xMidYMid meet" data-days="${days.length}">
    <title id="${id}-title">Events per day, last ${days.length} days</title>
    <desc id="${id}-desc">${describe(days)}</desc>
    <g class="axis" aria-hidden="true">
      ${ticks.map((t) => html`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}" class="${t === 0 ? 'baseline' : 'grid'}"></line>
        <text x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end">${t.toLocaleString()}</text>`)}
      ${days.map((d, i) => ((days.length - 1 - i) % 7 === 0 ? html`<text x="${cx(i)}" y="${H - 8}" text-anchor="middle">${dayLabel(d.day)}</text>` : ''))}
    </g>
    ${max === 0 ? html`<text class="empty-note" x="${PAD.left + innerW / 2}" y="${PAD.top + innerH / 2}" text-anchor="middle" aria-hidden="true">No events in these ${days.length} days</text>` : ''}
    <g class="bars">
      ${days.map((d, i) => {
        // An empty day keeps its slot: a stub on the baseline.
        const h = d.events > 0 ? Math.max(2, PAD.top + innerH - y(d.events)) : 2
        return html`<rect class="${d.events > 0 ? 'day' : 'zero'}" data-day="${d.day}" data-events="${d.events}" x="${(cx(i) - barW / 2).toFixed(1)}" y="${(PAD.top + innerH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" rx="${d.events > 0 ? 2 : 1}"><title>${dayLabel(d.day)}: ${d.events.toLocaleString()} events</title></rect>`
      })}
    </g>
    <g class="values" aria-hidden="true">
      ${days.map((d, i) => (labelled(d) ? html`<text x="${cx(i).toFixed(1)}" y="${(y(d.events) - 5).toFixed(1)}" text-anchor="middle" data-day="${d.day}">${d.events.toLocaleString()}</text>` : ''))}
    </g>
  </svg>`
}

/** The same numbers as a table, the chart's text alternative: the same 30 days. */
export const dayTable = (input: Day[]) => html`<div class="table-wrap"><table class="compact">
  <caption>Events per day (UTC)</caption>
  <thead><tr><th scope="col">Day</th><th scope="col" class="num">Events</th></tr></thead>
  <tbody>${chartDays(input).reverse().map((d) => html`<tr><th scope="row"><time datetime="${d.day}">${dayLabel(d.day)}</time></th><td class="num">${d.events.toLocaleString()}</td></tr>`)}</tbody>
</table></div>`
