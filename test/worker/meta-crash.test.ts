import { beforeAll, describe, expect, it } from 'vitest'
import { readProgress } from '../../src/modules/delivery/progress.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { backends } from '../helpers/backends.js'
import { diesOnceContainerSaved, useCrashRig } from '../helpers/crash-rig.js'
import type { Harness } from '../helpers/harness.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { connectMetaGrant } from '../helpers/meta-connect.js'

/**
 * Crash safety of Instagram publishing through the worker's send path and the target row: the container
 * id is on the target the moment Meta returns it; a retry publishes that container; an unanswered
 * media_publish is resolved by looking among the account's recent media; never two posts.
 */
describe.each(backends)('an Instagram target whose worker dies mid-publish ($name)', (backend) => {
  const rig = useCrashRig(backend, 'instagram', (h) => connectMetaGrant(h, 'Crash Bakery'))
  const { state, claimedTarget, claim, deps, row, dropAnswer, attemptStartedAt, outcomeUnknownSince } = rig
  let h: Harness
  beforeAll(() => {
    h = rig.h
  })

  it('killed after the container exists and before media_publish: the retry publishes one post from that container', async () => {
    const real = h.app.adapters.instagram!
    // The process "dies" the moment the container id is on the target: nothing after it runs.
    const dying = diesOnceContainerSaved(real)
    const target = await claimedTarget('Killed before publish', 'worker-a')
    await sendTarget(deps(dying), target, new AbortController().signal)
    const afterCrash = await row(target.id)
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
    await dropAnswer('media_publish')
    const lost = await sendTarget(
      deps(real),
      await attemptStartedAt(target, since),
      new AbortController().signal,
    )
    // The worker queues a lookup rather than sending again.
    expect(lost.outcome.kind).toBe('check')
    const lookedUp = await row(target.id)
    const connection = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', lookedUp.connection_id)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<{ accessToken: string }>(
      connectionCredentials(connection.id),
      connection.credentials,
    )
    const found = await lookupMatch(real)({
      targetId: lookedUp.id,
      profile: {
        profileId: connection.profile_id,
        username: connection.username,
        name: connection.name,
        isOrganization: false,
      },
      credentials,
      content: lookedUp.content,
      mediaUrls: JSON.parse(lookedUp.media_urls),
      since,
      progress: readProgress(lookedUp.progress)!,
      signal: new AbortController().signal,
    })
    const published = (await state()).media!.filter((m) => m.caption === 'Killed after publish')
    expect(published).toHaveLength(1)
    expect(found?.remoteId).toBe(published[0].id)

    // The queued lookup, as the worker runs it: the target carries when the outcome became unknown.
    await outcomeUnknownSince(target.id, since)
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
