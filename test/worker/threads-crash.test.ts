import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { readProgress } from '../../src/modules/delivery/progress.js'
import { sendTarget } from '../../src/modules/delivery/send.js'
import { backends } from '../helpers/backends.js'
import { diesOnceContainerSaved, useCrashRig } from '../helpers/crash-rig.js'
import type { Harness } from '../helpers/harness.js'

/**
 * Crash safety of Threads publishing through the worker's send path and the target row: the container id
 * is on the target the moment Meta returns it; a retry publishes that container (not a second one); an
 * unanswered threads_publish is resolved by looking among the profile's recent threads; never two threads.
 */
describe.each(backends)('a Threads target whose worker dies mid-publish ($name)', (backend) => {
  const rig = useCrashRig(backend, 'threads', (h) =>
    sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'threads', username: 'crash.bakery' }),
  )
  const { state, claimedTarget, claim, deps, row, dropAnswer, attemptStartedAt, outcomeUnknownSince } = rig
  let h: Harness
  beforeAll(() => {
    h = rig.h
  })

  it('killed after the container exists and before threads_publish: the retry publishes that container, one thread', async () => {
    const real = h.app.adapters.threads!
    // The process "dies" the moment the container id is on the target: nothing after it runs.
    const dying = diesOnceContainerSaved(real)
    const target = await claimedTarget('Killed before publish', 'worker-a')
    await sendTarget(deps(dying), target, new AbortController().signal)
    const afterCrash = await row(target.id)
    const progress = readProgress(afterCrash.progress)
    expect(progress?.container).toBeDefined()
    const before = await state()
    expect(before.threads!.filter((t) => t.text === 'Killed before publish')).toHaveLength(0)

    const retried = await claim(target.post_id, 'worker-b')
    const result = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(result.outcome.kind).toBe('published')
    const after = await state()
    expect(after.containers!.length).toBe(before.containers!.length)
    const posted = after.threads!.filter((t) => t.text === 'Killed before publish')
    expect(posted).toHaveLength(1)
    expect(after.containers!.find((c) => c.id === progress!.container).threadId).toBe(posted[0].id)
    expect(after.violations).toEqual([])
  }, 60_000)

  it('killed after threads_publish was sent: the queued lookup resolves the target and nothing is posted twice', async () => {
    const real = h.app.adapters.threads!
    const target = await claimedTarget('Killed after publish', 'worker-c')
    const since = Date.now()
    await dropAnswer('threads_publish')
    const lost = await sendTarget(
      deps(real),
      await attemptStartedAt(target, since),
      new AbortController().signal,
    )
    // The worker queues a lookup rather than sending again.
    expect(lost.outcome.kind).toBe('check')
    const published = (await state()).threads!.filter((t) => t.text === 'Killed after publish')
    expect(published).toHaveLength(1)

    await outcomeUnknownSince(target.id, since)
    const retried = await claim(target.post_id, 'worker-d')
    const again = await sendTarget(deps(real), retried, new AbortController().signal)
    expect(again.outcome).toMatchObject({ kind: 'published', remoteId: published[0].id })
    expect((await state()).threads!.filter((t) => t.text === 'Killed after publish')).toHaveLength(1)
    expect((await state()).violations).toEqual([])
  }, 60_000)
})
