import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials, PublishFailure } from '../../src/adapters/adapter.js'
import { REFRESH_AHEAD_MS } from '../../src/adapters/instagram/login.js'
import { diesOnceSaved, keepingProgress } from '../helpers/hosted-media.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { facebookGrant, type MetaWorld, request, startMetaWorld } from './meta-fixtures.js'

describe('the Instagram adapter against the Meta simulator', () => {
  let world: MetaWorld
  let grant: Awaited<ReturnType<typeof facebookGrant>>

  beforeAll(async () => {
    world = await startMetaWorld()
    grant = await facebookGrant(world, 'Studio North')
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  const publish = (content: string, media: string[], extra = {}) =>
    world.instagram.publish(request(grant.ig.profile, grant.ig.credentials, content, media, extra))

  it('publishes one image through a container, status polling and media_publish, with the permalink', async () => {
    const result = await publish('Morning light #studio', [world.src('photo.jpg')])
    expect(result.url).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/)
    const media = world.sandbox.media.get(result.remoteId)!
    expect(media).toMatchObject({ caption: 'Morning light #studio', mediaType: 'IMAGE' })
    const fetched = world.sandbox.fetches.at(-1)!
    expect(fetched).toMatchObject({ ok: true, format: 'jpeg' })
    expect(world.hosted).toContain(fetched.url)
  })

  it('publishes one video as a Reel shared to the feed', async () => {
    const result = await publish('Behind the scenes', [world.src('clip.mp4')])
    expect(result.url).toMatch(/^https:\/\/www\.instagram\.com\/reel\//)
    const container = [...world.sandbox.containers.values()].find((c) => c.mediaId === result.remoteId)!
    expect(container).toMatchObject({ mediaType: 'REELS', shareToFeed: true })
    const statusPolls = world.sandbox.calls.filter(
      (c) => c.node === 'ShadowIGMediaBuilder' && c.path === `/${container.id}`,
    )
    expect(statusPolls.length).toBeGreaterThanOrEqual(2)
  })

  it('publishes a carousel of 2 images and a video, saving each container id as it is made', async () => {
    const saved: Record<string, string>[] = []
    const result = await publish(
      'Carousel day',
      [world.src('photo.jpg'), world.src('wide.jpg'), world.src('clip.mp4')],
      {
        saveProgress: async (p: Record<string, string>) => {
          saved.push(p)
        },
      },
    )
    const media = world.sandbox.media.get(result.remoteId)!
    expect(media.mediaType).toBe('CAROUSEL_ALBUM')
    expect(media.children).toHaveLength(3)
    const kinds = media.children.map((id) => world.sandbox.containers.get(id)!.mediaType)
    expect(kinds).toEqual(['IMAGE', 'IMAGE', 'VIDEO'])
    expect(saved.flatMap((p) => Object.keys(p))).toEqual([
      'child0',
      'child1',
      'child2',
      'container',
      'published',
    ])
  })

  it('refuses a text-only target and a container whose image Meta cannot take', async () => {
    const textOnly = await publish('Only words', []).catch((e: unknown) => e)
    expect((textOnly as PublishFailure).kind).toBe('invalid_content')
    const tall = await publish('Too tall', [world.src('tall.jpg')]).catch((e: unknown) => e)
    expect((tall as PublishFailure).kind).toBe('invalid_content')
    expect((tall as PublishFailure).message).toMatch(/4:5/)
  })

  it('reads content_publishing_limit first and stops when the allowance is used up', async () => {
    const ig = grant.ig.profile.profileId
    const times = Array.from({ length: 100 }, () => Date.now())
    const before = world.sandbox.publishTimes.get(ig) ?? []
    world.sandbox.publishTimes.set(ig, times)
    const containers = world.sandbox.containers.size
    const error = await publish('One too many', [world.src('photo.jpg')]).catch((e: unknown) => e)
    world.sandbox.publishTimes.set(ig, before)
    expect((error as PublishFailure).kind).toBe('rate_limited')
    expect(world.sandbox.containers.size).toBe(containers)
  })

  it('after a crash with the container made and media_publish not sent, the retry publishes that container: one post', async () => {
    // The worker dies the moment the container id is on the target.
    const { first, progress, resumed } = diesOnceSaved(
      request(grant.ig.profile, grant.ig.credentials, 'Crash before publish', [world.src('photo.jpg')]),
    )
    await expect(world.instagram.publish(first)).rejects.toBeInstanceOf(Error)
    expect(progress.container).toBeDefined()
    const containersBefore = world.sandbox.containers.size
    const mediaBefore = world.sandbox.media.size
    const retry = await world.instagram.publish(resumed())
    expect(world.sandbox.containers.size).toBe(containersBefore)
    expect(world.sandbox.media.size).toBe(mediaBefore + 1)
    expect(world.sandbox.containers.get(progress.container!)?.mediaId).toBe(retry.remoteId)
  })

  it('after a crash with media_publish sent, the lookup resolves the target and a retry never posts twice', async () => {
    world.sandbox.failNext({ op: 'media_publish', action: 'drop_after' })
    const since = Date.now()
    const { req, progress } = keepingProgress(
      request(grant.ig.profile, grant.ig.credentials, 'Lost publish answer', [world.src('photo.jpg')]),
    )
    const error = await world.instagram.publish(req).catch((e: unknown) => e)
    expect((error as PublishFailure).kind).toBe('unknown_outcome')
    const found = await lookupMatch(world.instagram)({ ...req, since, progress })
    expect(found).not.toBeNull()
    expect(world.sandbox.media.get(found!.remoteId)?.caption).toBe('Lost publish answer')
    const mediaBefore = world.sandbox.media.size
    const again = await world.instagram.publish({ ...req, progress })
    expect(again.remoteId).toBe(found!.remoteId)
    expect(world.sandbox.media.size).toBe(mediaBefore)
  })

  it('reports no post when the saved container was never published', async () => {
    world.sandbox.failNext({ op: 'media_publish', action: 'drop_before' })
    const { req, progress } = keepingProgress(
      request(grant.ig.profile, grant.ig.credentials, 'Never published', [world.src('photo.jpg')]),
    )
    await world.instagram.publish(req).catch(() => undefined)
    expect(await lookupMatch(world.instagram)({ ...req, since: Date.now() - 1000, progress })).toBeNull()
  })

  it('reads media and account analytics without the deprecated metrics, Reels with their own', async () => {
    const image = await publish('Stats image', [world.src('photo.jpg')])
    const reel = await publish('Stats reel', [world.src('clip.mp4')])
    const a = await world.instagram.postMetrics({
      credentials: grant.ig.credentials,
      profile: grant.ig.profile,
      remoteId: image.remoteId,
    })
    expect(a.summary).toMatchObject({
      views: 840,
      likes: 21,
      comments: 3,
      shares: 4,
      saves: 6,
      engagements: 34,
    })
    expect(a.metrics).not.toHaveProperty('ig_reels_avg_watch_time')
    const r = await world.instagram.postMetrics({
      credentials: grant.ig.credentials,
      profile: grant.ig.profile,
      remoteId: reel.remoteId,
    })
    expect(r.metrics).toHaveProperty('ig_reels_avg_watch_time', 5200)
    const account = await world.instagram.profileMetrics({
      credentials: grant.ig.credentials,
      profile: grant.ig.profile,
    })
    expect(account.summary).toMatchObject({ followers: 3400, following: 210 })
    expect(account.summary.posts).toBeGreaterThan(0)
    expect(account.summary.views).toBeGreaterThan(0)
    const asked = world.sandbox.calls
      .filter((c) => c.path.endsWith('/insights'))
      .map((c) => c.params.metric)
      .join(',')
    expect(asked).not.toMatch(/impressions|plays|video_views/)
  })

  it('says to reconnect when the Instagram insights permission is missing', async () => {
    const limited = await facebookGrant(world, 'No IG Insights', { drop: ['instagram_manage_insights'] })
    const posted = await world.instagram.publish(
      request(limited.ig.profile, limited.ig.credentials, 'x', [world.src('photo.jpg')]),
    )
    const reading = await world.instagram.postMetrics({
      credentials: limited.ig.credentials,
      profile: limited.ig.profile,
      remoteId: posted.remoteId,
    })
    expect(reading.error).toMatch(/insights permission.*reconnect/)
    expect(reading.summary.likes).toBe(21)
    const account = await world.instagram.profileMetrics({
      credentials: limited.ig.credentials,
      profile: limited.ig.profile,
    })
    expect(account.error).toMatch(/reconnect/)
    expect(account.summary.followers).toBe(3400)
  })

  it('connects through Instagram Login on graph.instagram.com and refreshes the 60-day token ahead of time', async () => {
    const oauth = world.instagram.oauth!
    const redirectUri = 'http://127.0.0.1:1/connect/instagram/callback'
    const authorize = oauth.authorizeUrl({ state: 's', codeChallenge: 'x'.repeat(43), redirectUri })
    expect(authorize).toContain('scope=instagram_business_basic%2Cinstagram_business_content_publish')
    const form = new URLSearchParams(new URL(authorize).searchParams)
    form.set('username', 'solo.creator')
    form.set('decision', 'authorize')
    for (const s of oauth.scopes) form.append('granted_scope', s)
    const consent = await fetch(authorize.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' })
    const location = consent.headers.get('location')!
    expect(location.endsWith('#_')).toBe(true)
    const code = new URL(location).searchParams.get('code')!
    const { credentials, grantedScopes } = await oauth.exchangeCode({
      code,
      codeVerifier: 'unused',
      redirectUri,
    })
    expect(grantedScopes).toEqual([...oauth.scopes])
    const realEnd = Number(credentials.extra?.tokenExpiresAt)
    expect(realEnd - (credentials.expiresAt ?? 0)).toBe(REFRESH_AHEAD_MS)
    const profile = await world.instagram.resolveProfile(credentials)
    expect(profile.username).toBe('solo.creator')
    const posted = await world.instagram.publish(
      request(profile, credentials, 'From IG Login', [world.src('photo.jpg')]),
    )
    expect(world.sandbox.media.get(posted.remoteId)?.igUserId).toBe(profile.profileId)
    const reading = await world.instagram.postMetrics({ credentials, profile, remoteId: posted.remoteId })
    expect(reading.summary.views).toBe(840)
    const account = await world.instagram.profileMetrics({ credentials, profile })
    expect(account.summary.followers).toBe(3400)
    expect(world.sandbox.violations).toEqual([])
    expect(
      world.sandbox.calls.some((c) => c.node === 'IGUserForIGOnlyAPI' && c.path.endsWith('/media_publish')),
    ).toBe(true)
    // A refresh is refused until the token is a day old (Meta's rule), then gives a new 60-day token.
    const token = world.sandbox.tokens.get(credentials.accessToken)!
    token.issuedAt -= 2 * 24 * 3600_000
    const refreshed: Credentials = await world.instagram.refresh(credentials)
    expect(refreshed.accessToken).not.toBe(credentials.accessToken)
    expect(refreshed.extra?.host).toBe('instagram')
  })
})
