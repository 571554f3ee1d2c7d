import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { PublishResult } from '../../src/adapters/adapter.js'
import { createWorker } from '../../src/modules/delivery/worker.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

/**
 * Found by the fault simulation: a worker whose database went away (the process lost it, as a killed
 * worker's would) threw out of stop() while releasing its unstarted claims, before clearing its heartbeat,
 * so it never finished stopping.
 */
describe.each(backends)('a worker whose database is gone on $name', (backend) => {
  let h: Harness
  let twitter: ScriptedAdapter

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter', { concurrency: 1 })
    h = await startHarness({ backend, adapters: { twitter }, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
  })
  afterAll(() => h.close())

  it('still stops, and leaves its claims leased to surface as stuck', async () => {
    let answer!: (result: PublishResult) => void
    twitter.script.push(
      () =>
        new Promise((resolve) => {
          answer = resolve
        }),
    )
    for (const content of ['first of two', 'second of two'])
      expect(
        (
          await h.call('create_post', {
            content,
            targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
            publishImmediately: true,
          })
        ).status,
      ).toBe(200)
    let gone = false
    const unplugged: KyselyPlugin = {
      transformQuery(args) {
        if (gone) throw new Error('the database is gone')
        return args.node
      },
      transformResult: async (args) => args.result,
    }
    const store = { ...h.app.store, db: h.app.store.db.withPlugin(unplugged) }
    delete (store as { pgPool?: unknown }).pgPool
    const worker = createWorker(
      {
        store,
        vault: h.app.vault,
        clock: h.app.clock,
        logger: h.app.logger,
        queue: h.app.queue,
        metrics: h.app.metrics,
        adapters: { twitter },
      },
      { ...h.app.config.worker, id: 'unplugged-worker', graceMs: 200 },
    )
    // One send runs (the network allows one at a time here); the other claim waits its turn.
    expect(await worker.tick()).toBe(2)
    // The database goes once the first send is at the network (opening its credentials is async now).
    await vi.waitFor(() => expect(answer).toBeTypeOf('function'))
    gone = true
    const stopping = worker.stop()
    answer({ remoteId: '1', url: 'https://x.example/1' })
    await expect(stopping).resolves.toBeUndefined()
    const held = await h.app.store.db
      .selectFrom('targets')
      .select('id')
      .where('lease_owner', '=', 'unplugged-worker')
      .execute()
    expect(held).toHaveLength(2)
  })
})
