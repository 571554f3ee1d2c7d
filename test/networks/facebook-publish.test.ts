import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { facebookGrant, type MetaWorld, request, startMetaWorld } from './meta-fixtures.js'

describe('the Facebook Pages adapter against the Meta simulator', () => {
  let world: MetaWorld
  let grant: Awaited<ReturnType<typeof facebookGrant>>

  beforeAll(async () => {
    world = await startMetaWorld()
    grant = await facebookGrant(world, 'Acme Bakery')
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  it('connects through Facebook Login: long-lived user token, granted permissions, the Page and its Instagram account', () => {
    expect(grant.grantedScopes).toEqual(
      expect.arrayContaining(['pages_manage_posts', 'publish_video', 'instagram_content_publish']),
    )
    expect(grant.credentials.expiresAt).toBeGreaterThan(Date.now() + 50 * 24 * 3600_000)
    expect(grant.page.profile).toMatchObject({ name: 'Acme Bakery', isOrganization: true })
    expect(grant.page.credentials.extra?.pageId).toBe(grant.page.profile.profileId)
    expect(grant.ig.profile.username).toBe('acmebakery')
    expect(grant.ig.kind).toMatch(/Instagram professional account/)
  })

  it("lists every Page across pages of /me/accounts and the Pages of the user's businesses", async () => {
    const user = world.sandbox.ensureUser('Many Pages')
    for (let i = 0; i < 4; i++) user.pageIds.push(world.sandbox.createPage(`Branch ${i}`).id)
    const bizPage = world.sandbox.createPage('Business Only')
    world.sandbox.businesses.set('5550001', {
      id: '5550001',
      name: 'Biz',
      ownerId: user.id,
      pageIds: [bizPage.id],
    })
    world.sandbox.options.accountsPageSize = 2
    const many = await facebookGrant(world, 'Many Pages')
    const names = many.profiles.filter((p) => p.network === 'facebook').map((p) => p.profile.name)
    expect(names).toEqual(expect.arrayContaining(['Many Pages', 'Branch 0', 'Branch 3', 'Business Only']))
    expect(names).toHaveLength(6)
  })

  it('publishes a text post to /{page}/feed and returns its permalink', async () => {
    const result = await world.facebook.publish(
      request(grant.page.profile, grant.page.credentials, 'Fresh bread at 7', []),
    )
    expect(result.url).toMatch(/^https:\/\/www\.facebook\.com\/\d+\/posts\/\d+$/)
    const post = world.sandbox.posts.get(result.remoteId)
    expect(post).toMatchObject({ message: 'Fresh bread at 7', kind: 'status' })
  })

  it('publishes one photo through /{page}/photos with the hosted copy, which the Meta fetcher downloads', async () => {
    const before = world.sandbox.fetches.length
    const result = await world.facebook.publish(
      request(grant.page.profile, grant.page.credentials, 'One loaf', [world.src('photo.jpg')]),
    )
    expect(world.sandbox.posts.get(result.remoteId)?.kind).toBe('photo')
    const fetched = world.sandbox.fetches.slice(before)
    expect(fetched).toHaveLength(1)
    expect(fetched[0]).toMatchObject({ ok: true, format: 'jpeg', width: 1080 })
    expect(world.hosted).toContain(fetched[0]!.url)
  })

  it('publishes 3 photos as unpublished photos attached to one feed post', async () => {
    const saved: Record<string, string>[] = []
    const result = await world.facebook.publish(
      request(
        grant.page.profile,
        grant.page.credentials,
        'Three loaves',
        [world.src('photo.jpg'), world.src('wide.jpg'), world.src('tall.jpg')],
        {
          saveProgress: async (p) => {
            saved.push(p)
          },
        },
      ),
    )
    const post = world.sandbox.posts.get(result.remoteId)!
    expect(post.kind).toBe('album')
    expect(post.attachedMedia).toHaveLength(3)
    for (const id of post.attachedMedia) expect(world.sandbox.photos.get(id)?.published).toBe(false)
    expect(saved.map((p) => Object.keys(p)[0])).toEqual(['photo0', 'photo1', 'photo2'])
  })

  it('publishes a video by file_url and polls its status until ready', async () => {
    const result = await world.facebook.publish(
      request(grant.page.profile, grant.page.credentials, 'Our oven', [world.src('clip.mp4')]),
    )
    expect(result.url).toMatch(/^https:\/\/www\.facebook\.com\/\d+\/videos\/\d+\/?$/)
    const polls = world.sandbox.calls.filter((c) => c.node === 'AdVideo')
    expect(polls.length).toBeGreaterThanOrEqual(2)
  })

  it('refuses a set holding a video before sending anything', async () => {
    const count = world.sandbox.calls.length
    const error = await world.facebook
      .publish(
        request(grant.page.profile, grant.page.credentials, 'mixed', [
          world.src('photo.jpg'),
          world.src('clip.mp4'),
        ]),
      )
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PublishFailure)
    expect((error as PublishFailure).kind).toBe('invalid_content')
    expect(world.sandbox.calls.length).toBe(count)
  })

  it("finds a feed post whose answer was lost among the Page's recent posts", async () => {
    world.sandbox.failNext({ op: 'feed', action: 'drop_after' })
    const since = Date.now()
    const req = request(grant.page.profile, grant.page.credentials, 'Lost answer post', [])
    const error = await world.facebook.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    const found = await lookupMatch(world.facebook)({ ...req, since })
    expect(found?.remoteId).toBeDefined()
    expect(world.sandbox.posts.get(found!.remoteId)?.message).toBe('Lost answer post')
    const none = await lookupMatch(world.facebook)({ ...req, content: 'never sent', since })
    expect(none).toBeNull()
  })

  it('reads post and Page analytics with the 2026 metrics, raw figures under metrics', async () => {
    const post = await world.facebook.publish(
      request(grant.page.profile, grant.page.credentials, 'Analytics me', []),
    )
    const reading = await world.facebook.postMetrics({
      credentials: grant.page.credentials,
      profile: grant.page.profile,
      remoteId: post.remoteId,
    })
    expect(reading.summary).toMatchObject({ views: 410, likes: 17, comments: 4, shares: 2, clicks: 9 })
    expect(reading.metrics).toHaveProperty('post_total_media_view_unique', 321)
    const page = await world.facebook.profileMetrics({
      credentials: grant.page.credentials,
      profile: grant.page.profile,
    })
    expect(page.summary.followers).toBe(1200)
    expect(page.summary.views).toBeGreaterThan(0)
    const asked = world.sandbox.calls
      .filter((c) => c.path.endsWith('/insights'))
      .map((c) => c.params.metric)
      .join(',')
    expect(asked).not.toMatch(/impressions|page_fans/)
  })

  it('says to reconnect when the insights permission is missing', async () => {
    const limited = await facebookGrant(world, 'No Insights', { drop: ['read_insights'] })
    const post = await world.facebook.publish(
      request(limited.page.profile, limited.page.credentials, 'x', []),
    )
    const reading = await world.facebook.postMetrics({
      credentials: limited.page.credentials,
      profile: limited.page.profile,
      remoteId: post.remoteId,
    })
    expect(reading.error).toMatch(/reconnect/)
  })

  it('maps a revoked Page token to a reconnect and a rate limit to its reset', async () => {
    world.sandbox.failNext({ op: 'feed', action: 'error', code: 32, regainMinutes: 12 })
    const limited = await world.facebook
      .publish(request(grant.page.profile, grant.page.credentials, 'rl', []))
      .catch((e: unknown) => e)
    expect((limited as PublishFailure).kind).toBe('rate_limited')
    expect((limited as PublishFailure).options.resetAt).toBeGreaterThan(Date.now() + 11 * 60_000)
    const revoked = await world.facebook
      .publish(
        request(
          grant.page.profile,
          { accessToken: 'EAABrevokedrevokedrevoked', extra: grant.page.credentials.extra ?? {} },
          'x',
          [],
        ),
      )
      .catch((e: unknown) => e)
    expect((revoked as PublishFailure).kind).toBe('auth_expired')
  })

  it('never puts a token in a URL, a failure message or a log line', () => {
    const tokens = [...world.sandbox.tokens.keys()]
    for (const r of world.requests) for (const t of tokens) expect(r.url).not.toContain(t)
    for (const line of world.logs) for (const t of tokens) expect(line).not.toContain(t)
  })

  it("refuses and records a call that does not match Meta's spec, such as a misspelt parameter", async () => {
    const response = await fetch(`${world.settings.graphUrl}/v25.0/${grant.page.profile.profileId}/feed`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${grant.page.credentials.accessToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ mesage: 'typo' }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: 100,
      message: expect.stringContaining('unknown parameter mesage'),
    })
    expect(world.sandbox.violations.splice(0)).toEqual(['POST Page/feed: unknown parameter mesage'])
  })

  it("reports the app's usage in X-App-Usage and throttles with code 4 at 100 percent, the reset an hour away", async () => {
    world.sandbox.options.appCallsPerHour = world.sandbox.calls.length + 3
    const failure = await (async () => {
      for (let i = 0; i < 6; i++) {
        const error = await world.facebook
          .publish(request(grant.page.profile, grant.page.credentials, `burst ${i}`, []))
          .then(
            () => undefined,
            (e: unknown) => e,
          )
        if (error) return error as PublishFailure
      }
      return undefined
    })()
    world.sandbox.options.appCallsPerHour = 1_000_000
    expect(failure?.kind).toBe('rate_limited')
    expect(failure?.options.code).toBe('4')
    expect(failure?.options.resetAt).toBeGreaterThan(Date.now() + 59 * 60_000)
  })

  it("finds a video whose upload answer was lost among the Page's videos, even while it processes", async () => {
    world.sandbox.failNext({ op: 'videos', action: 'drop_after' })
    const since = Date.now()
    const req = request(grant.page.profile, grant.page.credentials, 'Lost video answer', [
      world.src('clip.mp4'),
    ])
    const error = await world.facebook.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    const videos = [...world.sandbox.videos.values()].filter((v) => v.description === 'Lost video answer')
    expect(videos).toHaveLength(1)
    expect(videos[0]!.state).toBe('processing')
    const found = await lookupMatch(world.facebook)({ ...req, since })
    expect(found?.url).toContain(`/videos/${videos[0]!.id}`)
    expect(world.sandbox.violations).toEqual([])
  })
})
