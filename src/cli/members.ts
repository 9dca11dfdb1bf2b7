// The operator commands on people: `herald member …` and `herald invite`.
// The operator is nobody's peer in a workspace: it gives any role and removes
// anyone, except that the last owner stays one; an invitation it sends has
// no inviter. A member is named by e-mail or user id.
import { Option, type Command } from 'commander'
import type { MemberView } from '../accounts/members'
import type { AdminClient } from './client'
import { group, operatorCommand, UUID, wsPath } from './command'
import { CliError, json, table, utc } from './output'
import { secret } from './admin'

const ROLES = ['member', 'admin', 'owner']
const roleOption = (what: string) => new Option('--role <role>', what).choices(ROLES).default('member')

const WORKSPACE: [string, string] = ['<workspace>', "the workspace's name"]
const MEMBER: [string, string] = ['<member>', "the member's e-mail address or user id"]
const membersPath = (workspace: string) => `${wsPath(workspace)}/members`

/** The member an e-mail address or a user id names, looked up in the list. */
export async function findMember(client: AdminClient, workspace: string, who: string): Promise<MemberView> {
  const list = await client.request<MemberView[]>('GET', membersPath(workspace))
  const found = list.find((m) => (UUID.test(who) ? m.userId === who.toLowerCase() : m.email.toLowerCase() === who.trim().toLowerCase()))
  if (!found) throw new CliError('api', `${who} is not a member of workspace ${workspace}.`)
  return found
}

function membersTable(workspace: string, list: MemberView[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no members. Add one with: herald member add ${workspace} EMAIL, or invite one with: herald invite ${workspace} EMAIL`
  return table(
    ['EMAIL', 'ROLE', 'DEVICES', 'MUTED CHANNELS', 'USER ID', 'SINCE (UTC)'],
    list.map((m) => [m.email, m.role, m.devices, m.mutedChannels.join(', ') || '-', m.userId, utc(m.createdAt)]),
  )
}

export const addMemberCommands = (program: Command) =>
  group(program, 'member', 'Add, list and remove the members of a workspace, and change their role.', (g) => {
    operatorCommand<{ role: string }>(g, {
      name: 'add',
      args: [WORKSPACE, ['<email>', "the person's e-mail address"]],
      summary: 'Add a member at once, without an invitation, and print their token for the device API.',
      description:
        'Add a person as a member at once (an account is made for a new address; they choose a password with a reset) and print a user token for the device API, once. To let them accept by e-mail instead, use herald invite.',
      options: (cmd) => cmd.addOption(roleOption('their role in the workspace')),
      examples: ['herald member add acme jane@example.com', 'herald member add acme ops@example.com --role admin'],
      async run(client, [workspace, email], opts) {
        const added = await client.request<{ userId: string; userToken: string }>('POST', membersPath(workspace!), { email, role: opts.role })
        if (opts.json) return json(added)
        return `Added ${email} to workspace ${workspace} as ${opts.role} (user id ${added.userId}).\n` + secret('Their token for the device API', added.userToken)
      },
    })
    operatorCommand(g, {
      name: 'list',
      args: [WORKSPACE],
      summary: 'List the members with their role, devices and muted channels.',
      examples: ['herald member list acme'],
      async run(client, [workspace], opts) {
        const list = await client.request<MemberView[]>('GET', membersPath(workspace!))
        return opts.json ? json(list) : membersTable(workspace!, list)
      },
    })
    operatorCommand(g, {
      name: 'remove',
      args: [WORKSPACE, MEMBER],
      summary: 'Remove a member (the last owner stays: make someone else owner first).',
      examples: ['herald member remove acme jane@example.com'],
      async run(client, [workspace, who], opts) {
        const m = await findMember(client, workspace!, who!)
        await client.request<void>('DELETE', `${membersPath(workspace!)}/${m.userId}`)
        if (opts.json) return json({ workspace, userId: m.userId, email: m.email, removed: true })
        return `Removed ${m.email} from workspace ${workspace}.`
      },
    })
    operatorCommand(g, {
      name: 'role',
      args: [WORKSPACE, MEMBER, ['<role>', 'member, admin or owner']],
      summary: "Change a member's role: member, admin or owner.",
      examples: ['herald member role acme jane@example.com admin', 'herald member role acme jane@example.com owner'],
      async run(client, [workspace, who, role], opts) {
        if (!ROLES.includes(role!)) throw new CliError('usage', `the role must be member, admin or owner, got ${JSON.stringify(role)}`)
        const m = await findMember(client, workspace!, who!)
        const changed = await client.request<MemberView>('PATCH', `${membersPath(workspace!)}/${m.userId}`, { role })
        return opts.json ? json(changed) : `${m.email} is now ${role === 'member' ? 'a member' : `an ${role}`} of workspace ${workspace} (was ${m.role}).`
      },
    })
  })

interface CreatedInvitation {
  id: string
  email: string
  role: string
  expiresAt: string
  link: string
}

export const addInviteCommand = (program: Command) =>
  operatorCommand<{ role: string }>(program, {
    name: 'invite',
    args: [WORKSPACE, ['<email>', 'the address the invitation is e-mailed to']],
    summary: 'Invite someone by e-mail; prints the link too.',
    description:
      'Invite someone to a workspace by e-mail, as an owner does from the dashboard: a link that works once, for 7 days, and makes its holder a member with --role once they sign in or sign up with that address. The e-mail goes out through SMTP_URL (without it, the server logs it); the link is printed too, to pass on another way. The invitation has no inviter.',
    options: (cmd) => cmd.addOption(roleOption('the role they get on accepting')),
    examples: ['herald invite acme jane@example.com', 'herald invite acme ops@example.com --role admin'],
    async run(client, [workspace, email], opts) {
      const inv = await client.request<CreatedInvitation>('POST', `${wsPath(workspace!)}/invitations`, { email, role: opts.role })
      if (opts.json) return json(inv)
      return `Invited ${inv.email} to workspace ${workspace} as ${inv.role}; the link works once, until ${utc(inv.expiresAt)} UTC:\n\n    ${inv.link}`
    },
  })
