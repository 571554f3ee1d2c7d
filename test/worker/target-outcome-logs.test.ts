import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'

interface Line {
  msg: string
  postId?: string
  targetId?: string
  network?: string
  kind?: string
  reason?: string
  url?: string
}

const lines = (h: Harness): Line[] =>
  h.logs.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l))

/** Every settled send leaves one line a self-hoster can read: which post, which profile, what happened. */
describe('one log line per target outcome', () => {
  let h: Harness
  let worker: Worker
  let profileId = ''

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, credits: 50, env: { HERALD_IMMEDIATE_WAIT_MS: '20000' } })
    worker = createAppWorker(h.app, { id: 'log-worker' })
    worker.start()
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'log_demo',
    })
    profileId = connected.profileId
  })
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
  })

  const publish = async (content: string) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    const post = await h.call('get_post', { id: postId })
    return { postId, post: post.body }
  }

  it('a published target leaves one "target published" line with its URL', async () => {
    const { postId, post } = await publish('First words from the log test')
    expect(post.status).toBe('published')
    const mine = lines(h).filter((l) => l.postId === postId && l.msg.startsWith('target '))
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({ msg: 'target published', network: 'twitter', url: post.targets[0].url })
  })

  it('a post X refuses leaves exactly one line naming the post, target, network, kind and reason, and no token', async () => {
    await publish('The same words twice')
    const { postId, post } = await publish('The same words twice')
    expect(post.status).toBe('failed')
    const target = post.targets[0]
    const row = await h.app.store.db
      .selectFrom('targets')
      .select('id')
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    const mine = lines(h).filter((l) => l.postId === postId)
    expect(mine).toHaveLength(1)
    expect(mine[0]).toMatchObject({
      msg: 'target failed',
      postId,
      targetId: row.id,
      network: 'twitter',
      kind: 'invalid_content',
    })
    expect(mine[0]?.reason).toBe(target.error)

    const issued = (await (await fetch(`${h.baseUrl}/sandbox/twitter/_sandbox/tokens`)).json()) as Array<{
      token: string
    }>
    expect(issued.length).toBeGreaterThan(0)
    for (const { token } of issued) for (const line of h.logs) expect(line.includes(token)).toBe(false)
  })

  it('every tool call leaves a request line', async () => {
    const before = lines(h).filter((l) => l.msg === 'request').length
    await h.call('get_user_info')
    await h.call('list_posts', {})
    const requests = lines(h).filter((l) => l.msg === 'request')
    expect(requests.length - before).toBe(2)
    expect(requests.at(-1)).toMatchObject({ tool: 'list_posts', status: 200 })
  })
})
