// The VAPID public key browsers subscribe to Web Push with: public, as the
// key is (every subscription carries it). Registering the subscription is
// routes/devices.ts.
import { Type } from '@sinclair/typebox'
import { webPushOff } from '../../core/errors'
import { routeGroup } from './group'
import { problem } from '../openapi'

/** GET /v1/push/vapid-public-key; a 404 while Web Push is off (no key). */
export const pushKeyRoute = (publicKey: string | undefined) =>
  routeGroup({ name: 'route.push-key', prefix: '/v1' }).get(
    '/push/vapid-public-key',
    ({ set }) => {
      if (!publicKey) throw webPushOff()
      set.headers['cache-control'] = 'no-cache'
      return { publicKey }
    },
    {
      response: { 200: Type.Object({ publicKey: Type.String({ description: 'The VAPID public key (65-byte P-256 point, base64url): the applicationServerKey of pushManager.subscribe().' }) }, { $id: 'VapidPublicKey' }) },
      detail: {
        summary: 'The Web Push public key',
        description: 'What a browser subscribes with: `pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey })`. Then register the subscription with POST /v1/devices.',
        tags: ['Devices'],
        security: [],
        responses: { 404: problem(404, 'Web Push is not configured on this server.') },
      },
    },
  )
