import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * X answering 5xx to `POST /2/tweets`: the outcome is unknown, so Herald neither resends blindly nor
 * leaves the post stuck. After a short delay it looks among the profile's recent posts: found, the
 * target is published with that post; not found, it is sent again. The X simulator checks every call.
 */
describe('an unanswered X post is resolved by asking X', () => {
  let h: Harness
  let worker: Worker
  let profileId = ''

  const sandbox = (path: string, init?: RequestInit) =>
    fetch(`${h.baseUrl}/sandbox/twitter/_sandbox${path}`, init)
  const injectCreateFailure = (failure: Record<string, unknown>) =>
    sandbox('/failures', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'createPosts', ...failure }),
    })
  const tweetsWith = async (text: string) =>
    ((await (await sandbox('/tweets')).json()) as Array<{ id: string; text: string }>).filter(
      (t) => t.text === text,
    )
  const settled = async (id: string) => {
    for (let i = 0; i < 100; i++) {
      const post = (await h.call('get_post', { id })).body
      if (post.status === 'published' || post.status === 'failed') return post
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('the post did not settle')
  }
  const publish = async (content: string) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.postIds[0] as string
  }

  beforeAll(async () => {
    h = await startHarness({
      sandbox: true,
      credits: 100,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '1000' },
    })
    worker = createAppWorker(h.app, { id: 'lookup-worker' })
    worker.start()
    profileId = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'twitter', username: 'lookup' })
    ).profileId
  })
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  it('X created the post and answered 503: the lookup finds it and the target is published with it, once', async () => {
    expect((await injectCreateFailure({ status: 503, afterEffect: true })).status).toBe(201)
    const id = await publish('Created although X said 503')
    const post = await settled(id)
    expect(post.status).toBe('published')
    const tweets = await tweetsWith('Created although X said 503')
    expect(tweets).toHaveLength(1)
    expect(post.targets[0].url).toBe(`${h.baseUrl}/sandbox/twitter/web/lookup/status/${tweets[0]!.id}`)
  })

  it('X answered 503 without creating it: the lookup finds nothing and the post is sent again, once', async () => {
    expect((await injectCreateFailure({ status: 503 })).status).toBe(201)
    const id = await publish('Not created the first time')
    const post = await settled(id)
    expect(post.status).toBe('published')
    const tweets = await tweetsWith('Not created the first time')
    expect(tweets).toHaveLength(1)
    expect(post.targets[0].url).toBe(`${h.baseUrl}/sandbox/twitter/web/lookup/status/${tweets[0]!.id}`)
  })

  it('while the lookup is pending the post cannot be edited or deleted, and publish now leaves the lookup as it is', async () => {
    expect((await injectCreateFailure({ status: 503, afterEffect: true })).status).toBe(201)
    const id = await publish('Waiting to be looked up')
    let row: { unknown_outcome_at: number | null } | undefined
    for (let i = 0; i < 100 && !row?.unknown_outcome_at; i++) {
      row = await h.app.store.db
        .selectFrom('targets')
        .select('unknown_outcome_at')
        .where('post_id', '=', id)
        .executeTakeFirst()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(row?.unknown_outcome_at).not.toBeNull()
    // Hold the lookup back an hour so the tools meet the target while it waits.
    await h.app.store.db
      .updateTable('targets')
      .set({ run_at: Date.now() + 3_600_000 })
      .where('post_id', '=', id)
      .where('lease_owner', 'is', null)
      .execute()
    expect((await h.call('get_post', { id })).body.targets[0].error).toMatch(/look for the post on twitter/)
    for (const [tool, body] of [
      ['update_post', { id, content: 'Changed' }],
      ['delete_post', { id }],
    ] as const) {
      const answer = await h.call(tool, body)
      expect(answer.status, `${tool}: ${JSON.stringify(answer.body)}`).toBe(409)
    }
    // publish_post_now says the post is going out and sends nothing: the lookup keeps its hour.
    const now = await h.call('publish_post_now', { id })
    expect(now.status, JSON.stringify(now.body)).toBe(200)
    expect(now.body.message).toMatch(/first looks for it on the network/)
    const waiting = await h.app.store.db
      .selectFrom('targets')
      .select('run_at')
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(Number(waiting.run_at)).toBeGreaterThan(Date.now() + 3_000_000)
    expect(await tweetsWith('Waiting to be looked up')).toHaveLength(1)
  })
})
