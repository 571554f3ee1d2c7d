import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { summarizeTweetMetrics } from '../../src/adapters/twitter/index.js'
import {
  type Connection,
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

describe("X's metric groups mapped to spec §2's summary", () => {
  it('maps impressions, likes, replies, reposts + quotes, bookmarks and link clicks, and sums engagements', () => {
    expect(
      summarizeTweetMetrics({
        public_metrics: {
          impression_count: 900,
          like_count: 30,
          reply_count: 4,
          retweet_count: 6,
          quote_count: 2,
          bookmark_count: 5,
        },
        non_public_metrics: { url_link_clicks: 11 },
      }),
    ).toEqual({ views: 900, likes: 30, comments: 4, shares: 8, saves: 5, clicks: 11, engagements: 58 })
  })
  it('reads repost_count (v2.167) like retweet_count, and leaves clicks null without the private groups', () => {
    expect(
      summarizeTweetMetrics({
        public_metrics: {
          impression_count: 1,
          like_count: 0,
          reply_count: 0,
          repost_count: 3,
          quote_count: 0,
          bookmark_count: 0,
        },
      }),
    ).toEqual({ views: 1, likes: 0, comments: 0, shares: 3, saves: 0, clicks: null, engagements: 3 })
  })
  it('is all null when X returned nothing', () => {
    expect(summarizeTweetMetrics({})).toEqual({
      views: null,
      likes: null,
      comments: null,
      shares: null,
      saves: null,
      clicks: null,
      engagements: null,
    })
  })
})

reportSkippedWithoutOpenApi('reading metrics from X (adapter against the sandbox)')

describe.runIf(xOpenApiAvailable)('reading metrics from X (adapter against the sandbox)', () => {
  let fx: TwitterFixture
  let legacy: TwitterFixture
  let nina: Connection
  beforeAll(async () => {
    fx = await startTwitterFixture()
    legacy = await startTwitterFixture({ sandbox: { legacyFieldNames: true } })
    fx.sandbox.createAccount({ username: 'nina', followersCount: 1200, followingCount: 80 })
    nina = await fx.connect('nina')
  })
  afterAll(async () => {
    await fx.close()
    await legacy.close()
  })
  afterEach(() => {
    expect(fx.validation.problems).toEqual([])
    expect(legacy.validation.problems).toEqual([])
  })

  it('reads public, non-public and organic metrics of an own recent post, and they grow over time', async () => {
    const { remoteId } = await fx.publish(nina, 'count me')
    fx.clock.advance(10 * 60_000)
    const reading = await fx.adapter.postMetrics({
      credentials: nina.credentials,
      profile: nina.profile,
      remoteId,
    })
    // The sandbox grows per minute: impressions 50, likes 3, replies 1, reposts 2, quotes 1/2, bookmarks 1/3, link clicks 4.
    expect(reading.summary).toEqual({
      views: 500,
      likes: 30,
      comments: 10,
      shares: 25,
      saves: 3,
      clicks: 40,
      engagements: 108,
    })
    expect(reading.source).toBe('x-api-v2 public_metrics+non_public_metrics+organic_metrics')
    expect(reading.metrics).toMatchObject({
      public_metrics: { impression_count: 500, repost_count: 20, quote_count: 5 },
      non_public_metrics: { url_link_clicks: 40 },
      organic_metrics: { impression_count: 500 },
    })
    expect(reading.error).toBeUndefined()

    fx.clock.advance(10 * 60_000)
    const later = await fx.adapter.postMetrics({
      credentials: nina.credentials,
      profile: nina.profile,
      remoteId,
    })
    expect(later.summary.views).toBeGreaterThan(reading.summary.views!)
    expect(later.summary.likes).toBeGreaterThan(reading.summary.likes!)
  })

  it('falls back to public_metrics when X refuses the private groups (post older than 30 days)', async () => {
    const { remoteId } = await fx.publish(nina, 'an old post')
    fx.clock.advance(31 * 24 * 60 * 60_000)
    // The access token expired long ago; the rotated refresh token keeps the connection alive.
    nina = { ...nina, credentials: await fx.adapter.refresh(nina.credentials) }
    fx.validation.reset()
    const reading = await fx.adapter.postMetrics({
      credentials: nina.credentials,
      profile: nina.profile,
      remoteId,
    })
    expect(fx.validation.requests.map((request) => request.operationId)).toEqual([
      'getPostsById',
      'getPostsById',
    ])
    expect(reading.source).toBe('x-api-v2 public_metrics')
    expect(reading.summary.clicks).toBeNull()
    expect(reading.summary.views).toBeGreaterThan(0)
    expect(Object.keys(reading.metrics)).toEqual(['public_metrics'])
  })

  it("falls back to public_metrics for someone else's post", async () => {
    const omar = await fx.connect('omar')
    const { remoteId } = await fx.publish(omar, 'not yours')
    const reading = await fx.adapter.postMetrics({
      credentials: nina.credentials,
      profile: nina.profile,
      remoteId,
    })
    expect(reading.source).toBe('x-api-v2 public_metrics')
  })

  it('reports a post that no longer exists as an error, not a failure', async () => {
    const reading = await fx.adapter.postMetrics({
      credentials: nina.credentials,
      profile: nina.profile,
      remoteId: '1999999999999999999',
    })
    expect(reading.error).toBe('The post no longer exists on X')
    expect(reading.summary.views).toBeNull()
  })

  it('reads followers, following and post count for the profile, with no views, over the lifetime', async () => {
    const reading = await fx.adapter.profileMetrics({ credentials: nina.credentials, profile: nina.profile })
    const posts = fx.sandbox.tweets().filter((item) => item.username === 'nina').length
    expect(reading.summary).toEqual({ followers: 1200, following: 80, posts, views: null })
    expect(reading.window).toBe('lifetime')
    expect(reading.source).toBe('x-api-v2 users/me public_metrics')
    expect(reading.metrics).toMatchObject({ followers_count: 1200, following_count: 80, post_count: posts })
  })

  it('reads the older field names (retweet_count, tweet_count) as well', async () => {
    legacy.sandbox.createAccount({ username: 'otto', followersCount: 5, followingCount: 6 })
    const otto = await legacy.connect('otto')
    const { remoteId } = await legacy.publish(otto, 'old names')
    legacy.clock.advance(4 * 60_000)
    const post = await legacy.adapter.postMetrics({
      credentials: otto.credentials,
      profile: otto.profile,
      remoteId,
    })
    expect(post.metrics).toMatchObject({ public_metrics: { retweet_count: 8 } })
    expect(post.summary.shares).toBe(8 + 2)
    const profile = await legacy.adapter.profileMetrics({
      credentials: otto.credentials,
      profile: otto.profile,
    })
    expect(profile.summary).toEqual({ followers: 5, following: 6, posts: 1, views: null })
  })

  it('reports an expired token as auth_expired so the caller can refresh', async () => {
    const pia = await fx.connect('pia')
    fx.sandbox.expireAccessTokens('pia')
    await expect(
      fx.adapter.profileMetrics({ credentials: pia.credentials, profile: pia.profile }),
    ).rejects.toMatchObject({
      kind: 'auth_expired',
      message: 'Access token for twitter is missing or invalid',
    })
  })
})
