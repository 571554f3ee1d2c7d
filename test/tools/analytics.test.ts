import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type Credentials,
  type NetworkAdapter,
  type PostMetricsReading,
  type ProfileMetricsReading,
  PublishFailure,
} from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import { getPostAnalytics } from '../../src/interfaces/tools/get-post-analytics.js'
import { getProfileAnalytics } from '../../src/interfaces/tools/get-profile-analytics.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { charge, currentBalance, ledgerFor } from '../../src/platform/db/statements/credits.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const T0 = Date.UTC(2031, 2, 3, 10, 0, 0)

/** An adapter whose metric reads each test scripts; it counts reads and refreshes. */
interface MetricsAdapter extends NetworkAdapter {
  postReads: string[]
  profileReads: number
  refreshes: number
  nextPost: Array<() => Promise<PostMetricsReading>>
  nextProfile: Array<() => Promise<ProfileMetricsReading>>
}

function metricsAdapter(network: Network): MetricsAdapter {
  const adapter: MetricsAdapter = {
    network,
    capabilities: { concurrency: 2 },
    postReads: [],
    profileReads: 0,
    refreshes: 0,
    nextPost: [],
    nextProfile: [],
    async refresh(credentials: Credentials) {
      adapter.refreshes++
      return { ...credentials, accessToken: `${credentials.accessToken}-r${adapter.refreshes}` }
    },
    async resolveProfile() {
      throw new PublishFailure('invalid_content', 'not used')
    },
    async publish() {
      throw new PublishFailure('invalid_content', 'not used')
    },
    async postMetrics({ remoteId }) {
      adapter.postReads.push(remoteId)
      const next = adapter.nextPost.shift()
      if (next) return next()
      return {
        summary: { views: 100, likes: 7, comments: 2, shares: 3, saves: null, clicks: 1, engagements: 13 },
        metrics: { public_metrics: { like_count: 7 } },
        source: `${network}-test`,
      }
    },
    async profileMetrics() {
      adapter.profileReads++
      const next = adapter.nextProfile.shift()
      if (next) return next()
      return {
        summary: { followers: 1200, following: 80, posts: 345, views: null },
        metrics: { followers_count: 1200 },
        window: 'lifetime',
        source: `${network}-test`,
      }
    },
  }
  return adapter
}

describe.each(backends)('analytics tools on $name', (backend) => {
  let h: Harness
  let clock: FakeClock
  let twitter: MetricsAdapter
  let bluesky: MetricsAdapter
  let other: { apiKey: string; workspaceId: string }

  /**
   * One post to `profiles` (create_post makes a post per profile, so the others are added with
   * update_post), marked published on each as the worker would (remote id, url, time).
   */
  async function publishedPost(profiles: Array<{ platform: Network; profileId: string }>, key = h.apiKey) {
    const created = await h.call(
      'create_post',
      {
        content: `analytics ${Math.random()}`,
        targetAccounts: profiles.slice(0, 1),
        scheduleDate: '2031-12-01',
        scheduleTime: '09:00',
      },
      { key },
    )
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.postIds[0] as string
    if (profiles.length > 1) {
      const updated = await h.call('update_post', { id, targetAccounts: profiles }, { key })
      expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    }
    const db = h.app.store.db
    const targets = await db
      .selectFrom('targets')
      .select(['id', 'platform'])
      .where('post_id', '=', id)
      .execute()
    for (const target of targets) {
      await db
        .updateTable('targets')
        .set({
          status: 'published',
          remote_id: `remote-${target.id}`,
          url: `https://${target.platform}.example/${target.id}`,
          published_at: clock.now(),
          run_at: null,
        })
        .where('id', '=', target.id)
        .execute()
    }
    await db
      .updateTable('posts')
      .set({ status: 'published', published_at: clock.now() })
      .where('id', '=', id)
      .execute()
    return id
  }

  const analytics = async (body: Record<string, unknown>, key?: string) => {
    const answer = await h.call('get_post_analytics', body, key ? { key } : {})
    if (answer.status === 200) getPostAnalytics.output.parse(answer.body)
    return answer
  }
  const profile = async (body: Record<string, unknown>) => {
    const answer = await h.call('get_profile_analytics', body)
    if (answer.status === 200) getProfileAnalytics.output.parse(answer.body)
    return answer
  }
  const balance = () => currentBalance(h.app.store.db, h.workspaceId)
  const readings = () => h.app.store.db.selectFrom('analytics_readings').selectAll().execute()

  beforeAll(async () => {
    clock = new FakeClock(T0)
    twitter = metricsAdapter('twitter')
    bluesky = metricsAdapter('bluesky')
    h = await startHarness({ backend, clock, adapters: { twitter, bluesky }, credits: 100 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'bluesky', 'did:plc:acme', 'acme.bsky.social')
    await connectProfile(h, 'linkedin', 'li-person', 'jane-doe')
    await connectProfile(h, 'linkedin', 'li-org', 'acme-inc', { isOrganization: true })
    await h.app.accounts.createUser({
      email: `rival-${backend.name}@example.com`,
      password: 'rival password',
    })
    const rival = await h.app.accounts.createWorkspace({
      name: 'Rival',
      ownerEmail: `rival-${backend.name}@example.com`,
    })
    await h.app.accounts.addCredits({ workspaceId: rival.workspaceId, amount: 10 })
    const key = await h.app.accounts.createKey({ email: `rival-${backend.name}@example.com` })
    other = { apiKey: key.apiKey, workspaceId: rival.workspaceId }
    await connectProfile(h, 'twitter', 'tw-rival', 'rival', { workspaceId: rival.workspaceId })
  })
  afterAll(() => h.close())
  beforeEach(() => {
    for (const adapter of [twitter, bluesky]) {
      adapter.postReads.length = 0
      adapter.nextPost.length = 0
      adapter.nextProfile.length = 0
      adapter.profileReads = 0
      adapter.refreshes = 0
    }
  })

  const everyProfile = [
    { platform: 'twitter' as const, profileId: 'tw-1' },
    { platform: 'bluesky' as const, profileId: 'did:plc:acme' },
    { platform: 'linkedin' as const, profileId: 'li-person' },
    { platform: 'linkedin' as const, profileId: 'li-org' },
  ]

  describe('get_post_analytics', () => {
    it('returns the stored readings for free, saying which profiles were never read and which never report', async () => {
      const id = await publishedPost(everyProfile)
      const before = await balance()
      const answer = await analytics({ id })
      expect(answer.status).toBe(200)
      expect(await balance()).toBe(before)
      expect(answer.body).toMatchObject({
        id,
        publishedAt: new Date(T0).toISOString(),
        fetchedAt: null,
        measured: 0,
        measurable: 2,
        totals: {
          views: null,
          likes: null,
          comments: null,
          shares: null,
          saves: null,
          clicks: null,
          engagements: null,
        },
      })
      expect(answer.body.refresh).toBeUndefined()
      expect(answer.body.credits).toBeUndefined()
      const byProfile = Object.fromEntries(answer.body.targets.map((t: any) => [t.profileId, t]))
      expect(byProfile['tw-1']).toMatchObject({
        platform: 'twitter',
        username: 'acme',
        url: expect.stringContaining('https://twitter.example/'),
        analytics: { fetchedAt: null, error: '', unavailable: false, metrics: {}, source: '' },
      })
      expect(byProfile['li-person'].analytics.unavailable).toBe(true)
      expect(byProfile['li-org'].analytics.unavailable).toBe(false)
      expect(answer.body.notes).toEqual([
        expect.stringMatching(/^twitter @acme: never read; call with refresh: true/),
        expect.stringMatching(/^bluesky @acme\.bsky\.social: never read/),
        'linkedin @jane-doe: LinkedIn reports analytics only for organization pages; this is a personal profile.',
        'linkedin @acme-inc: this Herald does not read linkedin analytics (no linkedin adapter).',
      ])
      expect(twitter.postReads).toEqual([])
    })

    it('reads every published profile now for exactly one credit and stores the readings with fetchedAt', async () => {
      const id = await publishedPost(everyProfile)
      bluesky.nextPost.push(async () => {
        throw new PublishFailure('transient', 'Bluesky answered 502')
      })
      const before = await balance()
      const ledgerBefore = (await ledgerFor(h.app.store.db, h.workspaceId)).length
      clock.advance(60_000)
      const answer = await analytics({ id, refresh: true })
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body.credits).toEqual({ charged: 1, remaining: before - 1 })
      expect(await balance()).toBe(before - 1)
      const ledger = await ledgerFor(h.app.store.db, h.workspaceId)
      expect(ledger).toHaveLength(ledgerBefore + 1)
      expect(ledger.at(-1)).toMatchObject({ delta: -1, reason: 'post_analytics', reference: id })
      expect(answer.body.refresh).toEqual({
        read: 1,
        skipped: 2,
        failed: 1,
        errors: [
          {
            platform: 'bluesky',
            profileId: 'did:plc:acme',
            username: 'acme.bsky.social',
            error: 'Bluesky answered 502',
          },
        ],
      })
      expect(answer.body).toMatchObject({
        measured: 1,
        measurable: 2,
        fetchedAt: new Date(clock.now()).toISOString(),
      })
      expect(answer.body.totals).toEqual({
        views: 100,
        likes: 7,
        comments: 2,
        shares: 3,
        saves: null,
        clicks: 1,
        engagements: 13,
      })
      const tw = answer.body.targets.find((t: any) => t.profileId === 'tw-1')
      expect(tw.analytics).toEqual({
        fetchedAt: new Date(clock.now()).toISOString(),
        summary: { views: 100, likes: 7, comments: 2, shares: 3, saves: null, clicks: 1, engagements: 13 },
        metrics: { public_metrics: { like_count: 7 } },
        source: 'twitter-test',
        error: '',
        unavailable: false,
      })
      expect(answer.body.notes).toContain('bluesky @acme.bsky.social: Bluesky answered 502.')
      expect(twitter.postReads).toHaveLength(1)
      const stored = (await readings()).filter(
        (r) => r.kind === 'post' && Number(r.fetched_at) === clock.now(),
      )
      expect(stored).toHaveLength(2)

      const free = await analytics({ id })
      expect(await balance()).toBe(before - 1)
      expect(free.body.targets).toEqual(answer.body.targets)
      expect(free.body.totals).toEqual(answer.body.totals)
    })

    it('refreshes the token once on a 401, then marks the profile needsReconnect with the reason', async () => {
      await connectProfile(h, 'twitter', 'tw-flaky', 'flaky')
      const id = await publishedPost([{ platform: 'twitter', profileId: 'tw-flaky' }])
      const refused = async (): Promise<PostMetricsReading> => {
        throw new PublishFailure('auth_expired', 'Access token for twitter is missing or invalid')
      }
      twitter.nextPost.push(refused, refused)
      const before = await balance()
      const answer = await analytics({ id, refresh: true })
      expect(answer.status).toBe(200)
      expect(twitter.refreshes).toBe(1)
      expect(twitter.postReads).toHaveLength(2)
      expect(answer.body.credits.charged).toBe(1)
      expect(await balance()).toBe(before - 1)
      expect(answer.body.refresh.failed).toBe(1)
      expect(answer.body.refresh.errors[0].error).toMatch(/reconnect/)
      const row = await h.app.store.db
        .selectFrom('connections')
        .selectAll()
        .where('profile_id', '=', 'tw-flaky')
        .executeTakeFirstOrThrow()
      expect(row.status).toBe('needs_reconnect')
      expect(row.last_error).toBe('Access token for twitter is missing or invalid')
      // The refreshed token was kept (sealed), as publishing keeps it.
      expect(
        h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials).accessToken,
      ).toBe('access-twitter-tw-flaky-r1')

      // The next refresh does not call the network for it, so it costs nothing.
      const again = await analytics({ id, refresh: true })
      expect(twitter.postReads).toHaveLength(2)
      expect(again.body.credits.charged).toBe(0)
      expect(again.body.refresh.errors[0].error).toContain('needs to be reconnected')
    })

    it('charges nothing when no profile of the post can be read', async () => {
      const id = await publishedPost([{ platform: 'linkedin', profileId: 'li-person' }])
      const before = await balance()
      const answer = await analytics({ id, refresh: true })
      expect(answer.status).toBe(200)
      expect(answer.body.credits).toEqual({ charged: 0, remaining: before })
      expect(answer.body.refresh).toEqual({ read: 0, skipped: 1, failed: 0, errors: [] })
      expect(answer.body.measurable).toBe(0)
    })

    it('refuses a refresh with 402 when the balance is 0, reading and storing nothing', async () => {
      const id = await publishedPost([{ platform: 'twitter', profileId: 'tw-1' }])
      const db = h.app.store.db
      const left = await balance()
      await db
        .transaction()
        .execute((tx) =>
          charge(tx, { workspaceId: h.workspaceId, amount: left, reason: 'test' }, clock.now()),
        )
      const stored = (await readings()).length
      const answer = await analytics({ id, refresh: true })
      expect(answer.status).toBe(402)
      expect(answer.body.error.code).toBe('insufficient_credits')
      expect(twitter.postReads).toEqual([])
      expect((await readings()).length).toBe(stored)
      expect(await balance()).toBe(0)
      // The stored reading stays free.
      expect((await analytics({ id })).status).toBe(200)
      await h.app.accounts.addCredits({ workspaceId: h.workspaceId, amount: 100 })
    })

    it("answers not_found for another workspace's post, with or without refresh", async () => {
      const theirs = await publishedPost([{ platform: 'twitter', profileId: 'tw-rival' }], other.apiKey)
      for (const refresh of [false, true]) {
        const answer = await analytics({ id: theirs, refresh })
        expect(answer.status).toBe(404)
        expect(answer.body.error.code).toBe('not_found')
      }
      expect(twitter.postReads).toEqual([])
      expect((await analytics({ id: theirs }, other.apiKey)).status).toBe(200)
    })
  })

  describe('get_profile_analytics', () => {
    it('returns the stored reading for free and says when it was never read', async () => {
      const before = await balance()
      const answer = await profile({ platform: 'twitter', profileId: 'tw-1' })
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({
        platform: 'twitter',
        profileId: 'tw-1',
        username: 'acme',
        name: 'acme (twitter)',
        isOrganization: false,
        analytics: { fetchedAt: null, window: '', unavailable: false },
        note: expect.stringContaining('Never read'),
      })
      expect(answer.body.credits).toBeUndefined()
      expect(await balance()).toBe(before)
    })

    it('reads the network now for 1 credit and keeps the reading for free calls', async () => {
      const before = await balance()
      clock.advance(120_000)
      const answer = await profile({ platform: 'twitter', profileId: 'tw-1', refresh: true })
      expect(answer.status).toBe(200)
      expect(answer.body.credits).toEqual({ charged: 1, remaining: before - 1 })
      expect(answer.body.analytics).toEqual({
        fetchedAt: new Date(clock.now()).toISOString(),
        summary: { followers: 1200, following: 80, posts: 345, views: null },
        metrics: { followers_count: 1200 },
        window: 'lifetime',
        source: 'twitter-test',
        error: '',
        unavailable: false,
      })
      expect(answer.body.note).toBe('')
      expect(twitter.profileReads).toBe(1)
      const free = await profile({ platform: 'twitter', profileId: 'tw-1' })
      expect(free.body.analytics).toEqual(answer.body.analytics)
      expect(await balance()).toBe(before - 1)
    })

    it('says a personal LinkedIn profile never reports and charges nothing for a refresh', async () => {
      const before = await balance()
      const answer = await profile({ platform: 'linkedin', profileId: 'li-person', refresh: true })
      expect(answer.status).toBe(200)
      expect(answer.body.analytics.unavailable).toBe(true)
      expect(answer.body.note).toContain('only for organization pages')
      expect(answer.body.credits).toEqual({ charged: 0, remaining: before })
    })

    it('refuses a refresh with 402 when the balance is 0', async () => {
      const left = await balance()
      await h.app.store.db
        .transaction()
        .execute((tx) =>
          charge(tx, { workspaceId: h.workspaceId, amount: left, reason: 'test' }, clock.now()),
        )
      const answer = await profile({ platform: 'bluesky', profileId: 'did:plc:acme', refresh: true })
      expect(answer.status).toBe(402)
      expect(bluesky.profileReads).toBe(0)
      await h.app.accounts.addCredits({ workspaceId: h.workspaceId, amount: 100 })
    })

    it("answers not_found for another workspace's profile", async () => {
      const answer = await profile({ platform: 'twitter', profileId: 'tw-rival', refresh: true })
      expect(answer.status).toBe(404)
      expect(answer.body.error.code).toBe('not_found')
      expect(twitter.profileReads).toBe(0)
    })
  })
})
