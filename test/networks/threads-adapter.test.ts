import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials, PublishFailure } from '../../src/adapters/adapter.js'
import { HOSTED_MEDIA_UNREACHABLE } from '../../src/adapters/threads/errors.js'
import { REFRESH_AHEAD_MS, THREADS_SCOPES } from '../../src/adapters/threads/oauth.js'
import { LAG_WAIT_MS } from '../../src/adapters/threads/publish.js'
import { diesOnceSaved, keepingProgress } from '../helpers/hosted-media.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { request, startThreadsWorld, type ThreadsWorld, threadsGrant } from './threads-fixtures.js'

const DAY_MS = 24 * 60 * 60 * 1000

describe('the Threads adapter against the Threads simulator', () => {
  let world: ThreadsWorld
  let grant: Awaited<ReturnType<typeof threadsGrant>>

  beforeAll(async () => {
    world = await startThreadsWorld()
    grant = await threadsGrant(world, 'Harbour Notes')
  })
  afterAll(async () => {
    expect(world.sandbox.violations).toEqual([])
    await world.close()
  })

  const publish = (content: string, media: string[], extra = {}) =>
    world.threads.publish(request(grant.profile, grant.credentials, content, media, extra))
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => e as PublishFailure,
    )

  it('connects with the Threads app, its scopes and a 60-day token whose end account health can read', () => {
    const authorize = new URL(grant.authorize)
    expect(authorize.searchParams.get('client_id')).toBe('herald-threads-app')
    expect(authorize.searchParams.get('scope')).toBe(THREADS_SCOPES.join(','))
    expect(grant.location.endsWith('#_')).toBe(true)
    expect(grant.profile).toMatchObject({ username: 'harbournotes', name: 'Harbour Notes' })
    expect(grant.profile.avatarUrl).toMatch(/^https:\/\//)
    const realEnd = Number(grant.credentials.extra?.refreshTokenExpiresAt)
    expect(realEnd - Date.now()).toBeGreaterThan(59 * DAY_MS)
    expect(realEnd - (grant.credentials.expiresAt ?? 0)).toBe(REFRESH_AHEAD_MS)
    expect(grant.credentials.extra?.threadsUserId).toBe(grant.profile.profileId)
    const token = world.sandbox.tokens.get(grant.credentials.accessToken)!
    expect(token).toMatchObject({ longLived: true, scopes: [...THREADS_SCOPES] })
    // The app secret goes only to the two token endpoints that take it (the long-lived exchange is a GET
    // with it in the query, as Meta's collection has it); the tokens travel in the Authorization header.
    const withSecret = world.requests.filter((r) =>
      `${r.url} ${r.body ?? ''}`.includes('threads-app-secret-value'),
    )
    expect(withSecret.map((r) => new URL(r.url).pathname.split('/graph')[1])).toEqual([
      '/oauth/access_token',
      '/access_token',
    ])
    for (const r of world.requests) expect(r.url).not.toContain(grant.credentials.accessToken)
  })

  it('publishes a text post whose first link becomes the link preview, with the permalink', async () => {
    const result = await publish('New menu is up: https://harbour.example/menu. Come by!', [])
    expect(result.url).toMatch(/^https:\/\/www\.threads\.com\/@harbournotes\/post\/[\w-]+$/)
    const thread = world.sandbox.threads.get(result.remoteId)!
    expect(thread).toMatchObject({ mediaType: 'TEXT_POST', linkAttachment: 'https://harbour.example/menu' })
  })

  it("publishes one image and one video from Herald's hosted copies, polling the video's status", async () => {
    const image = await publish('Morning light', [world.src('wide.png')])
    expect(world.sandbox.threads.get(image.remoteId)?.mediaType).toBe('IMAGE')
    expect(world.sandbox.fetches.at(-1)).toMatchObject({ ok: true, format: 'png' })
    expect(world.hosted).toContain(world.sandbox.fetches.at(-1)!.url)
    const video = await publish('Behind the bar', [world.src('clip.mp4')])
    expect(world.sandbox.threads.get(video.remoteId)?.mediaType).toBe('VIDEO')
    const container = [...world.sandbox.containers.values()].find((c) => c.threadId === video.remoteId)!
    const polls = world.sandbox.calls.filter((c) => c.path === `/${container.id}`)
    expect(polls.length).toBeGreaterThanOrEqual(2)
    expect(polls[0]!.params.fields).toBe('id,status,error_message')
  })

  it('publishes a carousel of 2 images and a video, saving each container id as it is made', async () => {
    const saved: Record<string, string>[] = []
    const result = await publish(
      'Carousel day',
      [world.src('photo.jpg'), world.src('wide.png'), world.src('clip.mp4')],
      {
        saveProgress: async (p: Record<string, string>) => {
          saved.push(p)
        },
      },
    )
    const thread = world.sandbox.threads.get(result.remoteId)!
    expect(thread.mediaType).toBe('CAROUSEL_ALBUM')
    expect(thread.children.map((id) => world.sandbox.containers.get(id)!.mediaType)).toEqual([
      'IMAGE',
      'IMAGE',
      'VIDEO',
    ])
    expect(saved.flatMap((p) => Object.keys(p))).toEqual([
      'child0',
      'child1',
      'child2',
      'container',
      'published',
    ])
  })

  it('after a crash with the container recorded, the retry publishes that same container: one thread', async () => {
    // The worker dies the moment the container id is on the target.
    const { first, progress, resumed } = diesOnceSaved(
      request(grant.profile, grant.credentials, 'Crash before publish', [world.src('photo.jpg')]),
    )
    await expect(world.threads.publish(first)).rejects.toBeInstanceOf(Error)
    expect(progress.container).toBeDefined()
    const containersBefore = world.sandbox.containers.size
    const threadsBefore = world.sandbox.threads.size
    const retry = await world.threads.publish(resumed())
    expect(world.sandbox.containers.size).toBe(containersBefore)
    expect(world.sandbox.threads.size).toBe(threadsBefore + 1)
    expect(world.sandbox.containers.get(progress.container!)?.threadId).toBe(retry.remoteId)
  })

  it('an unanswered threads_publish is an unknown outcome, found among the recent threads, and never posted twice', async () => {
    world.sandbox.failNext({ op: 'threads_publish', action: 'drop_after' })
    const since = Date.now()
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, 'Lost publish answer', []),
    )
    const error = await failure(world.threads.publish(req))
    expect(error?.kind).toBe('unknown_outcome')
    const found = await lookupMatch(world.threads)({ ...req, since, progress })
    expect(world.sandbox.threads.get(found!.remoteId)?.text).toBe('Lost publish answer')
    const before = world.sandbox.threads.size
    const again = await world.threads.publish({ ...req, progress })
    expect(again.remoteId).toBe(found!.remoteId)
    expect(world.sandbox.threads.size).toBe(before)
    const listed = world.sandbox.calls.find((c) => c.path.endsWith('/threads') && c.method === 'GET')
    expect(listed?.params).toMatchObject({ fields: 'id,text,timestamp,permalink,media_type' })
  })

  it('a 5xx answer to threads_publish is an unknown outcome too, resolved the same way', async () => {
    world.sandbox.failNext({ op: 'threads_publish', action: 'error_after', status: 500, code: 2 })
    const since = Date.now()
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, 'Published behind a 500', []),
    )
    const error = await failure(world.threads.publish(req))
    expect(error?.kind).toBe('unknown_outcome')
    expect(error?.message).toMatch(/may or may not have been published/)
    const found = await lookupMatch(world.threads)({ ...req, since, progress })
    expect(world.sandbox.threads.get(found!.remoteId)?.text).toBe('Published behind a 500')
  })

  it('finds nothing when the recorded container was never published', async () => {
    world.sandbox.failNext({ op: 'threads_publish', action: 'drop_before' })
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, 'Never published', []),
    )
    await world.threads.publish(req).catch(() => undefined)
    expect(await lookupMatch(world.threads)({ ...req, since: Date.now() - 1000, progress })).toBeNull()
  })

  it('retries the brief code-24 lag after FINISHED, waiting a little longer each time', async () => {
    world.sandbox.failNext({ op: 'threads_publish', action: 'error', code: 24, subcode: 4279009, times: 2 })
    world.sleeps.length = 0
    const result = await publish('Published after the lag', [])
    expect(world.sandbox.threads.get(result.remoteId)?.text).toBe('Published after the lag')
    expect(world.sleeps).toEqual([LAG_WAIT_MS, 2 * LAG_WAIT_MS])
  })

  it('fails an ERROR container with the reason, saying so plainly when the hosted copy was unreachable', async () => {
    const bad = await failure(publish('Not really an image', [world.src('notes.txt')]))
    expect(bad?.kind).toBe('invalid_content')
    expect(bad?.message).toMatch(/^Threads could not process the post: The image format is not supported/)
    world.breakHosting()
    const unreachable = await failure(publish('Hosting down', [world.src('photo.jpg')]))
    expect(unreachable?.kind).toBe('invalid_content')
    expect(unreachable?.message).toContain(HOSTED_MEDIA_UNREACHABLE)
  })

  it('fails a container that EXPIRED while processing, and makes a new one on the retry', async () => {
    world.sandbox.options.videoPolls = 3
    const skipped = 25 * 60 * 60 * 1000
    let moved = 0
    world.onSleep = () => {
      world.advance(skipped)
      moved += skipped
    }
    const { req, progress } = keepingProgress(
      request(grant.profile, grant.credentials, 'Slow video', [world.src('clip.mp4')]),
    )
    try {
      const expired = await failure(world.threads.publish(req))
      expect(expired?.kind).toBe('transient')
      expect(expired?.message).toMatch(/container expired/)
    } finally {
      world.onSleep = undefined
      world.sandbox.options.videoPolls = 1
    }
    const first = progress.container!
    expect(world.sandbox.containers.get(first)?.status).toBe('EXPIRED')
    const retry = await world.threads.publish({ ...req, progress: { ...progress } })
    world.advance(-moved)
    const container = [...world.sandbox.containers.values()].find((c) => c.threadId === retry.remoteId)!
    expect(container.id).not.toBe(first)
  })

  it('resumes a carousel from its recorded children, making again only the one that expired', async () => {
    // The worker dies once both children exist, before the CAROUSEL container.
    const {
      first: req,
      progress,
      resumed,
    } = diesOnceSaved(
      request(grant.profile, grant.credentials, 'Resumed carousel', [
        world.src('photo.jpg'),
        world.src('wide.png'),
      ]),
      'child1',
    )
    await expect(world.threads.publish(req)).rejects.toBeInstanceOf(Error)
    const [first, second] = [progress.child0!, progress.child1!]
    world.sandbox.containers.get(second)!.createdAt -= 25 * 60 * 60 * 1000
    const retry = await world.threads.publish(resumed())
    const children = world.sandbox.threads.get(retry.remoteId)!.children
    expect(children[0]).toBe(first)
    expect(children[1]).not.toBe(second)
    expect(children).toHaveLength(2)
  })

  it('reads threads_publishing_limit: the allowance for preflight, and no container once it is used up', async () => {
    const allowance = await world.threads.publishingAllowance!({
      credentials: grant.credentials,
      profile: grant.profile,
    })
    expect(allowance).toMatchObject({ total: 250, windowHours: 24 })
    const id = grant.profile.profileId
    const before = world.sandbox.publishTimes.get(id) ?? []
    world.sandbox.publishTimes.set(
      id,
      Array.from({ length: 250 }, () => world.now()),
    )
    const containers = world.sandbox.containers.size
    const error = await failure(publish('One too many', []))
    world.sandbox.publishTimes.set(id, before)
    expect(error?.kind).toBe('rate_limited')
    expect(error?.message).toMatch(/250 of 250/)
    expect(world.sandbox.containers.size).toBe(containers)
  })

  it('reads thread and profile insights as the summary keys', async () => {
    const posted = await publish('Stats please', [])
    const reading = await world.threads.postMetrics({
      credentials: grant.credentials,
      profile: grant.profile,
      remoteId: posted.remoteId,
    })
    expect(reading.summary).toEqual({
      views: 512,
      likes: 33,
      comments: 7,
      shares: 4 + 2 + 3,
      saves: null,
      clicks: null,
      engagements: 33 + 7 + 4 + 2 + 3,
    })
    expect(reading.metrics).toMatchObject({ replies: 7, reposts: 4, quotes: 2 })
    const profile = await world.threads.profileMetrics({
      credentials: grant.credentials,
      profile: grant.profile,
    })
    expect(profile.summary.followers).toBe(870)
    expect(profile.summary.views).toBeGreaterThan(40)
    expect(profile.window).toBe('days_2')
  })

  it('says to reconnect when the insights permission was not granted', async () => {
    const limited = await threadsGrant(world, 'No Insights', { drop: ['threads_manage_insights'] })
    const posted = await world.threads.publish(request(limited.profile, limited.credentials, 'x', []))
    const reading = await world.threads.postMetrics({
      credentials: limited.credentials,
      profile: limited.profile,
      remoteId: posted.remoteId,
    })
    expect(reading.error).toMatch(/insights permission.*reconnect/)
    expect(reading.summary.views).toBeNull()
  })

  it('keeps a token under a day old, then refreshes it with th_refresh_token for another 60 days', async () => {
    const fresh = await threadsGrant(world, 'Refresh Me')
    const calls = world.sandbox.calls.length
    const requests = world.requests.length
    expect(await world.threads.refresh(fresh.credentials)).toBe(fresh.credentials)
    expect(world.requests.length).toBe(requests)
    world.advance(2 * DAY_MS)
    try {
      const refreshed: Credentials = await world.threads.refresh(fresh.credentials)
      expect(refreshed.accessToken).not.toBe(fresh.credentials.accessToken)
      expect(world.sandbox.tokens.has(fresh.credentials.accessToken)).toBe(false)
      expect(Number(refreshed.extra?.refreshTokenExpiresAt)).toBeGreaterThan(
        Number(fresh.credentials.extra?.refreshTokenExpiresAt) + DAY_MS,
      )
      expect(refreshed.extra?.threadsUserId).toBe(fresh.profile.profileId)
      expect(world.requests.at(-1)!.url).toMatch(/\/refresh_access_token\?grant_type=th_refresh_token$/)
      expect(world.sandbox.calls.length).toBe(calls)
      // A refused refresh means reconnecting.
      const refused = await failure(world.threads.refresh(fresh.credentials))
      expect(refused?.kind).toBe('auth_expired')
    } finally {
      world.advance(-2 * DAY_MS)
    }
  })

  it('never puts a token or the app secret into a log line', () => {
    const tokens = [...world.sandbox.tokens.keys()]
    for (const line of world.logs) {
      for (const token of tokens) expect(line).not.toContain(token)
      expect(line).not.toContain('threads-app-secret-value')
    }
  })
})
