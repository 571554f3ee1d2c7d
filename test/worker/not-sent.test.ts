import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { isStuck } from '../../src/modules/publishing/present.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

describe.each(backends)('a failure on Herald side before the network was called, on $name', (backend) => {
  let h: Harness
  let twitter: ScriptedAdapter

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({ backend, adapters: { twitter }, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
  })
  afterAll(() => h.close())

  it('credentials the vault cannot open: the target is retried with the reason, never stuck, nothing sent', async () => {
    await h.app.store.db
      .updateTable('connections')
      .set({ credentials: 'not-a-sealed-value' })
      .where('profile_id', '=', 'tw-1')
      .execute()
    const created = await h.call('create_post', {
      content: 'Behind a broken vault',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    expect(created.status).toBe(200)
    const worker = createAppWorker(h.app, { id: 'vault-worker' })
    expect(await worker.tick()).toBe(1)
    await worker.idle()
    const target = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', created.body.postIds[0])
      .executeTakeFirstOrThrow()
    expect(twitter.calls).toHaveLength(0)
    expect(target.status).toBe('pending')
    expect(target.lease_owner).toBeNull()
    expect(target.run_at).not.toBeNull()
    expect(target.error).toMatch(/could not read the profile credentials; nothing was sent; retrying at/)
    expect(isStuck(target, Date.now() + 3_600_000)).toBe(false)
  })
})
