// The device API a mobile app calls, as a signed-in user: register (or
// refresh) its push token, list the user's devices, delete one. Muting a
// channel is in routes/channels.ts.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { userSecurity, type UserAuth } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { deleteDevice, listDevices, upsertDevice } from '../../delivery/push/devices'
import { routeGroup } from './group'
import { Uuid } from './input'

const security = userSecurity

export const DeviceBody = Type.Object({
  platform: Type.Union([Type.Literal('ios'), Type.Literal('android')], { description: 'The phone\'s OS.' }),
  provider: Type.Union([Type.Literal('apns'), Type.Literal('fcm')], { description: 'apns for iOS (Apple Push Notification service), fcm for Firebase Cloud Messaging.' }),
  token: Type.String({ minLength: 1, maxLength: 4096, pattern: '^[\\x21-\\x7e]+$', description: 'The push token the OS gave the app.' }),
  environment: Type.Optional(Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { default: 'production', description: 'APNs only: sandbox for development builds.' })),
  topic: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'APNs only: the app\'s bundle id, when it differs from APNS_TOPIC.' })),
}, { additionalProperties: false })

export const DeviceSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  platform: Type.String(),
  provider: Type.String(),
  environment: Type.String(),
  topic: Type.Union([Type.String(), Type.Null()]),
  tokenPrefix: Type.String({ description: 'The first 8 characters of the token.' }),
  lastSeenAt: Type.String({ format: 'date-time', description: 'Last registration or refresh.' }),
  createdAt: Type.String({ format: 'date-time' }),
})


export const devicesRoute = (sql: Sql, auth: UserAuth, audienceChanged: () => void) =>
  routeGroup({ name: 'route.devices', prefix: '/v1', guard: auth.authenticate })
    .post(
      '/devices',
      async ({ request, body, set }) => {
        const user = await auth.authenticate(request)
        if (body.provider === 'apns' && body.platform !== 'ios') throw new HeraldError('validation-failed', 'provider apns needs platform ios', [{ pointer: '/platform', detail: 'provider apns needs platform ios' }])
        const { id } = await upsertDevice(sql, user.userId, body)
        audienceChanged()
        set.status = 201
        return { id }
      },
      {
        body: DeviceBody,
        response: { 201: Type.Object({ id: Type.String({ format: 'uuid' }) }) },
        detail: { summary: 'Register or refresh a device', description: 'An upsert on the token: registering a known token again updates that device (and answers its id) instead of adding another.', tags: ['Devices'], security },
      },
    )
    .get('/devices', async ({ request }) => listDevices(sql, (await auth.authenticate(request)).userId), {
      response: { 200: Type.Array(DeviceSchema) },
      detail: { summary: 'List my devices', tags: ['Devices'], security },
    })
    .delete(
      '/devices/:id',
      async ({ request, params, set }) => {
        const user = await auth.authenticate(request)
        if (!(await deleteDevice(sql, user.userId, params.id))) throw new HeraldError('not-found', 'You have no device with this id.')
        audienceChanged()
        set.status = 204
      },
      { params: Type.Object({ id: Uuid('id', 'Device id, from the list.') }), detail: { summary: 'Delete a device', tags: ['Devices'], security } },
    )
