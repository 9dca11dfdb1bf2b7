// The members page's state (src/web/state/members.ts): who may give which
// role to whom, and, against a real Herald with real web sessions, reading
// the members (and, for those who manage, the pending invitations),
// inviting someone who then joins, changing their role and removing them.
import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { canEdit, loadPeople, peopleChanges, rolesOffered, type Member } from '../../src/web/state/members'
import { backends, useTestHerald } from '../harness'
import { browser, newEmail, PASSWORD } from '../users'
import { sessionApi, signUpWeb } from './signed_in'

describe('who may change whom', () => {
  const member = (userId: string, role: Member['role']): Member => ({ userId, email: `${userId}@example.com`, role, devices: 0, mutedChannels: [], createdAt: '' })

  test('only an owner makes owners', () => {
    expect(rolesOffered('owner')).toEqual(['member', 'admin', 'owner'])
    expect(rolesOffered('admin')).toEqual(['member', 'admin'])
  })

  test('owners and admins change others, an admin no owner, nobody themselves', () => {
    const admin = { userId: 'me', role: 'admin' as const, canManage: true }
    const owner = { userId: 'me', role: 'owner' as const, canManage: true }
    expect(canEdit(member('other', 'member'), admin)).toBe(true)
    expect(canEdit(member('other', 'owner'), admin)).toBe(false)
    expect(canEdit(member('other', 'owner'), owner)).toBe(true)
    expect(canEdit(member('me', 'owner'), owner)).toBe(false)
    expect(canEdit(member('other', 'member'), { userId: 'me', role: 'member', canManage: false })).toBe(false)
  })
})

for (const backend of backends) {
  describe(`members state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test('invite, join, change the role, remove; members do not see invitations', async () => {
      const owner = await signUpWeb(h, 'owner')
      const change = peopleChanges(owner.api, owner.workspace)
      const alone = await loadPeople(owner.api, owner.workspace, true)
      expect(alone.members.map((m) => [m.email, m.role])).toEqual([[owner.email, 'owner']])
      expect(alone.invitations).toEqual([])

      const email = newEmail('invited')
      const invitation = await change.invite(`  ${email} `, 'member')
      expect(invitation.email).toBe(email)
      const pending = await loadPeople(owner.api, owner.workspace, true)
      expect(pending.invitations!.map((i) => [i.email, i.role, i.status])).toEqual([[email, 'member', 'pending']])

      // They join through the link, as the invitation page does.
      const token = invitation.link.split('/').at(-1)!
      const person = browser(h)
      expect((await person.session('/v1/auth/signup', { email, password: PASSWORD, invitation: token })).status).toBe(201)
      const joined = sessionApi(h, () => person.cookie)
      const seenByMember = await loadPeople(joined, owner.workspace, false)
      expect(seenByMember.invitations).toBeNull()
      expect(seenByMember.members.map((m) => m.email).sort()).toEqual([owner.email, email].sort())
      // Accepted: no longer pending.
      expect((await loadPeople(owner.api, owner.workspace, true)).invitations).toEqual([])

      const them = seenByMember.members.find((m) => m.email === email)!
      await change.setRole(them.userId, 'admin')
      expect((await loadPeople(owner.api, owner.workspace, true)).members.find((m) => m.userId === them.userId)!.role).toBe('admin')
      await change.remove(them.userId)
      expect((await loadPeople(owner.api, owner.workspace, true)).members.map((m) => m.email)).toEqual([owner.email])
      const out = (await loadPeople(joined, owner.workspace, false).catch((e: unknown) => e)) as ApiError
      expect(out.status).toBe(404)
    })

    test('an invitation revoked is no longer pending', async () => {
      const owner = await signUpWeb(h, 'owner-revoke')
      const change = peopleChanges(owner.api, owner.workspace)
      const sent = await change.invite(newEmail('revoked'), 'admin')
      await change.revokeInvitation(sent.id)
      expect((await loadPeople(owner.api, owner.workspace, true)).invitations).toEqual([])
    })
  })
}
