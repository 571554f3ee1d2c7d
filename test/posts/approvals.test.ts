import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LINK_SURCHARGE, networkRules } from '../../src/core/network-rules.js'
import { approvalReview } from '../../src/modules/publishing/approvals.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { addMember, ledger, type Member, manage } from '../helpers/team.js'
import { startPostHarness } from './post-harness.js'

describe.each(backends)('approvals on $name', (backend) => {
  let h: Harness
  let editor: Member
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0))
  const slot = { scheduleDate: '2030-01-05', scheduleTime: '10:00', timezone: 'UTC' }

  beforeAll(async () => {
    h = await startPostHarness(backend, { clock, credits: 500 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    editor = await addMember(h, 'editor')
  })
  afterAll(() => h.close())

  const balance = async () => (await h.call('get_user_info', {})).body.credits.balance as number
  const asEditor = (tool: string, body: Record<string, unknown>) => h.call(tool, body, { key: editor.apiKey })
  const editorPost = async (content: string, more: Record<string, unknown> = {}) => {
    const res = await asEditor('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...slot,
      ...more,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res
  }
  const approve = (id: string, body: Record<string, unknown> = {}, key?: string) =>
    manage(h, 'POST', `/api/approvals/${id}/approve`, body, { key })
  const reject = (id: string, note: string, key?: string) =>
    manage(h, 'POST', `/api/approvals/${id}/reject`, { note }, { key })

  it('keeps the setting to owners: an editor is refused with 403 and nothing changes', async () => {
    const refused = await manage(
      h,
      'POST',
      '/api/approvals/settings',
      { requireApproval: true },
      { key: editor.apiKey },
    )
    expect(refused.status).toBe(403)
    expect(refused.body.error.message).toMatch(/Only an owner/)
    expect((await manage(h, 'GET', '/api/approvals')).body.requireApproval).toBe(false)
    const malformed = await manage(h, 'POST', '/api/approvals/settings', { requireApproval: 'yes' })
    expect(malformed.status).toBe(400)
    expect(malformed.body.error.details[0].path).toBe('requireApproval')
  })

  it('lets an editor post straight to the queue while approvals are off', async () => {
    const before = await balance()
    const { body } = await editorPost('Before approvals')
    expect(body.post.status).toBe('scheduled')
    expect(body.post.approval).toBeUndefined()
    expect(await balance()).toBe(before - 5)
  })

  it("creates an editor's post as a pending draft, charging nothing, and says so", async () => {
    const on = await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    expect(on.body).toMatchObject({ requireApproval: true, pending: 0 })
    const before = await balance()
    const { body } = await editorPost('Needs a look')
    expect(body.message).toMatch(/Waiting for an owner's approval/)
    expect(body.credits).toEqual({ charged: 0, remaining: before })
    expect(body.post).toMatchObject({
      status: 'draft',
      approval: { state: 'pending' },
      dueAt: '2030-01-05T10:00:00.000Z',
    })
    expect(await balance()).toBe(before)
    const listed = await h.call('list_posts', { approval: 'pending' })
    expect(listed.body.posts.map((p: { id: string }) => p.id)).toEqual([body.post.id])
    expect(listed.body.approvals).toEqual({ pending: 1, rejected: 0 })
    expect((await manage(h, 'GET', '/api/approvals')).body.pending).toBe(1)
    // The queue table stays empty for it: no target can be claimed.
    const targets = await h.app.store.db
      .selectFrom('targets')
      .select(['run_at', 'paid'])
      .where('post_id', '=', body.post.id)
      .execute()
    expect(targets).toEqual([{ run_at: null, paid: 0 }])
  })

  it("never holds an owner's own posts", async () => {
    const res = await h.call('create_post', {
      content: 'Owner posts',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      ...slot,
    })
    expect(res.body.post.status).toBe('scheduled')
    expect(res.body.post.approval).toBeUndefined()
  })

  it('refuses an editor who approves or rejects (403), and publish_post_now of a pending post (409) for anyone', async () => {
    const { body } = await editorPost('Editor tries to approve')
    const id = body.post.id
    expect((await approve(id, {}, editor.apiKey)).status).toBe(403)
    expect((await reject(id, 'no', editor.apiKey)).status).toBe(403)
    for (const key of [editor.apiKey, h.apiKey]) {
      const now = await h.call('publish_post_now', { id }, { key })
      expect(now.status).toBe(409)
      expect(now.body.error.message).toMatch(/waiting for an owner's approval/)
    }
    expect((await h.call('get_post', { id })).body.approval.state).toBe('pending')
  })

  it('rejects with a note the editor reads, and takes the resubmission back', async () => {
    const { body } = await editorPost('Rough copy')
    const id = body.post.id
    expect((await reject(id, '   ')).status).toBe(400)
    const rejected = await reject(id, 'Say which store opens first.')
    expect(rejected.status).toBe(200)
    const seen = await asEditor('get_post', { id })
    expect(seen.body).toMatchObject({
      status: 'draft',
      approval: { state: 'rejected', note: 'Say which store opens first.' },
    })
    expect((await reject(id, 'again')).status).toBe(409)
    // Editing alone keeps it rejected; asking to schedule it resubmits it.
    await asEditor('update_post', { id, content: 'The Leith store opens first' })
    expect((await h.call('get_post', { id })).body.approval.state).toBe('rejected')
    const again = await asEditor('update_post', { id, status: 'scheduled' })
    expect(again.body.message).toMatch(/Waiting for an owner's approval/)
    expect((await h.call('get_post', { id })).body).toMatchObject({
      status: 'draft',
      approval: { state: 'pending' },
    })
  })

  it('refuses to approve a post its author changed after the owner reviewed it (409, nothing charged); the version reviewed now approves it', async () => {
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    const before = await balance()
    const { body } = await editorPost('Harmless copy for review')
    const id = body.post.id
    const reviewed = (await h.call('get_post', { id })).body.approval.version as string
    expect(reviewed).toMatch(/^[0-9a-f]{16}$/)
    // The author swaps the copy (or the slot) between the owner's review and the click.
    await asEditor('update_post', { id, content: 'Something the owner never saw' })
    const stale = await approve(id, { version: reviewed })
    expect(stale.status, JSON.stringify(stale.body)).toBe(409)
    expect(stale.body.error.message).toMatch(/changed since/)
    expect((await h.call('get_post', { id })).body.approval.state).toBe('pending')
    expect(await balance()).toBe(before)
    const current = (await h.call('get_post', { id })).body.approval.version as string
    expect(current).not.toBe(reviewed)
    await asEditor('reschedule_post', { id, scheduleDate: '2030-01-06', scheduleTime: '11:00' })
    expect((await approve(id, { version: current })).status).toBe(409)
    const seen = (await h.call('get_post', { id })).body.approval.version as string
    const approved = await approve(id, { version: seen })
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    expect(approved.body.post).toMatchObject({
      content: 'Something the owner never saw',
      scheduleDate: '2030-01-06',
    })
    expect(await balance()).toBe(before - 5)
  })

  it('refuses to approve a post whose thread or first comment its author replaced after the review (409, nothing charged)', async () => {
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    const before = await balance()
    const { body } = await editorPost('A thread for review', {
      thread: [{ content: 'Part two, reviewed' }],
      firstComment: 'Reviewed comment',
    })
    const id = body.post.id
    const reviewed = (await h.call('get_post', { id })).body.approval.version as string
    expect(body.post.approval.version).toBe(reviewed)
    const threadSwapped = await asEditor('update_post', {
      id,
      thread: [{ content: 'Part two, reviewed' }, { content: 'Buy now https://example.com/deal' }],
    })
    expect(threadSwapped.status, JSON.stringify(threadSwapped.body)).toBe(200)
    const stale = await approve(id, { version: reviewed })
    expect(stale.status, JSON.stringify(stale.body)).toBe(409)
    expect(stale.body.error.message).toMatch(/changed since/)
    const afterThread = (await h.call('get_post', { id })).body.approval.version as string
    await asEditor('update_post', { id, firstComment: 'Unreviewed https://example.com/other' })
    expect((await approve(id, { version: afterThread })).status).toBe(409)
    expect((await h.call('get_post', { id })).body.approval.state).toBe('pending')
    expect(await balance()).toBe(before)
    const seen = (await h.call('get_post', { id })).body.approval.version as string
    const approved = await approve(id, { version: seen })
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    // The post, two thread items and the first comment on X: what the version that was approved shows.
    expect(approved.body.credits.charged).toBe(5 * 4)
    expect(await balance()).toBe(before - 20)
  })

  it('approves once, charging at approval, even when two approvals race', async () => {
    const before = await balance()
    const { body } = await editorPost('Approve me twice')
    const id = body.post.id
    const [a, b] = await Promise.all([approve(id), approve(id)])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    const ok = a.status === 200 ? a : b
    expect(ok.body).toMatchObject({
      credits: { charged: 5 },
      post: { status: 'scheduled', approval: { state: 'approved' } },
    })
    expect(await balance()).toBe(before - 5)
    const charges = (await ledger(h)).filter((l) => l.reference === id)
    expect(charges).toEqual([expect.objectContaining({ delta: -5, reason: 'approval' })])
    const target = await h.app.store.db
      .selectFrom('targets')
      .select(['run_at', 'paid'])
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(target).toEqual({ run_at: Date.UTC(2030, 0, 5, 10, 0), paid: 1 })
  })

  it('sends an approved post back when an editor changes its copy, but not when they move it; re-approval charges nothing more', async () => {
    const { body } = await editorPost('Approved copy')
    const id = body.post.id
    await approve(id)
    const moved = await asEditor('reschedule_post', { id, scheduleDate: '2030-01-06', scheduleTime: '10:00' })
    expect(moved.body.post.status).toBe('scheduled')
    const before = await balance()
    const edited = await asEditor('update_post', { id, content: 'Changed after approval' })
    expect(edited.body.post).toMatchObject({ status: 'draft', approval: { state: 'pending' } })
    const again = await approve(id)
    expect(again.body.credits.charged).toBe(0)
    expect(again.body.post).toMatchObject({ status: 'scheduled', scheduleDate: '2030-01-06' })
    expect(await balance()).toBe(before)
  })

  it("sends an owner's scheduled post back to an owner when an editor changes its copy or profiles, out of the queue until approved", async () => {
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    const created = await h.call('create_post', {
      content: 'Owner wrote this',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...slot,
    })
    const id = created.body.post.id
    expect(created.body.post.status).toBe('scheduled')
    const before = await balance()
    const swapped = await asEditor('update_post', {
      id,
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
    })
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200)
    expect(swapped.body.post).toMatchObject({ status: 'draft', approval: { state: 'pending' } })
    const queued = await h.app.store.db
      .selectFrom('targets')
      .select('run_at')
      .where('post_id', '=', id)
      .execute()
    expect(queued.map((t) => t.run_at)).toEqual([null])
    const approved = await approve(id)
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    // The LinkedIn profile added while it waited is paid at approval (1), the X one removed is not refunded.
    expect(approved.body.credits.charged).toBe(1)
    expect(await balance()).toBe(before - 1)
  })

  it('moves the slot a pending post asks for and lets its author withdraw it', async () => {
    const { body } = await editorPost('Move me')
    const id = body.post.id
    const moved = await asEditor('reschedule_post', { id, scheduleDate: '2030-01-07', scheduleTime: '08:00' })
    expect(moved.body).toMatchObject({ post: { status: 'draft', scheduleDate: '2030-01-07' } })
    expect(moved.body.message).toMatch(/Waiting for an owner's approval/)
    const withdrawn = await asEditor('update_post', { id, status: 'draft' })
    expect(withdrawn.body.post.approval).toBeUndefined()
    expect((await approve(id)).status).toBe(409)
    // Asking again goes back to the owner.
    const asked = await asEditor('publish_post_now', { id })
    expect(asked.body).toMatchObject({
      success: true,
      credits: { charged: 0 },
      post: { approval: { state: 'pending' } },
    })
    const published = await approve(id)
    expect(published.body.message).toMatch(/publishing now/)
    expect(published.body.post.dueAt).toBe(new Date(clock.now()).toISOString())
  })

  it('charges the link surcharge once for the posts of one call, whichever is approved first', async () => {
    const before = await balance()
    const res = await asEditor('create_post', {
      content: 'Read https://example.com/news',
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-1' },
        { platform: 'linkedin', profileId: 'li-1' },
      ],
      ...slot,
    })
    const [x, li] = res.body.postIds as [string, string]
    expect(res.body.credits.charged).toBe(0)
    const [first, second] = await Promise.all([approve(li), approve(x)])
    expect(first.body.credits.charged + second.body.credits.charged).toBe(1 + 5 + 50)
    expect(await balance()).toBe(before - 56)
  })

  it('charges the link surcharge on approval when the link is only in the first comment, and prices it so', async () => {
    const before = await balance()
    const res = await asEditor('create_post', {
      content: 'New menu today',
      firstComment: 'All of it at https://example.com/menu',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      ...slot,
    })
    expect(res.body.credits.charged).toBe(0)
    const [id] = res.body.postIds as [string]
    const review = await approvalReview(h.app, { workspaceId: h.workspaceId }, id)
    // The post and its comment at LinkedIn's price each, and the link's one-off surcharge.
    expect(review?.price).toBe(2 * networkRules.linkedin.price + LINK_SURCHARGE)
    const approved = await approve(id)
    expect(approved.body.credits.charged).toBe(review?.price)
    expect(await balance()).toBe(before - (review?.price ?? 0))
  })

  it('refuses an approval the balance cannot pay with 402, and the post keeps waiting', async () => {
    const { body } = await editorPost('Too dear')
    const id = body.post.id
    const left = await balance()
    await h.app.store.db
      .updateTable('workspaces')
      .set({ credit_balance: 2 })
      .where('id', '=', h.workspaceId)
      .execute()
    const refused = await approve(id)
    expect(refused.status).toBe(402)
    expect((await h.call('get_post', { id })).body.approval.state).toBe('pending')
    await h.app.store.db
      .updateTable('workspaces')
      .set({ credit_balance: left })
      .where('id', '=', h.workspaceId)
      .execute()
  })

  it('refuses to approve a post whose slot passed while it waited, unless it is published now', async () => {
    const { body } = await editorPost('Late', { scheduleDate: '2030-01-02', scheduleTime: '09:00' })
    const id = body.post.id
    clock.set(Date.UTC(2030, 0, 3))
    const late = await approve(id)
    expect(late.status).toBe(409)
    expect(late.body.error.message).toMatch(/passed while it waited/)
    const now = await approve(id, { publishNow: true })
    expect(now.status).toBe(200)
    clock.set(Date.UTC(2030, 0, 1, 12, 0))
  })

  it('answers 404 for a post of another workspace and 400 for a malformed body', async () => {
    expect((await approve('ffffffffffffffffffffffff')).status).toBe(404)
    expect((await manage(h, 'POST', '/api/approvals/x/approve', { publishNow: 'soon' })).status).toBe(400)
    expect((await manage(h, 'POST', '/api/approvals/x/reject', { note: 'n', extra: 1 })).status).toBe(400)
    expect((await manage(h, 'GET', '/api/approvals', undefined, { key: 'hk_wrong' })).status).toBe(401)
  })
})
