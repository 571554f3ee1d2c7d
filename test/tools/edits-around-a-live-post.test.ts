import { beforeAll, describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { claimDueTargets, releaseUnstarted, sweepExpiredLeases } from '../../src/modules/delivery/leases.js'
import { backends } from '../helpers/backends.js'
import { useChainRig } from '../helpers/chain-rig.js'
import { addMember, manage } from '../helpers/team.js'

/**
 * A person edits, resets, drafts or deletes a post that is partly on its network (its post live, an item
 * refused or in doubt, or the outcome of its last send unknown). Whatever they do, the network ends up
 * holding each post and item once: counted on the simulators (copies, and the publishing calls that reached
 * them), never in Herald's rows.
 */
describe.each(backends)('edits around a post that is partly out ($name)', (backend) => {
  const rig = useChainRig(backend)
  const profiles: Record<string, string> = {}
  const X = '/sandbox/twitter'
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
  const inTwoDays = () => new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)

  beforeAll(async () => {
    for (const [network, username] of [
      ['twitter', 'editor_x'],
      ['facebook', 'Edit Cafe'],
      ['threads', 'edit.threads'],
    ] as const)
      profiles[network] = (
        await sandboxConnect(rig.h.app, { workspaceId: rig.h.workspaceId, network, username })
      ).profileId
  })

  const tweets = async () => (await rig.state(X, '/_sandbox/tweets')) as Array<{ id: string; text: string }>
  const tweetsStarting = async (prefix: string) => (await tweets()).filter((t) => t.text.startsWith(prefix))
  const fbPosts = (message: string) =>
    [...rig.h.sandboxes!.meta.posts.values()].filter((p) => p.message === message)
  const fbComments = (message: string) =>
    [...rig.h.sandboxes!.meta.comments.values()].filter((c) => c.message === message)
  const threadsPosts = (text: string) =>
    [...rig.h.sandboxes!.threads.threads.values()].filter((t) => t.text === text)
  /** Publishing calls that reached a simulator after the `since`-th one recorded. */
  const callsSince = (since: number, network: string, operation: string) =>
    rig.calls.slice(since).filter((c) => c.network === network && c.operation === operation).length

  const create = async (input: Record<string, unknown>) => {
    const { status, body } = await rig.h.call('create_post', input)
    expect(status, JSON.stringify(body)).toBe(200)
    return body.postIds[0] as string
  }
  const later = { scheduleDate: tomorrow(), scheduleTime: '12:00' }
  const refusedComment = {
    timing: 'before' as const,
    answer: {
      kind: 'status' as const,
      status: 400,
      body: { error: { message: 'The comment was blocked', type: 'OAuthException', code: 368 } },
    },
  }
  const facebookComment =
    (method: string) => (call: { network: string; operation: string; method: string }) =>
      call.network === 'facebook' && call.operation === 'comments' && call.method === method

  /** `real`, except the process dies the moment the item at `index` has gone out: its answer is never recorded. */
  const diesAfterItem = (real: NetworkAdapter, index: number): NetworkAdapter => ({
    ...real,
    publishItem: async (request) => {
      const result = await real.publishItem!(request)
      if (request.index === index) throw new Error('SIGKILL')
      return result
    },
  })
  /** `real`, except the process dies the moment the post has gone out. */
  const diesAfterPost = (real: NetworkAdapter): NetworkAdapter => ({
    ...real,
    publish: async (request) => {
      await real.publish(request)
      throw new Error('SIGKILL')
    },
  })
  /** A worker claims what is due on `network` (the post's target among it), then stops before sending any. */
  const claimAndGiveBack = async (network: 'facebook' | 'twitter', postId: string) => {
    const now = Date.now()
    const claimed = await claimDueTargets(rig.h.app.store, {
      workerId: 'stopping-worker',
      now,
      leaseMs: 60_000,
      limit: 10,
      platforms: [network],
    })
    expect(claimed.map((t) => t.post_id)).toContain(postId)
    await releaseUnstarted(
      rig.h.app.store,
      'stopping-worker',
      claimed.map((t) => t.id),
      now,
    )
  }
  const crashAfter = async (id: string, adapter: NetworkAdapter, worker: string) => {
    await rig.sendAsCrashingWorker(id, adapter, worker)
    await rig.leaseRunsOut(id)
    const reset = await rig.h.call('reset_stuck_post', { id })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
  }

  it('a Facebook photo post whose first comment was refused is published, not posted again, once the comment is removed', async () => {
    rig.fault(facebookComment('POST'), refusedComment)
    const id = await create({
      content: 'Photo with a refused comment',
      mediaUrls: [rig.imageUrl],
      targetAccounts: [{ platform: 'facebook', profileId: profiles.facebook }],
      firstComment: 'A comment Facebook blocks',
      publishImmediately: true,
    })
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    expect((await rig.post(id)).targets[0]).toMatchObject({ status: 'failed', postId: expect.any(String) })
    const since = rig.calls.length

    const removed = await rig.h.call('update_post', { id, firstComment: '' })
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    const again = await rig.h.call('publish_post_now', { id })
    await rig.drain()

    expect(fbPosts('Photo with a refused comment')).toHaveLength(1)
    expect(callsSince(since, 'facebook', 'photos')).toBe(0)
    expect(fbComments('A comment Facebook blocks')).toHaveLength(0)
    // The post is on the network, nothing is left to send: published, and publish now has nothing to do.
    expect(removed.body.post.status).toBe('published')
    expect(removed.body.post.targets[0].status).toBe('published')
    expect(again.status, JSON.stringify(again.body)).toBe(409)
  })

  it('a failed target whose post is live and has no items left (as an older edit left it) is published by publish now, not posted again', async () => {
    rig.fault(facebookComment('POST'), refusedComment)
    const id = await create({
      content: 'Live, its items dropped by an older edit',
      mediaUrls: [rig.imageUrl],
      targetAccounts: [{ platform: 'facebook', profileId: profiles.facebook }],
      firstComment: 'Another blocked comment',
      publishImmediately: true,
    })
    await rig.drain()
    await rig.h.app.store.db.updateTable('targets').set({ items: null }).where('post_id', '=', id).execute()
    await rig.h.app.store.db.updateTable('posts').set({ items: null }).where('id', '=', id).execute()
    const since = rig.calls.length

    const again = await rig.h.call('publish_post_now', { id })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    await rig.drain()

    expect(fbPosts('Live, its items dropped by an older edit')).toHaveLength(1)
    expect(callsSince(since, 'facebook', 'photos')).toBe(0)
    const post = await rig.post(id)
    expect(post.status).toBe('published')
    expect(post.targets[0]).toMatchObject({ status: 'published', postId: expect.any(String) })
  })

  it('an X thread whose second post was refused is not published again once the thread is removed', async () => {
    await create({
      content: 'Said before on X',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      publishImmediately: true,
    })
    await rig.drain()
    const id = await create({
      content: 'Thread E 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      thread: [{ content: 'Said before on X' }],
      publishImmediately: true,
    })
    await rig.drain()
    expect((await rig.post(id)).targets[0].status).toBe('failed')
    const since = rig.calls.length

    const removed = await rig.h.call('update_post', { id, thread: [] })
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    await rig.h.call('publish_post_now', { id })
    await rig.drain()

    expect(await tweetsStarting('Thread E')).toHaveLength(1)
    expect(callsSince(since, 'twitter', 'createPosts')).toBe(0)
    const post = await rig.post(id)
    expect(post.status).toBe('published')
    expect(post.targets[0]).toMatchObject({ status: 'published', url: expect.stringMatching(/status\/\d+$/) })
  })

  it.each([
    ['a new slot', () => ({ scheduleDate: inTwoDays(), scheduleTime: '09:30' })],
    ['the same comment', () => ({ firstComment: 'Kept across the edit' })],
  ])(
    'a Facebook first comment that went out as the worker died is looked up, not posted again, after a reset; an edit with %s waits (409) for the lookup',
    async (_name, edit) => {
      const id = await create({
        content: `Comment crash, edited with ${_name}`,
        targetAccounts: [{ platform: 'facebook', profileId: profiles.facebook }],
        firstComment: 'Kept across the edit',
        ...later,
      })
      const before = fbComments('Kept across the edit').length
      await crashAfter(id, diesAfterItem(rig.h.app.adapters.facebook!, 0), `doomed-fb-${_name}`)
      expect(fbComments('Kept across the edit')).toHaveLength(before + 1)
      const since = rig.calls.length

      // The reset put the post behind its lookup: it is going out, and nothing about it changes meanwhile.
      expect((await rig.post(id)).status).toBe('processing')
      const edited = await rig.h.call('update_post', { id, ...edit() })
      expect(edited.status, JSON.stringify(edited.body)).toBe(409)
      const again = await rig.h.call('publish_post_now', { id })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      expect(again.body.credits.charged).toBe(0)
      await rig.drain()

      expect(fbComments('Kept across the edit')).toHaveLength(before + 1)
      expect(callsSince(since, 'facebook', 'comments')).toBe(0)
      expect(fbPosts(`Comment crash, edited with ${_name}`)).toHaveLength(1)
      expect(callsSince(since, 'facebook', 'feed')).toBe(0)
      expect((await rig.post(id)).status).toBe('published')
    },
  )

  it('a Threads reply that went out as the worker died is found by its saved container after a reset that an edit cannot change, not posted again', async () => {
    const id = await create({
      content: 'Threads crash 1/ the first',
      targetAccounts: [{ platform: 'threads', profileId: profiles.threads }],
      thread: [{ content: 'Threads crash 2/ the reply' }, { content: 'Threads crash 3/ the last' }],
      ...later,
    })
    await crashAfter(id, diesAfterItem(rig.h.app.adapters.threads!, 0), 'doomed-threads')
    expect(threadsPosts('Threads crash 2/ the reply')).toHaveLength(1)
    const since = rig.calls.length

    const edited = await rig.h.call('update_post', {
      id,
      thread: [{ content: 'Threads crash 2/ the reply' }, { content: 'Threads crash 3/ the last, fixed' }],
    })
    expect(edited.status, JSON.stringify(edited.body)).toBe(409)
    expect((await rig.h.call('publish_post_now', { id })).status).toBe(200)
    await rig.drain()

    expect(threadsPosts('Threads crash 1/ the first')).toHaveLength(1)
    expect(threadsPosts('Threads crash 2/ the reply')).toHaveLength(1)
    expect(threadsPosts('Threads crash 3/ the last')).toHaveLength(1)
    expect(threadsPosts('Threads crash 3/ the last, fixed')).toHaveLength(0)
    // Only the last reply was published after the reset.
    expect(callsSince(since, 'threads', 'threads_publish')).toBe(1)
    expect((await rig.post(id)).status).toBe('published')
  })

  it('an edit to the item whose send is in doubt is refused (409) until the lookup after the reset has answered', async () => {
    const id = await create({
      content: 'Doubtful reply 1/ the first',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      thread: [{ content: 'Doubtful reply 2/ in doubt' }],
      ...later,
    })
    await crashAfter(id, diesAfterItem(rig.h.app.adapters.twitter!, 0), 'doomed-x-item')
    for (const thread of [[{ content: 'Doubtful reply 2/ changed' }], []]) {
      const refused = await rig.h.call('update_post', { id, thread })
      expect(refused.status, JSON.stringify(refused.body)).toBe(409)
      expect(refused.body.error.code).toBe('conflict')
      expect(refused.body.error.message).toMatch(/processing post cannot be changed/)
    }
    expect((await rig.h.call('publish_post_now', { id })).status).toBe(200)
    await rig.drain()
    expect(await tweetsStarting('Doubtful reply')).toHaveLength(2)
    expect((await rig.post(id)).status).toBe('published')
  })

  it('an X post whose outcome is unknown after a reset cannot change its copy (409), and its lookup finds the post it sent', async () => {
    const id = await create({
      content: 'Unknown outcome, with a typo',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      ...later,
    })
    await crashAfter(id, diesAfterPost(rig.h.app.adapters.twitter!), 'doomed-x-post')
    const since = rig.calls.length

    const typo = await rig.h.call('update_post', { id, content: 'Unknown outcome, without a typo' })
    expect(typo.status, JSON.stringify(typo.body)).toBe(409)
    expect(typo.body.error.code).toBe('conflict')
    expect(typo.body.error.message).toMatch(/processing post cannot be changed/)
    // What it sent is not changed by the edit that was refused.
    expect((await rig.post(id)).content).toBe('Unknown outcome, with a typo')
    expect((await rig.h.call('publish_post_now', { id })).status).toBe(200)
    await rig.drain()

    expect(await tweetsStarting('Unknown outcome')).toHaveLength(1)
    expect(callsSince(since, 'twitter', 'createPosts')).toBe(0)
    expect((await rig.post(id)).status).toBe('published')
  })

  it('after lookups were exhausted, a reset looks again: the copy is frozen, the post cannot be drafted or deleted, and the lookup finds the post', async () => {
    const id = await create({
      content: 'Lookups ran out on this one',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      ...later,
    })
    await rig.sendAsCrashingWorker(id, diesAfterPost(rig.h.app.adapters.twitter!), 'doomed-x-lookups')
    await rig.leaseRunsOut(id)
    await sweepExpiredLeases(
      rig.h.app.store,
      Date.now(),
      ['twitter'],
      { stuck: 'stuck', lookup: () => 'look' },
      0,
    )
    // A day of lookups that could not ask X: the last one fails too, and the target is stuck for a person.
    await rig.h.app.store.db
      .updateTable('targets')
      .set({ unknown_outcome_at: Date.now() - 25 * 3_600_000 })
      .where('post_id', '=', id)
      .execute()
    rig.fault((call) => call.network === 'twitter' && call.operation === 'getUsersPosts', {
      timing: 'before',
      answer: { kind: 'status', status: 503 },
    })
    await rig.drain()
    expect(rig.unapplied()).toBe(0)
    expect((await rig.post(id)).targets[0].error).toMatch(/could not ask twitter/)
    expect((await rig.h.call('reset_stuck_post', { id })).status).toBe(200)
    const since = rig.calls.length

    // The reset gave the lookups a fresh day: the post is going out, so nothing about it changes, it cannot
    // go back to a draft, and it cannot be deleted (that would erase the only record of a post X may hold).
    expect((await rig.post(id)).status).toBe('processing')
    const typo = await rig.h.call('update_post', { id, content: 'Lookups ran out, copy changed' })
    expect(typo.status, JSON.stringify(typo.body)).toBe(409)
    expect((await rig.h.call('update_post', { id, status: 'draft' })).status).toBe(409)
    const deleted = await rig.h.call('delete_post', { id })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(409)
    expect((await rig.h.call('publish_post_now', { id })).status).toBe(200)
    await rig.drain()

    expect((await tweets()).filter((t) => t.text.startsWith('Lookups ran out'))).toHaveLength(1)
    expect(callsSince(since, 'twitter', 'createPosts')).toBe(0)
    expect((await rig.post(id)).status).toBe('published')
  })

  it('a failed post live on X cannot go back to draft or be deleted; publish now sends only what is left', async () => {
    await create({
      content: 'Already on X once',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      publishImmediately: true,
    })
    await rig.drain()
    const id = await create({
      content: 'Thread F 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      thread: [{ content: 'Already on X once' }],
      publishImmediately: true,
    })
    await rig.drain()
    expect((await rig.post(id)).status).toBe('failed')

    for (const status of ['draft', 'scheduled']) {
      const back = await rig.h.call('update_post', { id, status })
      expect(back.status, JSON.stringify(back.body)).toBe(409)
      expect(back.body.error.message).toMatch(/X @\S+ has this post live on X/)
    }
    const moved = await rig.h.call('reschedule_post', { id, scheduleDate: tomorrow(), scheduleTime: '10:00' })
    expect(moved.status, JSON.stringify(moved.body)).toBe(409)
    const deleted = await rig.h.call('delete_post', { id })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(409)
    expect(deleted.body.error.message).toMatch(/X @\S+ has this post live on X/)

    const fixed = await rig.h.call('update_post', { id, thread: [{ content: 'Thread F 2/ fixed' }] })
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200)
    const since = rig.calls.length
    const again = await rig.h.call('publish_post_now', { id })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(again.body.post.status).not.toBe('scheduled')
    expect((await rig.h.call('delete_post', { id })).status).toBe(409)
    await rig.drain()

    expect(await tweetsStarting('Thread F')).toHaveLength(2)
    expect(callsSince(since, 'twitter', 'createPosts')).toBe(1)
    expect((await rig.post(id)).status).toBe('published')
  })

  it('a graceful stop that gives back a live post whose comment retry was claimed keeps it undeletable, and the comment goes out once', async () => {
    rig.fault(facebookComment('POST'), { timing: 'before', answer: { kind: 'status', status: 503 } })
    const id = await create({
      content: 'Live, comment retry pending',
      mediaUrls: [rig.imageUrl],
      targetAccounts: [{ platform: 'facebook', profileId: profiles.facebook }],
      firstComment: 'The comment after a retry',
      publishImmediately: true,
    })
    const db = rig.h.app.store.db
    // One pass: the post goes out, the comment call is refused before it did anything, a retry is queued.
    await rig.pass()
    expect(rig.unapplied()).toBe(0)
    const target = await db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(target).toMatchObject({ status: 'pending', lease_owner: null, remote_id: expect.any(String) })
    const before = { post: (await rig.post(id)).attempts, target: target.attempts }
    await db.updateTable('targets').set({ run_at: Date.now() }).where('post_id', '=', id).execute()
    await claimAndGiveBack('facebook', id)

    const released = await rig.post(id)
    expect(released.status).toBe('processing')
    const after = await db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow()
    expect({ post: released.attempts, target: after.attempts }).toEqual(before)
    const deleted = await rig.h.call('delete_post', { id })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(409)
    await rig.drain()

    expect(fbPosts('Live, comment retry pending')).toHaveLength(1)
    expect(fbComments('The comment after a retry')).toHaveLength(1)
    expect((await rig.post(id)).status).toBe('published')
  })

  it("a graceful stop that gives back a lookup's claim gives back the lookup, not a send attempt", async () => {
    const id = await create({
      content: 'A lookup given back at shutdown',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      ...later,
    })
    await rig.sendAsCrashingWorker(id, diesAfterPost(rig.h.app.adapters.twitter!), 'doomed-x-claim')
    await rig.leaseRunsOut(id)
    await sweepExpiredLeases(
      rig.h.app.store,
      Date.now(),
      ['twitter'],
      { stuck: 'stuck', lookup: () => 'look' },
      0,
    )
    const db = rig.h.app.store.db
    const row = () => db.selectFrom('targets').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow()
    const before = await row()
    const beforePost = (await rig.post(id)).attempts
    await claimAndGiveBack('twitter', id)
    const after = await row()
    expect({ attempts: after.attempts, lookups: after.lookups }).toEqual({
      attempts: before.attempts,
      lookups: before.lookups,
    })
    expect((await rig.post(id)).attempts).toBe(beforePost)
    await rig.drain()
    expect(await tweetsStarting('A lookup given back')).toHaveLength(1)
    expect((await rig.post(id)).status).toBe('published')
  })

  it("an editor's publish now of a failed post live on X waits for approval without going back to draft; approved, only what is left goes out", async () => {
    await create({
      content: 'Already said before approvals',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      publishImmediately: true,
    })
    await rig.drain()
    const id = await create({
      content: 'Thread G 1/ the first post',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      thread: [{ content: 'Already said before approvals' }],
      publishImmediately: true,
    })
    await rig.drain()
    expect((await rig.h.call('update_post', { id, thread: [{ content: 'Thread G 2/ fixed' }] })).status).toBe(
      200,
    )
    const editor = await addMember(rig.h, `editor-${backend.name}`)
    expect((await manage(rig.h, 'POST', '/api/approvals/settings', { requireApproval: true })).status).toBe(
      200,
    )
    try {
      const asked = await rig.h.call('publish_post_now', { id }, { key: editor.apiKey })
      expect(asked.status, JSON.stringify(asked.body)).toBe(200)
      expect(asked.body.post).toMatchObject({ status: 'failed', approval: { state: 'pending' } })
      expect((await rig.h.call('delete_post', { id })).status).toBe(409)
      const since = rig.calls.length
      const approved = await manage(rig.h, 'POST', `/api/approvals/${id}/approve`, {})
      expect(approved.status, JSON.stringify(approved.body)).toBe(200)
      expect(approved.body.post.status).toBe('processing')
      await rig.drain()
      expect(await tweetsStarting('Thread G')).toHaveLength(2)
      expect(callsSince(since, 'twitter', 'createPosts')).toBe(1)
      expect((await rig.post(id)).status).toBe('published')
    } finally {
      await manage(rig.h, 'POST', '/api/approvals/settings', { requireApproval: false })
    }
  })
})
