import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * LinkedIn's 429 through the real adapter and the simulator under a fake clock: the worker holds the
 * target until midnight UTC (when LinkedIn's daily windows reset) and publishes it then, not before.
 */
describe('a LinkedIn 429 waits for its reset', () => {
  let h: Harness
  let worker: Worker
  const clock = new FakeClock(Date.UTC(2026, 10, 24, 15, 0))
  const midnight = Date.UTC(2026, 10, 25)

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, env: { HERALD_IMMEDIATE_WAIT_MS: '0' }, credits: 100 })
    worker = createAppWorker(h.app, { id: 'linkedin-429' })
  })
  afterAll(async () => {
    await h?.close()
  })

  const run = async () => {
    const n = await worker.tick()
    await worker.idle()
    return n
  }
  const settings = (body: unknown) =>
    fetch(`${h.baseUrl}${sandboxPrefixes.linkedin}/_sandbox/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('holds the target until midnight UTC and publishes it then', async () => {
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Busy Page',
      organization: true,
    })
    await settings({ postsPerDay: 0 })
    const created = await h.call('create_post', {
      content: 'Posted after the reset',
      targetAccounts: [{ platform: 'linkedin', profileId }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const postId = created.body.postIds[0] as string
    const target = () =>
      h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
    expect(await run()).toBe(1)
    expect((await target()).run_at).toBe(midnight)
    expect((await target()).error).toMatch(/throttled/)
    await settings({ postsPerDay: 150 })
    clock.set(midnight - 1_000)
    expect(await run()).toBe(0)
    clock.set(midnight)
    expect(await run()).toBe(1)
    const published = (await h.call('get_post', { id: postId })).body
    expect(published.status).toBe('published')
    expect(published.targets[0].url).toMatch(/\/sandbox\/linkedin\/web\/feed\/update\/urn:li:share:\d+$/)
  }, 60_000)
})
