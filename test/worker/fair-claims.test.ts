import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimDueTargets } from '../../src/modules/delivery/leases.js'
import { insertWorkspace } from '../../src/platform/db/statements/accounts.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { seedScheduledPosts } from '../helpers/seed.js'

/** Claims take turns across workspaces, so a backlog never delays another workspace. */
describe.each(backends)('claims across workspaces on $name', (backend) => {
  let h: Harness
  let busy: string
  let quiet: string
  let quietConnection: string
  let busyConnection: string

  beforeAll(async () => {
    h = await startHarness({ backend, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    busy = h.workspaceId
    quiet = await insertWorkspace(h.app.store.db, { name: 'Quiet', plan: 'free' }, Date.now())
    busyConnection = await connectProfile(h, 'twitter', 'tw-busy', 'busy')
    quietConnection = await connectProfile(h, 'twitter', 'tw-quiet', 'quiet', { workspaceId: quiet })
  })
  afterAll(() => h.close())

  it("claims a quiet workspace's single due post in the first batch, whatever the other's backlog", async () => {
    const now = Date.now()
    await seedScheduledPosts(h.app.store, {
      workspaceId: busy,
      authorId: h.userId,
      connectionId: busyConnection,
      profile: { platform: 'twitter', profileId: 'tw-busy', username: 'busy' },
      count: 500,
      runAt: (i) => now - 60_000 + i,
    })
    // Due after every one of the backlog's posts.
    const [single] = await seedScheduledPosts(h.app.store, {
      workspaceId: quiet,
      authorId: h.userId,
      connectionId: quietConnection,
      profile: { platform: 'twitter', profileId: 'tw-quiet', username: 'quiet' },
      count: 1,
      runAt: () => now - 1_000,
    })
    const claimed = await claimDueTargets(h.app.store, {
      workerId: 'fair',
      now,
      leaseMs: 60_000,
      limit: 8,
      platforms: ['twitter'],
    })
    expect(claimed).toHaveLength(8)
    expect(claimed.map((t) => t.post_id)).toContain(single)
    // The backlog's own order is kept: its earliest seven.
    const backlog = claimed
      .filter((t) => t.workspace_id === busy)
      .map((t) => t.run_at as number)
      .sort((a, b) => a - b)
    expect(backlog).toEqual(Array.from({ length: 7 }, (_, i) => now - 60_000 + i))
  })
})
