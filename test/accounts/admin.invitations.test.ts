// The operator's invitations: the same routes as an owner's (one definition,
// src/http/routes/invitations.ts), so the operator lists and revokes them too.
// Its own invitations have no inviter; one revoked stops its link at once.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { newEmail } from '../users'
import { expectProblem } from '../support'

for (const backend of backends) {
  describe(`operator invitations (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: string
    beforeAll(async () => {
      ws = (await h.workspace()).name
    }, 30_000)

    test('the operator lists its invitation (no inviter), revokes it once, and its link stops working', async () => {
      const email = newEmail('invitee')
      const sent = await h.admin('POST', `/admin/workspaces/${ws}/invitations`, { email, role: 'admin' })
      expect(sent.status).toBe(201)
      const inv = (await sent.json()) as { id: string; link: string }
      const token = inv.link.split('/invite/')[1]!
      expect((await fetch(`${h.url}/v1/invitations/${token}`)).status).toBe(200)

      const list = await h.admin('GET', `/admin/workspaces/${ws}/invitations`)
      expect(list.status).toBe(200)
      expect(((await list.json()) as { id: string }[]).find((i) => i.id === inv.id)).toMatchObject({ email, role: 'admin', invitedBy: null, status: 'pending' })

      expect((await h.admin('DELETE', `/admin/workspaces/${ws}/invitations/${inv.id}`)).status).toBe(204)
      const again = await expectProblem(await h.admin('DELETE', `/admin/workspaces/${ws}/invitations/${inv.id}`), 404, 'not-found')
      expect(again.detail).toBe('There is no pending invitation with this id.')
      await expectProblem(await fetch(`${h.url}/v1/invitations/${token}`), 404, 'not-found')
      const after = (await (await h.admin('GET', `/admin/workspaces/${ws}/invitations`)).json()) as { id: string; status: string }[]
      expect(after.find((i) => i.id === inv.id)?.status).toBe('revoked')
    })

    test('a workspace that does not exist is a 404 that names it', async () => {
      const res = await expectProblem(await h.admin('GET', '/admin/workspaces/no-such-ws-here/invitations'), 404, 'not-found')
      expect(res.detail).toBe('There is no workspace named "no-such-ws-here".')
    })
  })
}
