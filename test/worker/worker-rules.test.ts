import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { quotaExceeded } from '../../src/adapters/youtube/errors.js'
import { nextPacificMidnight, pacificDay } from '../../src/adapters/youtube/index.js'
import { createAppWorker } from '../../src/main.js'
import { settleTarget } from '../../src/modules/delivery/settle.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { expectTimeZoneRules, newYork2030 } from '../helpers/time-zone-rules.js'

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'

const T0 = Date.UTC(2030, 0, 1, 0, 0, 0)

describe.each(backends)('the worker under a fake clock on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: ScriptedAdapter
  let linkedin: ScriptedAdapter
  let youtube: ScriptedAdapter
  let worker: Worker

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = scriptedAdapter('twitter')
    linkedin = scriptedAdapter('linkedin')
    youtube = scriptedAdapter('youtube')
    youtube.capabilities.quota = {
      key: 'youtube',
      unitsPerPublish: 1600,
      dailyLimit: 3200,
      dayOf: pacificDay,
      exceeded: (now) => quotaExceeded(now),
      spent: (failure) => failure.options.code !== 'mediaRequired',
    }
    h = await startHarness({
      backend,
      clock,
      adapters: { twitter, linkedin, youtube },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_METRICS_TOKEN: METRICS_TOKEN },
      credits: 100_000,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'twitter', 'tw-2', 'acme_two')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    worker = createAppWorker(h.app, { id: 'test-worker' })
  })
  afterAll(() => h.close())
  beforeEach(() => {
    twitter.calls.length = 0
    twitter.script.length = 0
    linkedin.calls.length = 0
    linkedin.script.length = 0
  })

  const run = async () => {
    const n = await worker.tick()
    await worker.idle()
    return n
  }
  /** The queue depth and stuck count, counted from the target rows (what /metrics must say). */
  const gauges = async () => {
    const now = clock.now()
    const rows = await h.app.store.db.selectFrom('targets').selectAll().execute()
    return {
      due: rows.filter(
        (t) => t.status === 'pending' && t.lease_owner === null && t.run_at !== null && t.run_at <= now,
      ).length,
      stuck: rows.filter(
        (t) => t.lease_owner !== null && (t.stuck_at !== null || (t.lease_expires_at ?? 0) < now),
      ).length,
    }
  }
  const schedule = async (body: Record<string, unknown>) => {
    const res = await h.call('create_post', {
      content: `post ${Math.random()}`,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      ...body,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds[0] as string
  }
  const post = async (id: string) => (await h.call('get_post', { id })).body
  const target = (id: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', id).executeTakeFirstOrThrow()

  it('fires a slot in Asia/Kolkata at its UTC instant and not a moment before', async () => {
    clock.set(Date.UTC(2030, 0, 1, 4, 0))
    const id = await schedule({ scheduleDate: '2030-01-01', scheduleTime: '10:00', timezone: 'Asia/Kolkata' })
    expect((await post(id)).dueAt).toBe('2030-01-01T04:30:00.000Z')
    clock.set(Date.UTC(2030, 0, 1, 4, 29, 59))
    expect(await run()).toBe(0)
    clock.set(Date.UTC(2030, 0, 1, 4, 30))
    expect(await run()).toBe(1)
    const after = await post(id)
    expect(after.status).toBe('published')
    expect(after.targets[0]).toMatchObject({
      status: 'published',
      postId: 'remote-1',
      url: expect.stringContaining('https://twitter.example/'),
    })
    expect(after.attempts).toBe(1)
  })

  it('fires a slot in a spring-forward gap one hour later on the wall clock', async () => {
    // New York's 2030 changes as this Node's time-zone data has them (test/helpers/time-zone-rules.ts).
    expectTimeZoneRules(newYork2030)
    clock.set(Date.UTC(2030, 2, 9, 12))
    const id = await schedule({
      scheduleDate: '2030-03-10',
      scheduleTime: '02:30',
      timezone: 'America/New_York',
    })
    expect((await post(id)).dueAt).toBe('2030-03-10T07:30:00.000Z')
    clock.set(Date.UTC(2030, 2, 10, 7, 29))
    expect(await run()).toBe(0)
    clock.set(Date.UTC(2030, 2, 10, 7, 30))
    expect(await run()).toBe(1)
    expect((await post(id)).status).toBe('published')
  })

  it('fires a slot in a fall-back overlap at the earlier instant', async () => {
    expectTimeZoneRules(newYork2030)
    clock.set(Date.UTC(2030, 10, 2, 12))
    const id = await schedule({
      scheduleDate: '2030-11-03',
      scheduleTime: '01:30',
      timezone: 'America/New_York',
    })
    expect((await post(id)).dueAt).toBe('2030-11-03T05:30:00.000Z')
    clock.set(Date.UTC(2030, 10, 3, 5, 30))
    expect(await run()).toBe(1)
    expect((await post(id)).status).toBe('published')
  })

  it('backs off exponentially with jitter on transient failures and gives up after five attempts', async () => {
    clock.set(Date.UTC(2031, 0, 1))
    const id = await schedule({ publishImmediately: true })
    for (let i = 0; i < 5; i++) twitter.script.push(fail('transient', 'upstream 503'))
    const delays: number[] = []
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect(await run()).toBe(1)
      const row = await target(id)
      expect(row).toMatchObject({ status: 'pending', attempts: attempt, lease_owner: null })
      const delay = (row.run_at as number) - clock.now()
      const base = 2000 * 2 ** (attempt - 1)
      expect(delay).toBeGreaterThanOrEqual(base / 2)
      expect(delay).toBeLessThanOrEqual(base)
      delays.push(delay)
      expect((await post(id)).status).toBe('processing')
      clock.set(row.run_at as number)
    }
    expect(delays[3]).toBeGreaterThan(delays[0] as number)
    expect(await run()).toBe(1)
    const after = await post(id)
    expect(after.status).toBe('failed')
    expect(after.targets[0].error).toMatch(/upstream 503 \(gave up after 5 attempts\)/)
    expect(after.attempts).toBe(5)
    expect(twitter.calls).toHaveLength(5)
  })

  it('honours a 429 reset time for that profile only', async () => {
    clock.set(Date.UTC(2031, 1, 1))
    const resetAt = clock.now() + 15 * 60_000
    const first = await schedule({ publishImmediately: true })
    const sameProfile = await schedule({ scheduleDate: '2031-02-01', scheduleTime: '00:05' })
    const otherProfile = await schedule({
      scheduleDate: '2031-02-01',
      scheduleTime: '00:05',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-2' }],
    })
    twitter.script.push(fail('rate_limited', 'Too Many Requests', { resetAt }))
    await run()
    expect((await target(first)).run_at).toBe(resetAt)
    expect((await target(first)).error).toMatch(/^Too Many Requests/)
    expect((await target(sameProfile)).run_at).toBe(resetAt)
    clock.set(Date.UTC(2031, 1, 1, 0, 5))
    expect(await run()).toBe(1)
    expect((await post(otherProfile)).status).toBe('published')
    expect((await post(sameProfile)).status).toBe('scheduled')
    clock.set(resetAt)
    expect(await run()).toBe(2)
    expect((await post(first)).status).toBe('published')
    expect((await post(sameProfile)).status).toBe('published')
  })

  it('refreshes once on an auth failure, then fails the target and marks the connection for reconnecting', async () => {
    clock.set(Date.UTC(2031, 2, 1))
    await connectProfile(h, 'twitter', 'tw-dead', 'dead')
    const id = await schedule({
      publishImmediately: true,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-dead' }],
    })
    const refreshesBefore = twitter.refreshes
    twitter.script.push(fail('auth_expired', 'Access token for twitter is missing or invalid'))
    twitter.script.push(fail('auth_expired', 'Access token for twitter is missing or invalid'))
    await run()
    expect(twitter.refreshes - refreshesBefore).toBe(1)
    expect(twitter.calls).toHaveLength(2)
    const after = await post(id)
    expect(after.status).toBe('failed')
    expect(after.targets[0].error).toBe('Access token for twitter is missing or invalid')
    const accounts = (await h.call('get_connected_accounts')).body as Array<{ profileId: string }>
    expect(accounts.map((a) => a.profileId)).not.toContain('tw-dead')
    const connection = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('profile_id', '=', 'tw-dead')
      .executeTakeFirstOrThrow()
    expect(connection.status).toBe('needs_reconnect')
  })

  it('fails a permanent refusal at once without retrying', async () => {
    clock.set(Date.UTC(2031, 3, 1))
    const id = await schedule({ publishImmediately: true })
    twitter.script.push(fail('invalid_content', 'Twitter API v2 posting failed: duplicate content'))
    await run()
    const after = await post(id)
    expect(after).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'Twitter API v2 posting failed: duplicate content',
    })
    expect(await run()).toBe(0)
    expect(twitter.calls).toHaveLength(1)
  })

  it('derives published for a post with one published and one failed target', async () => {
    clock.set(Date.UTC(2031, 4, 1))
    const id = await schedule({ scheduleDate: '2031-05-01', scheduleTime: '12:00' })
    const updated = await h.call('update_post', {
      id,
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-1' },
        { platform: 'linkedin', profileId: 'li-1' },
      ],
    })
    expect(updated.status).toBe(200)
    linkedin.script.push(fail('invalid_content', 'LinkedIn refused the post'))
    clock.set(Date.UTC(2031, 4, 1, 12))
    expect(await run()).toBe(2)
    const after = await post(id)
    expect(after.status).toBe('published')
    expect(after.targets.map((t: { platform: string; status: string }) => [t.platform, t.status])).toEqual([
      ['twitter', 'published'],
      ['linkedin', 'failed'],
    ])
    const retried = await h.call('publish_post_now', { id })
    expect(retried.body.credits.charged).toBe(1)
    await run()
    expect(twitter.calls).toHaveLength(1)
    expect((await post(id)).targets.map((t: { status: string }) => t.status)).toEqual([
      'published',
      'published',
    ])
  })

  it('never re-sends an unknown outcome: the post stays processing and shows as stuck until reset', async () => {
    clock.set(Date.UTC(2031, 5, 1))
    const id = await schedule({ publishImmediately: true })
    twitter.script.push(fail('unknown_outcome', 'timed out after sending'))
    await run()
    expect(await run()).toBe(0)
    const stuck = await post(id)
    expect(stuck.status).toBe('processing')
    expect(stuck.lastError).toBe('timed out after sending')
    const reset = await h.call('reset_stuck_post', { id })
    expect(reset.status).toBe(200)
    expect(reset.body.post.status).toBe('failed')
    expect(reset.body.post.targets[0].error).toMatch(/outcome .* unknown/)
    expect((await h.call('reset_stuck_post', { id })).status).toBe(409)
    await h.call('publish_post_now', { id })
    await run()
    expect((await post(id)).status).toBe('published')
    expect(twitter.calls).toHaveLength(2)
  })

  it('refuses a send over the daily YouTube quota before calling the network and retries after Pacific midnight', async () => {
    clock.set(Date.UTC(2031, 8, 1, 12))
    await connectProfile(h, 'youtube', 'UC-quota', 'quota-channel')
    youtube.calls.length = 0
    const body = {
      content: 'Short',
      targetAccounts: [{ platform: 'youtube', profileId: 'UC-quota' }],
      mediaUrl: 'https://cdn.example.com/v.mp4',
      publishImmediately: true,
    }
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push((await h.call('create_post', { ...body, content: `Short ${i}` })).body.postIds[0])
    await run()
    expect(youtube.calls).toHaveLength(2)
    const refused = await target(ids[2] as string)
    expect(refused.status).toBe('pending')
    expect(refused.error).toMatch(/^The request cannot be completed because you have exceeded your quota/)
    expect(refused.run_at).toBe(nextPacificMidnight(clock.now()))
    const used = await h.app.store.db
      .selectFrom('quota_usage')
      .selectAll()
      .where('key', '=', 'youtube')
      .execute()
    expect(used).toEqual([{ key: 'youtube', day: pacificDay(clock.now()), units: 3200 }])
    clock.set(refused.run_at as number)
    await run()
    expect((await post(ids[2] as string)).status).toBe('published')
    expect(youtube.calls).toHaveLength(3)
  })

  it('gives the quota back when a publish fails before spending it', async () => {
    clock.set(Date.UTC(2031, 9, 1, 12))
    const id = (
      await h.call('create_post', {
        content: 'Short',
        targetAccounts: [{ platform: 'youtube', profileId: 'UC-quota' }],
        mediaUrl: 'https://cdn.example.com/v.mp4',
        publishImmediately: true,
      })
    ).body.postIds[0]
    youtube.script.push(fail('invalid_content', 'YouTube Shorts needs a video', { code: 'mediaRequired' }))
    await run()
    expect((await post(id)).status).toBe('failed')
    const used = await h.app.store.db
      .selectFrom('quota_usage')
      .selectAll()
      .where('day', '=', pacificDay(clock.now()))
      .execute()
    expect(used).toEqual([{ key: 'youtube', day: pacificDay(clock.now()), units: 0 }])
  })

  it('serves fire lag, outcomes per network and kind, queue depth and stuck count at /metrics', async () => {
    clock.set(Date.UTC(2031, 10, 1))
    await schedule({ publishImmediately: true })
    clock.advance(1500)
    await run()
    const text = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    expect(text).toContain('# TYPE herald_fire_lag_seconds histogram')
    expect(text).toMatch(/herald_fire_lag_seconds_bucket\{le="2.5"\} [1-9]/)
    expect(text).toMatch(/herald_publish_outcomes_total\{network="twitter",kind="ok"\} [1-9]/)
    expect(text).toMatch(/herald_publish_outcomes_total\{network="twitter",kind="transient"\} [1-9]/)
    // The gauges equal the targets as they stand, counted here from the rows.
    const { due, stuck } = await gauges()
    expect(text).toMatch(new RegExp(`^herald_queue_depth ${due}$`, 'm'))
    expect(text).toMatch(new RegExp(`^herald_stuck_targets ${stuck}$`, 'm'))
  })

  it('counts due targets in the queue depth gauge and expired leases in the stuck gauge', async () => {
    clock.set(Date.UTC(2031, 10, 2))
    const before = await gauges()
    const due = await schedule({ publishImmediately: true })
    const held = await schedule({ publishImmediately: true })
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'gone-worker', lease_expires_at: clock.now() - 1 })
      .where('post_id', '=', held)
      .execute()
    const text = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    expect(text).toMatch(new RegExp(`^herald_queue_depth ${before.due + 1}$`, 'm'))
    expect(text).toMatch(new RegExp(`^herald_stuck_targets ${before.stuck + 1}$`, 'm'))
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: null, lease_expires_at: null, run_at: null })
      .where('post_id', 'in', [due, held])
      .execute()
  })

  it('lets only the lease holder record an outcome', async () => {
    clock.set(Date.UTC(2031, 6, 1))
    const id = await schedule({ publishImmediately: true })
    const row = await target(id)
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'someone-else', lease_expires_at: clock.now() + 60_000 })
      .where('id', '=', row.id)
      .execute()
    const kept = await settleTarget(h.app.store, {
      targetId: row.id,
      postId: id,
      workerId: 'test-worker',
      now: clock.now(),
      outcome: { kind: 'failed', error: 'x' },
    })
    expect(kept).toBe(false)
    expect((await target(id)).status).toBe('pending')
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: null, lease_expires_at: null, run_at: null })
      .where('id', '=', row.id)
      .execute()
  })

  it('shows a target whose lease expired as stuck and never claims it again', async () => {
    clock.set(Date.UTC(2031, 7, 1))
    const id = await schedule({ publishImmediately: true })
    await h.app.store.db
      .updateTable('targets')
      .set({ lease_owner: 'dead-worker', lease_expires_at: clock.now() - 1 })
      .where('post_id', '=', id)
      .execute()
    await h.app.store.db.updateTable('posts').set({ status: 'processing' }).where('id', '=', id).execute()
    expect(await run()).toBe(0)
    const metrics = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    const { stuck } = await gauges()
    expect(stuck).toBeGreaterThan(0)
    expect(metrics).toMatch(new RegExp(`^herald_stuck_targets ${stuck}$`, 'm'))
    const view = await post(id)
    expect(view.status).toBe('processing')
    expect(view.lastError).toMatch(/outcome is unknown/)
  })
})
