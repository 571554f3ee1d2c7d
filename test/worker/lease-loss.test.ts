import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure, type PublishRequest } from '../../src/adapters/adapter.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

describe.each(backends)('a worker that loses its lease on $name', (backend) => {
  let h: Harness
  let twitter: ScriptedAdapter
  let worker: Worker

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({
      backend,
      adapters: { twitter },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_WORKER_LEASE_MS: '300' },
      credits: 1000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    worker = createAppWorker(h.app, { id: 'slow-worker' })
  })
  afterAll(async () => {
    await worker.stop()
    await h.close()
  })

  it('stops the send before its network call and writes nothing over the new holder', async () => {
    let seen: PublishRequest | undefined
    let reachedNetwork = false
    twitter.script.push(
      (request) =>
        new Promise((resolve, reject) => {
          seen = request
          // A long media step: the publish call itself would come after it.
          const timer = setTimeout(() => {
            reachedNetwork = true
            resolve({ remoteId: 'late', url: 'https://x.example/late' })
          }, 3_000)
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            reject(new PublishFailure('transient', 'cancelled before the post was sent'))
          })
        }),
    )
    const created = await h.call('create_post', {
      content: 'Slow to send',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    expect(created.status).toBe(200)
    const postId = created.body.postIds[0] as string
    worker.start()
    for (let i = 0; i < 100 && !seen; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(seen).toBeDefined()
    // Another holder takes the target over (as a reset and a new claim would).
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'other-worker', lease_expires_at: Date.now() + 60_000 })
      .where('post_id', '=', postId)
      .execute()
    await worker.idle()
    expect(seen?.signal.aborted).toBe(true)
    expect(reachedNetwork).toBe(false)
    const row = await h.app.store.db
      .selectFrom('targets')
      .select(['lease_owner', 'status', 'error'])
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ lease_owner: 'other-worker', status: 'pending' })
  })
})

describe.each(backends)(
  'reset_stuck_post and publish_post_now while the first send still runs, on $name',
  (backend) => {
    let h: Harness
    let twitter: ScriptedAdapter
    const workers: Worker[] = []

    beforeAll(async () => {
      twitter = scriptedAdapter('twitter')
      h = await startHarness({
        backend,
        adapters: { twitter },
        env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_WORKER_LEASE_MS: '300' },
        credits: 1000,
      })
      await connectProfile(h, 'twitter', 'tw-1', 'acme')
    })
    afterAll(async () => {
      for (const w of workers) await w.stop()
      await h.close()
    })

    it('reaches the network once: the first worker stops when its lease is taken over', async () => {
      const reached: string[] = []
      let firstStarted = false
      // The first send is slow (a long upload); whatever reaches "the network" is recorded.
      twitter.script.push(
        (request) =>
          new Promise((resolve, reject) => {
            firstStarted = true
            const timer = setTimeout(() => {
              reached.push('first')
              resolve({ remoteId: 'first', url: 'https://x.example/first' })
            }, 2_000)
            request.signal.addEventListener('abort', () => {
              clearTimeout(timer)
              reject(new PublishFailure('transient', 'cancelled before the post was sent'))
            })
          }),
      )
      twitter.script.push(async () => {
        reached.push('second')
        return { remoteId: 'second', url: 'https://x.example/second' }
      })
      const created = await h.call('create_post', {
        content: 'Exactly once, even after a reset',
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        publishImmediately: true,
      })
      const id = created.body.postIds[0] as string
      const first = createAppWorker(h.app, { id: 'first-worker' })
      workers.push(first)
      first.start()
      for (let i = 0; i < 100 && !firstStarted; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(firstStarted).toBe(true)
      // The first worker looks dead to everyone else: its lease ran out (a stalled heartbeat).
      await h.app.store.db
        .updateTable('targets')
        .set({ lease_expires_at: Date.now() - 1 })
        .where('post_id', '=', id)
        .execute()
      const reset = await h.call('reset_stuck_post', { id })
      expect(reset.status, JSON.stringify(reset.body)).toBe(200)
      const again = await h.call('publish_post_now', { id })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      const second = createAppWorker(h.app, { id: 'second-worker' })
      workers.push(second)
      second.start()
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect(reached).toEqual(['second'])
      const post = (await h.call('get_post', { id })).body
      expect(post.status).toBe('published')
      expect(post.targets[0].url).toBe('https://x.example/second')
    })
  },
)
