// The device API a mobile app or the web app calls, as a signed-in user:
// register (or refresh) its push token or browser subscription, list the
// user's devices, delete one. The VAPID public key browsers subscribe with is
// routes/push_key.ts; muting a channel is in routes/channels.ts.
import { Type } from '@sinclair/typebox'
import { userSecurity, type UserAuth } from '../../accounts/session'
import { myDevices, registerDevice, removeDevice, type DeviceDeps } from '../../delivery/push/device_ops'
import { routeGroup } from './group'
import { Uuid } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const security = userSecurity

// base64url as browsers give it (PushSubscription.toJSON), padding tolerated.
const Base64Url = (name: string, bytes: number, description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+={0,2}$', description, error: `${name} must be base64url (${bytes} bytes)` })

export const PushSubscriptionBody = Type.Object({
  endpoint: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https://[\\x21-\\x7e]+$', description: 'The push service URL the browser gave (PushSubscription.endpoint); https only.', error: 'subscription.endpoint must be an https URL of at most 2048 characters' }),
  expirationTime: Type.Optional(Type.Union([Type.Null(), Type.Number()], { description: 'As the browser gives it; ignored (a push service answers 404 or 410 once a subscription is gone).' })),
  keys: Type.Object({
    p256dh: Base64Url('subscription.keys.p256dh', 65, 'The browser\'s P-256 public key: 65 bytes, base64url.'),
    auth: Base64Url('subscription.keys.auth', 16, 'The subscription\'s auth secret: 16 bytes, base64url.'),
  }, { additionalProperties: false }),
}, { $id: 'PushSubscription', additionalProperties: false, description: 'A browser\'s PushSubscription as JSON (`subscription.toJSON()`).' })

export const DeviceBody = Type.Object({
  platform: Type.Optional(Type.Union([Type.Literal('ios'), Type.Literal('android'), Type.Literal('web')], { description: 'The device\'s OS: ios or android for apns and fcm (required), web for webpush (the default).' })),
  provider: Type.Union([Type.Literal('apns'), Type.Literal('fcm'), Type.Literal('webpush')], { description: 'apns for iOS (Apple Push Notification service), fcm for Firebase Cloud Messaging, webpush for a browser or the installed web app.' }),
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, pattern: '^[\\x21-\\x7e]+$', description: 'apns and fcm: the push token the OS gave the app.' })),
  subscription: Type.Optional(PushSubscriptionBody),
  environment: Type.Optional(Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { description: 'APNs only: sandbox for development builds; production when absent.' })),
  topic: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'APNs only: the app\'s bundle id, when it differs from APNS_TOPIC.' })),
}, { $id: 'DeviceBody', additionalProperties: false })

export const DeviceSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  platform: Type.String(),
  provider: Type.String(),
  environment: Type.String(),
  topic: Type.Union([Type.String(), Type.Null()]),
  tokenPrefix: Type.String({ description: 'The first 8 characters of the token (of the endpoint for webpush).' }),
  endpoint: Type.Union([Type.String(), Type.Null()], { description: 'webpush only: the subscription\'s endpoint, so the app can find its own device.' }),
  lastSeenAt: Type.String({ format: 'date-time', description: 'Last registration or refresh.' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'Device' })



/** `devices`: who is signed in and the push devices' operations (delivery/push/device_ops.ts). */
export const devicesRoute = ({ auth, devices }: { auth: UserAuth; devices: DeviceDeps }) =>
  routeGroup({ name: 'route.devices', prefix: '/v1', guard: auth.authenticate })
    .post(
      '/devices',
      async ({ request, body, set }) => {
        const { id } = await registerDevice({ ...devices, userId: (await auth.authenticate(request)).userId }, body)
        set.status = 201
        return { id }
      },
      {
        body: DeviceBody,
        response: { 201: Type.Object({ id: Type.String({ format: 'uuid' }) }, { $id: 'RegisteredDevice' }) },
        detail: {
          summary: 'Register or refresh a device',
          description: 'An upsert on the token: registering a token of yours again updates that device (and answers its id) instead of adding another. A token or endpoint registered to another account is refused (409).',
          tags: ['Devices'],
          security,
          responses: {
            ...problems(...BODY_PROBLEMS, 401, 403, 503),
            409: problem(409, 'You have the most devices one person may have, or this token or subscription is registered to another account.'),
          },
        },
      },
    )
    .get('/devices', async ({ request }) => myDevices({ ...devices, userId: (await auth.authenticate(request)).userId }), {
      response: { 200: Type.Array(DeviceSchema) },
      detail: { summary: 'List my devices', description: 'Every device of mine that receives pushes, whatever the workspace.', tags: ['Devices'], security, responses: problems(401, 503) },
    })
    .delete(
      '/devices/:id',
      async ({ request, params, set }) => {
        await removeDevice({ ...devices, userId: (await auth.authenticate(request)).userId }, params.id)
        set.status = 204
      },
      {
        params: Type.Object({ id: Uuid('id', 'Device id, from the list.') }),
        detail: {
          summary: 'Delete a device',
          description: 'It gets no pushes from then on; its past deliveries stay in the delivery logs.',
          tags: ['Devices'],
          security,
          responses: { 204: done('Deleted.'), ...problems(400, 401, 403, 503), 404: problem(404, 'You have no device with this id.') },
        },
      },
    )
