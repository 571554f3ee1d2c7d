import { beforeAll, describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/networks/adapter.js'
import { readProgress } from '../../src/worker/progress.js'
import { sendTarget } from '../../src/worker/send.js'
import { backends } from '../helpers/backends.js'
import { useCrashRig } from '../helpers/crash-rig.js'
import type { Harness } from '../helpers/harness.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'

/**
 * Crash safety of Instagram publishing through the worker's send path and the target row: the container
 * id is on the target the moment Meta returns it; a retry publishes that container; an unanswered
 * media_publish is resolved by looking among the account's recent media; never two posts.
 */
describe.each(backends)('an Instagram target whose worker dies mid-publish ($name)', (backend) => {
  const rig = useCrashRig(backend, 'instagram', (h) => connectMetaGrant(h, 'Crash Bakery'))
  const { state, claimedTarget, claim, deps } = rig
  const meta = rig.sandbox
  let h: Harness
  beforeAll(() => {
    h = rig.h
  })

  it('killed after the container exists and before media_publish: the retry publishes one post from that container', async () => {
    const real = h.app.adapters.instagram!
    // The process "dies" the moment the container id is on the target: nothing after it runs.
    const dying: NetworkAdapter = {
      ...real,
      publish: (request) =>
        real.publish({
          ...request,
          saveProgress: async (entries) => {
            await request.saveProgress!(entries)
            if (entries.container) throw new Error('SIGKILL')
          },
        }),
    }
    const target = await claimedTarget('Killed before publish', 'worker-a')
    await sendTarget(deps(dying), target, new AbortController().signal)
    const afterCrash = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    const progress = readProgress(afterCrash.progress)
    expect(progress?.container).toBeDefined()
    const before = await state()
    expect(before.media!.filter((m) => m.caption === 'Killed before publish')).toHaveLength(0)

    const retried = await claim(target.post_id, 'worker-b')
    const result = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(result.outcome.kind).toBe('published')
    const after = await state()
    expect(after.containers!.length).toBe(before.containers!.length)
    const posts = after.media!.filter((m) => m.caption === 'Killed before publish')
    expect(posts).toHaveLength(1)
    expect(after.containers!.find((c) => c.id === progress!.container).mediaId).toBe(posts[0].id)
    expect(after.violations).toEqual([])
  }, 60_000)

  it('killed after media_publish was sent: the lookup resolves the target and a retry never posts twice', async () => {
    const real = h.app.adapters.instagram!
    const target = await claimedTarget('Killed after publish', 'worker-c')
    const since = Date.now()
    await fetch(`${meta()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'media_publish', action: 'drop_after' }),
    })
    await h.app.store.db
      .updateTable('targets')
      .set({ attempt_started_at: since })
      .where('id', '=', target.id)
      .execute()
    const lost = await sendTarget(
      deps(real),
      { ...target, attempt_started_at: since },
      new AbortController().signal,
    )
    // The worker queues a lookup rather than sending again.
    expect(lost.outcome.kind).toBe('check')
    const row = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('id', '=', target.id)
      .executeTakeFirstOrThrow()
    const connection = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', row.connection_id)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<{ accessToken: string }>(connection.credentials)
    const found = await real.findPublished!({
      targetId: row.id,
      profile: {
        profileId: connection.profile_id,
        username: connection.username,
        name: connection.name,
        isOrganization: false,
      },
      credentials,
      content: row.content,
      mediaUrls: JSON.parse(row.media_urls),
      since,
      progress: readProgress(row.progress)!,
      signal: new AbortController().signal,
    })
    const published = (await state()).media!.filter((m) => m.caption === 'Killed after publish')
    expect(published).toHaveLength(1)
    expect(found?.remoteId).toBe(published[0].id)

    // The queued lookup, as the worker runs it: the target carries when the outcome became unknown.
    await h.app.store.db
      .updateTable('targets')
      .set({ unknown_outcome_at: since })
      .where('id', '=', target.id)
      .execute()
    const retried = await claim(target.post_id, 'worker-d')
    const again = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(again.outcome).toMatchObject({ kind: 'published', remoteId: published[0].id })
    expect((await state()).media!.filter((m) => m.caption === 'Killed after publish')).toHaveLength(1)
  }, 60_000)

  it('refuses to record progress once the lease belongs to another worker', async () => {
    const real = h.app.adapters.instagram!
    const target = await claimedTarget('Lease lost', 'worker-e')
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'worker-f' })
      .where('id', '=', target.id)
      .execute()
    const result = await sendTarget(deps(real), target, new AbortController().signal)
    expect(result.outcome.kind).not.toBe('published')
    expect((await state()).media!.filter((m) => m.caption === 'Lease lost')).toHaveLength(0)
  }, 60_000)
})
