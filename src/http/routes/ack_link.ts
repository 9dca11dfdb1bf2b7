// /ack/<token>: the link in the e-mail and chat messages of an event that
// must be acknowledged. Its GET shows the event and the receipt's state with
// a button and changes nothing: Slack's and Teams' link previewers (and mail
// scanners) GET every URL in a message, and must not acknowledge. The button
// POSTs to the same URL, and only that acknowledges (via "link", nobody
// signed in: the token is the credential, ack_link.ts). A second POST says
// who or what ended the receipt. A token Herald did not sign is a 404 page.
// Refusals are pages for browsers (they accept text/html), and problem+json
// for any other caller, as every refusal of the API is.
// The pages are rendered here, without script, under the dashboard's policy;
// they are no API and hidden from the OpenAPI document.
import { Elysia } from 'elysia'
import type { AckLinkOps, AckLinkView } from '../../delivery/ack_link_ops'
import { html, Html } from '../../web/html'
import { ackLinkUnknown, receiptEnded } from '../../core/errors'
import { readBody } from '../body'
import { HTML_HEADERS, iconLinks, styleLink } from './web'

const hide = { detail: { hide: true } }
// The form's body is empty (the button has no name): anything more is read
// no further than this, and dropped.
const FORM_LIMIT = 1024

const VIA: Record<string, string> = { web: 'the dashboard', push: 'the app\'s notification', link: 'the link in a message', api: 'the API' }

const utc = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`

function who(r: AckLinkView['receipt']): Html {
  const by = r.acknowledgedBy ? html`by <strong>${r.acknowledgedBy.email}</strong>` : html``
  const via = r.acknowledgedVia ? html`${r.acknowledgedBy ? ' ' : ''}through ${VIA[r.acknowledgedVia] ?? r.acknowledgedVia}` : html``
  return html`${by}${via}${r.acknowledgedAt ? html` at ${utc(r.acknowledgedAt)}` : ''}`
}

/** What became of the receipt, in a sentence. */
function state(r: AckLinkView['receipt']): Html {
  switch (r.status) {
    case 'pending':
      return html`It repeats until someone acknowledges it, at the latest until ${utc(r.expiresAt)}.`
    case 'acknowledged':
      return html`It was acknowledged ${who(r)}.`
    case 'expired':
      return html`It expired at ${utc(r.expiresAt)} without being acknowledged.`
    case 'cancelled':
      return html`It was cancelled by its sender.`
  }
}

async function page(status: number, title: string, body: Html): Promise<Response> {
  const text = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Herald</title>
${new Html(await iconLinks())}
${new Html(await styleLink())}
</head>
<body>
<header class="site-header"><span class="brand">Herald</span></header>
<main id="main"><div class="auth-card ack-page">${body}</div></main>
</body>
</html>
`
  // The token is in the URL: no cache keeps the page, and no other site learns
  // the address from a Referer.
  return new Response(text.text, { status, headers: { ...HTML_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex' } })
}

function eventPart(v: AckLinkView): Html {
  if (!v.event) return html`<p class="muted">The event is no longer kept.</p>`
  return html`<h1 tabindex="-1">${v.event.title ?? v.event.message}</h1>
    ${v.event.title ? html`<p class="message">${v.event.message}</p>` : ''}
    <p class="muted">${v.event.workspace} · #${v.event.channel}</p>`
}

/**
 * Whether the request asks for a page: browsers (and link previewers) accept
 * text/html. Any other caller gets a refusal as every API refusal is, a
 * problem+json (the 404 here; the 409 of an ended receipt).
 */
const wantsPage = (request: Request) => /\btext\/html\b/.test(request.headers.get('accept') ?? '')

const notFound = (request: Request) => {
  if (!wantsPage(request)) throw ackLinkUnknown()
  return notFoundPage()
}

const notFoundPage = () =>
  page(404, 'No such alert', html`<h1 tabindex="-1">No such alert</h1><p>This link is not valid: it was changed or cut short, or the alert it was for is no longer kept.</p>`)

function showPage(v: AckLinkView): Promise<Response> {
  const pending = v.receipt.status === 'pending'
  return page(200, pending ? 'Acknowledge' : 'Alert', html`${eventPart(v)}
    <p data-receipt-status="${v.receipt.status}">${state(v.receipt)}</p>
    ${pending ? html`<form method="post"><button type="submit">Acknowledge</button></form>` : ''}`)
}

function answerPage(v: AckLinkView & { won: boolean }, request: Request): Promise<Response> {
  if (!v.won && !wantsPage(request)) throw receiptEnded(v.receipt.status, v.receipt.acknowledgedBy, v.receipt.acknowledgedAt)
  if (v.won) {
    return page(200, 'Acknowledged', html`${eventPart(v)}
      <p class="ack-done" role="status" data-receipt-status="acknowledged"><strong>Acknowledged.</strong> It stops repeating for everyone.</p>`)
  }
  const already = v.receipt.status === 'acknowledged'
  return page(409, already ? 'Already acknowledged' : 'No longer pending', html`${eventPart(v)}
    <p role="status" data-receipt-status="${v.receipt.status}">${already ? html`<strong>Already acknowledged</strong> ${who(v.receipt)}.` : state(v.receipt)}</p>`)
}

/**
 * No schema on the token: whatever is not a token this server signed (too
 * short, too long, another alphabet, a forged MAC) is the same 404 page,
 * and the MAC is checked before anything is read.
 */
export const ackLinkRoute = (ops: AckLinkOps) =>
  new Elysia({ name: 'route.ack-link' })
    // The form's body (empty) is read within a small bound and dropped:
    // nothing in it is used.
    .onParse({ as: 'local' }, async ({ request }) => {
      await readBody(request, FORM_LIMIT)
      return {}
    })
    .get('/ack/:token', async ({ params, request }) => {
      const v = await ops.read(params.token)
      return v ? showPage(v) : notFound(request)
    }, hide)
    .post('/ack/:token', async ({ params, request }) => {
      const v = await ops.acknowledge(params.token)
      return v ? answerPage(v, request) : notFound(request)
    }, hide)
