// The operator commands `herald channel …`: list, create and rename a
// workspace's channels, and mute one for a member. A mute is a person's (no
// pushes to their devices for that channel), so it names the member.
import type { Command } from 'commander'
import { group, operatorCommand, wsPath } from './command'
import { findMember } from './members'
import { json, table, usageError, utc } from './output'

interface OperatorChannel {
  slug: string
  isDefault: boolean
  mutedBy: string[]
  createdAt: string
}

interface ChannelPage {
  channels: OperatorChannel[]
  nextCursor: string | null
}

const WORKSPACE: [string, string] = ['<workspace>', "the workspace's name"]
const channelsPath = (workspace: string) => `${wsPath(workspace)}/channels`
const channelPath = (workspace: string, channel: string) => `${channelsPath(workspace)}/${encodeURIComponent(channel)}`

function channelsTable(workspace: string, list: OperatorChannel[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no channels.`
  return table(
    ['CHANNEL', 'DEFAULT', 'MUTED BY', 'CREATED (UTC)'],
    list.map((c) => [c.slug, c.isDefault ? 'yes' : 'no', c.mutedBy.join(', ') || '-', utc(c.createdAt)]),
  )
}

export const addChannelCommands = (program: Command) =>
  group(program, 'channel', "List, create and rename a workspace's channels, and mute one for a member.", (g) => {
    operatorCommand<{ search?: string }>(g, {
      name: 'list',
      args: [WORKSPACE],
      summary: 'List the channels, the default one, and who muted each.',
      examples: ['herald channel list acme', 'herald channel list acme --search deploy'],
      options: (cmd) => cmd.option('--search <text>', 'only the channels whose slug contains this text'),
      async run(client, [workspace], opts) {
        // Page by page: a workspace holds at most HERALD_MAX_CHANNELS_PER_WORKSPACE channels.
        const list: OperatorChannel[] = []
        for (let cursor: string | null = ''; cursor !== null; ) {
          const query = new URLSearchParams({ limit: '500', ...(cursor ? { cursor } : {}), ...(opts.search ? { q: opts.search } : {}) })
          const page: ChannelPage = await client.request<ChannelPage>('GET', `${channelsPath(workspace!)}?${query}`)
          list.push(...page.channels)
          cursor = page.nextCursor
        }
        return opts.json ? json(list) : channelsTable(workspace!, list)
      },
    })
    operatorCommand(g, {
      name: 'create',
      args: [WORKSPACE, ['<channel>', 'a slug: lower-case letters, digits, "-" and "_"']],
      summary: 'Create a channel (the first event that names one creates it too).',
      examples: ['herald channel create acme deploys'],
      async run(client, [workspace, slug], opts) {
        const res = await client.request<{ slug: string }>('POST', channelsPath(workspace!), { slug })
        return opts.json ? json(res) : `Created channel ${res.slug} in workspace ${workspace}.`
      },
    })
    operatorCommand(g, {
      name: 'rename',
      args: [WORKSPACE, ['<channel>', 'the channel to rename'], ['<new-name>', 'its new slug']],
      summary: 'Rename a channel: its events and mutes move with it; senders must use the new name.',
      examples: ['herald channel rename acme deploys releases'],
      async run(client, [workspace, from, to], opts) {
        const res = await client.request<{ slug: string }>('PATCH', channelPath(workspace!, from!), { slug: to })
        return opts.json ? json(res) : `Renamed channel ${from} to ${res.slug} in workspace ${workspace}. Events sent to ${from} from now on make a new channel ${from}.`
      },
    })
    operatorCommand<{ member?: string; unmute?: boolean }>(g, {
      name: 'mute',
      args: [WORKSPACE, ['<channel>', 'the channel to mute']],
      summary: "Mute a channel for one member (no pushes to their devices); --unmute undoes it.",
      options: (cmd) => cmd.option('--member <email>', "the member's e-mail address or user id (required)").option('--unmute', 'unmute instead'),
      examples: ['herald channel mute acme deploys --member jane@example.com', 'herald channel mute acme deploys --member jane@example.com --unmute'],
      async run(client, [workspace, channel], opts) {
        if (!opts.member) throw usageError('channel mute needs --member EMAIL: a mute is one member\'s')
        const m = await findMember(client, workspace!, opts.member)
        const muted = !opts.unmute
        await client.request<void>(muted ? 'PUT' : 'DELETE', `${channelPath(workspace!, channel!)}/mutes/${m.userId}`)
        if (opts.json) return json({ workspace, channel, email: m.email, userId: m.userId, muted })
        return muted ? `Muted channel ${channel} for ${m.email}: their devices get no pushes for its events.` : `Unmuted channel ${channel} for ${m.email}.`
      },
    })
  })
