// A member's own preferences in a workspace (a session or a user token):
// quiet hours in their time zone, a level per channel and a default. PUT
// replaces the whole document; the mute routes (channels.ts) set and clear
// a channel's level none, which this document shows.
import { Type, type TSchema } from '@sinclair/typebox'
import { DEFAULT_EXCEPT, MAX_CHANNEL_LEVELS, myPreferences, replacePreferences } from '../../accounts/preference_ops'
import { LEVELS } from '../../delivery/audience'
import type { Side } from './side'
import { WorkspaceParams } from './input'
import { BODY_PROBLEMS, problems } from '../openapi'

const LEVEL_WORDS = 'all: every event; high: priority 4 and 5; urgent: priority 5; none: no push (a mute)'
const LEVEL_UNION = [Type.Literal('all'), Type.Literal('high'), Type.Literal('urgent'), Type.Literal('none')] as const
const Level = (field: string, description: string) =>
  Type.Union([...LEVEL_UNION], { description: `${description} ${LEVEL_WORDS}.`, error: `${field} must be one of ${LEVELS.join(', ')}` })
const Time = (name: string, example: string) =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: `HH:MM, 00:00 to 23:59, on the wall clock of \`timezone\`.`, examples: [example], error: `quietHours.${name} must be a time of day: HH:MM from 00:00 to 23:59` })

const quietHoursFields = <E extends TSchema>(except: E) => ({
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone; the dashboard and the installed app fill in the browser\'s.', examples: ['Europe/Paris'], error: 'quietHours.timezone must be an IANA time zone name' }),
  from: Time('from', '22:00'),
  to: Time('to', '07:00'),
  except,
})
const QUIET_WORDS = 'Inside [from, to) only events at or above `except` are pushed; to before from crosses midnight. Daylight-saving days follow the wall clock.'
const Except = Type.Integer({ minimum: 1, maximum: 5, description: `Events of this priority and up are pushed inside the window (left out: ${DEFAULT_EXCEPT}).`, error: 'quietHours.except must be a priority from 1 to 5' })
const QuietHours = Type.Object(quietHoursFields(Except), { additionalProperties: false, description: QUIET_WORDS })
// In a PUT body null means no quiet hours, as leaving it out does: the route's
// transform drops a null before validation, so that an error inside the object
// is reported at its own pointer (a union's would be reported at /quietHours).
// The description says null is allowed; the client's type allows it.
const QuietHoursInput = Type.Object(quietHoursFields(Type.Optional(Except)), { additionalProperties: false, description: `${QUIET_WORDS} null or left out: no quiet hours.` })

const Channels = Type.Record(Type.String(), Level("channels: a channel's level", 'A channel\'s level.'), {
  maxProperties: MAX_CHANNEL_LEVELS,
  description: `A level per channel slug (at most ${MAX_CHANNEL_LEVELS}); each must exist. A channel left out follows \`default\`.`,
  error: `channels must be an object of at most ${MAX_CHANNEL_LEVELS} channel slugs, each all, high, urgent or none`,
})

export const PreferencesSchema = Type.Object({
  quietHours: Type.Union([QuietHours, Type.Null()]),
  channels: Channels,
  default: Level('default', 'The level of channels not in `channels`.'),
}, { $id: 'Preferences' })

const PreferencesBody = Type.Object({
  quietHours: Type.Optional(QuietHoursInput),
  channels: Type.Optional(Channels),
  default: Type.Optional(Level('default', 'The level of channels not in `channels` (left out: all).')),
}, { $id: 'PreferencesBody', additionalProperties: false, examples: [{ quietHours: { timezone: 'Europe/Paris', from: '22:00', to: '07:00', except: 5 }, channels: { ops: 'high', marketing: 'none' }, default: 'all' }] })

/** GET and PUT /v1/workspaces/{ws}/preferences: people only (the operator has no preferences). */
export function preferencesRoute(side: Side) {
  const detail = side.documents({ tag: 'Preferences', common: problems(401, 404, 503) })
  return side.group({ name: 'route.preferences', prefix: `${side.root}/preferences`, bodyLimit: 131_072 })
    .get('', async ({ request, params }) => myPreferences(await side.ctx(request, params.workspace)), {
      params: WorkspaceParams,
      response: { 200: PreferencesSchema },
      detail: detail('My preferences', 'Quiet hours, a level per channel and the default level, for this workspace. Muted channels show as none.', problems(400)),
    })
    .put('', async ({ request, params, body }) => replacePreferences(await side.ctx(request, params.workspace), body), {
      transform({ body }) {
        if (typeof body === 'object' && body !== null && (body as { quietHours?: unknown }).quietHours === null) delete (body as { quietHours?: unknown }).quietHours
      },
      params: WorkspaceParams,
      body: PreferencesBody,
      response: { 200: PreferencesSchema },
      detail: detail(
        'Replace my preferences',
        'Replaces the whole document (a field left out takes its default). A push held back by a preference is recorded as a `suppressed` delivery with the reason, never failed; the event stays in the feed. Pushes from a second later follow the change. 400 at its pointer for an unknown time zone, a time out of range, from equal to to, an except outside 1-5, an unknown level, or a channel the workspace does not have.',
        { ...problems(...BODY_PROBLEMS), ...problems(403) },
      ),
    })
}
