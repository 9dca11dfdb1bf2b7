// What a signed-in person does with their push devices: register (or
// refresh) a token or a browser subscription, list them, delete one. Each
// operation checks its input (a webpush device needs a subscription whose
// endpoint the outbound rules allow and whose key is a point of P-256 …) and
// announces that the audience changed, so every worker drops the devices it
// cached (src/core/operation.ts).
import { createECDH } from 'node:crypto'
import type { Sql } from '../../core/db'
import type { Announce } from '../../core/changes'
import { validationError, type FieldError } from '../../core/problems'
import { deviceLimit, deviceNotFound, pushTokenTaken, subscriptionTaken } from '../../core/errors'
import { MAX_DEVICES_PER_USER, deleteDevice, endpointProblem, listDevices, upsertDevice, type DeviceInput } from './devices'

/** A device as the API is asked to register it (its schema: DeviceBody in src/http/routes/devices.ts). */
export interface DeviceRequest {
  platform?: 'ios' | 'android' | 'web'
  provider: 'apns' | 'fcm' | 'webpush'
  token?: string
  subscription?: { endpoint: string; keys: { p256dh: string; auth: string } }
  environment?: 'sandbox' | 'production'
  topic?: string
}

export interface DeviceDeps {
  sql: Sql
  announce: Announce
  /** HERALD_OUTBOUND_ALLOW: push endpoints on addresses the outbound rules would refuse. */
  allow: readonly string[]
}

/** The person whose devices these are. */
export type DeviceCtx = DeviceDeps & { userId: string }


/** The device a body describes, or the 400 that says what is wrong with it. */
function deviceInput(body: DeviceRequest, allow: readonly string[]): DeviceInput {
  const errors: FieldError[] = []
  const wrong = (pointer: string, detail: string) => errors.push({ pointer, detail })
  if (body.provider === 'webpush') {
    if (body.platform !== undefined && body.platform !== 'web') wrong('/platform', 'provider webpush needs platform web')
    for (const field of ['token', 'environment', 'topic'] as const) if (body[field] !== undefined) wrong(`/${field}`, `${field} is not a field of a webpush device: send the browser's subscription`)
    if (!body.subscription) wrong('/subscription', 'provider webpush needs subscription: the browser\'s PushSubscription as JSON')
    else {
      const problem = endpointProblem(body.subscription.endpoint, allow)
      if (problem) wrong('/subscription/endpoint', `subscription.endpoint ${problem}`)
      const p256dh = Buffer.from(body.subscription.keys.p256dh, 'base64url')
      if (p256dh.length !== 65 || !onCurve(p256dh)) wrong('/subscription/keys/p256dh', `subscription.keys.p256dh must be a P-256 public key: 65 bytes, uncompressed, base64url (got ${p256dh.length} bytes${p256dh.length === 65 ? ', not a point of the curve' : ''})`)
      const auth = Buffer.from(body.subscription.keys.auth, 'base64url')
      if (auth.length !== 16) wrong('/subscription/keys/auth', `subscription.keys.auth must be 16 bytes, base64url (got ${auth.length})`)
      if (!errors.length) return { platform: 'web', provider: 'webpush', token: body.subscription.endpoint, keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') } }
    }
    throw validationError(errors)
  }
  if (body.subscription !== undefined) wrong('/subscription', `subscription is for provider webpush, not ${body.provider}`)
  if (body.token === undefined) wrong('/token', `provider ${body.provider} needs token: the push token the OS gave the app`)
  if (body.platform === undefined) wrong('/platform', `provider ${body.provider} needs platform ios or android`)
  else if (body.platform === 'web') wrong('/platform', 'platform web needs provider webpush')
  else if (body.provider === 'apns' && body.platform !== 'ios') wrong('/platform', 'provider apns needs platform ios')
  if (errors.length) throw validationError(errors)
  return { platform: body.platform as 'ios' | 'android', provider: body.provider, token: body.token!, environment: body.environment, topic: body.topic }
}

/** Whether 65 bytes are an uncompressed point of P-256 (an ECDH with it succeeds). */
function onCurve(point: Buffer): boolean {
  try {
    probe.computeSecret(point)
    return true
  } catch {
    return false
  }
}
const probe = createECDH('prime256v1')
probe.generateKeys()

/** Another person's token or endpoint, refused in the words of its kind. */
const takenProblem = (provider: DeviceInput['provider']) => (provider === 'webpush' ? subscriptionTaken() : pushTokenTaken())

/** Registers a device of the person's, or refreshes the one with the same token; answers its id. */
export async function registerDevice(ctx: DeviceCtx, body: DeviceRequest): Promise<{ id: string }> {
  const input = deviceInput(body, ctx.allow)
  const device = await upsertDevice(ctx.sql, ctx.userId, input)
  if (device === 'full') throw deviceLimit(MAX_DEVICES_PER_USER)
  if (device === 'taken') throw takenProblem(input.provider)
  ctx.announce({ kind: 'audience' })
  return { id: device.id }
}

export const myDevices = (ctx: DeviceCtx) => listDevices(ctx.sql, ctx.userId)

/** Deletes one of the person's devices; 404 when they have none with this id. */
export async function removeDevice(ctx: DeviceCtx, id: string): Promise<void> {
  if (!(await deleteDevice(ctx.sql, ctx.userId, id))) throw deviceNotFound()
  ctx.announce({ kind: 'audience' })
}
