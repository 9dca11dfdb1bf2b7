// What the receipt tests share: a Herald that pushes to the APNs stand-in,
// members with one iPhone each, and a clock the test moves. A receipt's
// times are rows (receipts.next_push_at …), so moving them back by `s`
// seconds is, for the receipt, `s` seconds passing: the repeat schedule,
// escalation and expiry are tested at the contract's 30 s minimum without
// waiting for it, and without a setting that would lower it for users.
import { expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Sql } from '../../src/core/db'
import type { TestHerald } from '../harness'
import { eventually } from '../receiver'
import { CA_FILE, TEAM, TOPIC, startApns, startGoogle, writeCredentials, type ApnsStandIn } from '../stand_ins'

export const KID = 'KEYID12345'
export const apnsToken = () => randomBytes(32).toString('hex')

/** The settings that point a Herald at the push stand-ins. */
export async function pushStandIns() {
  const apns = await startApns()
  apns.kid = KID
  const google = startGoogle()
  const dir = mkdtempSync(join(tmpdir(), 'herald-receipts-'))
  const creds = writeCredentials(dir, `${google.url}/token`)
  const env = {
    APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin,
    FCM_SERVICE_ACCOUNT_FILE: creds.account, FCM_ORIGIN: google.url, GOOGLE_OAUTH_TOKEN_URL: `${google.url}/token`,
    NODE_EXTRA_CA_CERTS: CA_FILE, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
  }
  return {
    apns, google, env,
    async close() {
      await apns.close()
      google.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface Member {
  email: string
  userId: string
  userToken: string
  device: string // its iPhone's APNs token
}

/** A member of `ws` with one iPhone. */
export async function memberWithPhone(h: TestHerald, ws: string, tag: string): Promise<Member> {
  const email = `${tag}-${ws}@example.com`
  const res = await h.admin('POST', `/admin/workspaces/${ws}/members`, { email })
  expect(res.status).toBe(201)
  const m = (await res.json()) as { userId: string; userToken: string }
  const device = apnsToken()
  const reg = await fetch(h.url + '/v1/devices', {
    method: 'POST', headers: { authorization: `Bearer ${m.userToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'ios', provider: 'apns', token: device, environment: 'sandbox' }),
  })
  expect(reg.status).toBe(201)
  return { email, ...m, device }
}

/** Sends an event with `ack`; answers its id and receipt. */
export async function sendAcked(h: TestHerald, apiKey: string, body: Record<string, unknown>) {
  const res = await h.post(apiKey, { message: 'disk full on db-1', ...body })
  const json = (await res.json()) as { eventId: string; receipt: string }
  if (res.status !== 200) throw new Error(`POST /event answered ${res.status}: ${JSON.stringify(json)}`)
  return json
}

/** `seconds` pass for the receipt (its rows' times move back). */
export async function elapse(sql: Sql, receipt: string, seconds: number) {
  await sql`
    UPDATE receipts SET created_at = created_at - ${seconds} * interval '1 s', expires_at = expires_at - ${seconds} * interval '1 s',
      next_repeat_at = next_repeat_at - ${seconds} * interval '1 s', next_push_at = next_push_at - ${seconds} * interval '1 s'
    WHERE id = ${receipt}`
}

/** The device tokens the APNs stand-in was pushed for an event, with repeats, in order. */
export const apnsPushesOf = (apns: ApnsStandIn, eventId: string) => apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId)

export type Delivery = { id: string; kind: string; routerId: string | null; deviceId: string | null; status: string; attempts: { ok: boolean; status: number | null }[] }

/** The event's deliveries once at least `n` exist and none is pending. */
export const settledDeliveries = (h: TestHerald, apiKey: string, eventId: string, n: number, ms = 15_000) =>
  eventually(async () => {
    const res = await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    const e = (await res.json()) as { deliveries: Delivery[] }
    return e.deliveries.length >= n && e.deliveries.every((d) => d.status !== 'pending') ? e.deliveries : null
  }, ms, `${n} settled deliveries of ${eventId}`)

export const readReceiptOf = async (h: TestHerald, apiKey: string, receipt: string) =>
  (await (await fetch(`${h.url}/receipts/${receipt}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as Record<string, any>

export const acknowledge = (h: TestHerald, token: string, ws: string, receipt: string) =>
  fetch(`${h.url}/v1/workspaces/${ws}/receipts/${receipt}/ack`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
