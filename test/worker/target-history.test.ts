import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { claimDueTargets, markStuck } from '../../src/modules/delivery/leases.js'
import { settleTarget } from '../../src/modules/delivery/settle.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { backends } from '../helpers/backends.js'
import { createBrowser } from '../helpers/browser.js'
import { before500, type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { connectSandboxProfile, publishAs, type SandboxProfile } from '../helpers/sandbox-adapters.js'

/**
 * Each profile's history against the X simulator, with the real adapter and worker: what every attempt,
 * lookup, interruption, reset and retry did, in order, as get_post answers it. How many copies X holds is
 * counted on the simulator, so the history is checked against what happened, not against Herald's rows.
 */
describe.each(backends)('the history of a profile’s post, on $name', (backend) => {
  let h: Harness
  let faults: ScriptedFaults
  let worker: Worker
  let acme: SandboxProfile

  beforeAll(async () => {
    faults = scriptedFaults()
    h = await startHarness({
      backend,
      sandbox: true,
      faults,
      credits: 1000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_UNKNOWN_OUTCOME_CHECK_MS: '100' },
    })
    acme = await connectSandboxProfile(h, 'twitter', 'acme')
    worker = createAppWorker(h.app, { id: 'history-worker', leaseMs: 60_000 })
  }, 60_000)
  afterAll(() => h?.close())

  const copies = (text: string) => h.sandboxes!.twitter.tweets().filter((t) => t.text === text)
  const target = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()
  const history = async (id: string) => {
    const { status, body } = await h.call('get_post', { id, history: true })
    expect(status, JSON.stringify(body)).toBe(200)
    return (body.targets[0].history as Array<Record<string, unknown>>).map(
      ({ kind, result, sent }) =>
        `${kind} ${result}${sent === undefined ? '' : sent ? ' sent' : ' not sent'}`,
    )
  }
  const runUntil = async (done: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20_000
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await worker.tick()
      await worker.idle()
      await new Promise((r) => setTimeout(r, 40))
    }
  }
  const create = async (content: string) => {
    const created = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'twitter', username: 'acme' }],
      publishImmediately: true,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    return created.body.postIds[0] as string
  }

  it('records an unanswered send, the lookup that found the post, and that it was not sent again', async () => {
    const content = 'Answered with a 503 after X made it'
    faults.on(
      { network: 'twitter', operation: 'createPosts' },
      { timing: 'after', answer: { kind: 'status', status: 503 } },
    )
    const id = await create(content)
    await runUntil(async () => (await target(id)).status === 'published', 'the lookup to find the post')
    expect(copies(content)).toHaveLength(1)
    expect(await history(id)).toEqual(['attempt check sent', 'lookup found', 'attempt published not sent'])
    const { body } = await h.call('get_post', { id, history: true })
    const [unanswered, lookup, published] = body.targets[0].history
    expect(unanswered.detail).toMatch(/Herald will look for the post on twitter/)
    expect(lookup).not.toHaveProperty('detail')
    expect(published).not.toHaveProperty('detail')
    expect(Date.parse(unanswered.at)).toBeLessThanOrEqual(Date.parse(lookup.at))
    // The post's page says it in words.
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const page = (await browser.get(`/posts/${id}`)).text
    expect(page).toContain('Looked on X: the post was there, so it was not sent again')
    expect(page).toContain('Published on X @acme')
    // Asked without it, get_post answers as before (the shape webhooks carry), and so does list_posts.
    expect((await h.call('get_post', { id })).body.targets[0]).not.toHaveProperty('history')
    const listed = (await h.call('list_posts', {})).body.posts.find((p: { id: string }) => p.id === id)
    expect(listed.targets[0]).not.toHaveProperty('history')
  }, 60_000)

  it('records the lookups that could not ask once each, then the one that found nothing and the send', async () => {
    const content = 'Refused before X did anything'
    faults.on({ network: 'twitter', operation: 'createPosts' }, before500)
    faults.on({ network: 'twitter', operation: 'getUsersPosts' }, before500, 2)
    const id = await create(content)
    await runUntil(async () => (await target(id)).status === 'published', 'the re-send')
    expect(copies(content)).toHaveLength(1)
    expect(await history(id)).toEqual([
      'attempt check sent',
      'lookup unreachable',
      'lookup unreachable',
      'lookup absent',
      'attempt published sent',
    ])
    const { body } = await h.call('get_post', { id, history: true })
    expect(body.targets[0].history[1].detail).toBeTruthy()
  }, 60_000)

  it('records a refusal, the retry a person asked for, and the send that published it', async () => {
    const content = 'Refused for good the first time'
    faults.on(
      { network: 'twitter', operation: 'createPosts' },
      { timing: 'before', answer: { kind: 'status', status: 400 } },
    )
    const id = await create(content)
    await runUntil(async () => (await target(id)).status === 'failed', 'the refusal')
    expect(copies(content)).toHaveLength(0)
    const retried = await h.call('publish_post_now', { id })
    expect(retried.status, JSON.stringify(retried.body)).toBe(200)
    await runUntil(async () => (await target(id)).status === 'published', 'the retry')
    expect(copies(content)).toHaveLength(1)
    expect(await history(id)).toEqual(['attempt failed sent', 'retried now', 'attempt published sent'])
  }, 60_000)

  it('records an interrupted send, the person’s reset, and what came after it', async () => {
    const content = 'Sent by a worker that died, on a sweep that cannot look'
    const id = await create(content)
    const [claimed] = await claimDueTargets(h.app.store, {
      workerId: 'dead-worker',
      now: Date.now(),
      leaseMs: 50,
      limit: 10,
      platforms: ['twitter'],
    })
    expect(claimed?.post_id).toBe(id)
    await publishAs(h, acme, content)
    await new Promise((r) => setTimeout(r, 80))
    await markStuck(h.app.store, Date.now(), 'The worker went away')
    const reset = await h.call('reset_stuck_post', { id, onNetwork: true, postId: copies(content)[0]!.id })
    expect(reset.status, JSON.stringify(reset.body)).toBe(200)
    expect((await target(id)).status).toBe('published')
    expect(copies(content)).toHaveLength(1)
    expect(await history(id)).toEqual(['interrupted stuck', 'reset confirm'])
  }, 60_000)

  it('writes nothing for a settle whose lease was lost', async () => {
    const id = await create('Settled by a worker that no longer holds it')
    const [claimed] = await claimDueTargets(h.app.store, {
      workerId: 'holder',
      now: Date.now(),
      leaseMs: 60_000,
      limit: 10,
      platforms: ['twitter'],
    })
    expect(claimed?.post_id).toBe(id)
    const kept = await settleTarget(h.app.store, {
      targetId: claimed!.id,
      postId: id,
      workerId: 'someone-else',
      now: Date.now(),
      outcome: { kind: 'failed', error: 'not mine to say' },
      onlyTarget: claimed!.onlyTarget,
    })
    expect(kept).toBe(false)
    expect(await history(id)).toEqual([])
    expect(
      await settleTarget(h.app.store, {
        targetId: claimed!.id,
        postId: id,
        workerId: 'holder',
        now: Date.now(),
        outcome: { kind: 'retry', error: 'try later', runAt: Date.now() + 3_600_000 },
        onlyTarget: claimed!.onlyTarget,
        trail: { sent: true },
      }),
    ).toBe(true)
    expect(await history(id)).toEqual(['attempt retry sent'])
  }, 60_000)
})
