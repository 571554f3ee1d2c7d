import { describe, expect, it } from 'vitest'
import type { PublishFailure, PublishResult } from '../../src/adapters/adapter.js'
import { useFaultRig } from '../helpers/fault-rig.js'
import { lookUpAs } from '../helpers/sandbox-adapters.js'

const statusCalls = { network: 'mastodon', operation: 'statuses' } as const
const listing = { network: 'mastodon', operation: 'accounts.statuses' } as const

describe('the Mastodon adapter against the Mastodon simulator', () => {
  const rig = useFaultRig([{ network: 'mastodon', username: 'alice@social.example' }])
  const instance = () => rig.h.sandboxes!.mastodon.instances.get('social.example')!
  const published = async (...args: Parameters<typeof rig.publish>) => {
    const result = await rig.publish(...args)
    if (result instanceof Error) throw result
    return result as PublishResult
  }
  const lookUp = (content: string, since: number, extra: { progress?: Record<string, string> } = {}) =>
    lookUpAs(rig.h, rig.profile('mastodon'), {
      targetId: 'tgt_lookup',
      content,
      mediaUrls: [],
      since,
      ...extra,
    })
  const control = (path: string, body: unknown) =>
    fetch(`${rig.h.baseUrl}/sandbox/mastodon/_sandbox/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('connects @alice@social.example through the instance it names, registering Herald there once', () => {
    const who = rig.profile('mastodon')
    expect(who.profile.username).toBe('alice@social.example')
    expect(who.profile.profileId).toMatch(/^\d+@social\.example$/)
    expect(who.credentials.extra?.instance).toBe('social.example')
    expect([...instance().apps.values()].map((a) => a.name)).toEqual(['Herald'])
  })

  it('publishes a status with an image, its alt text, visibility, content warning and language', async () => {
    const result = await rig.publish('mastodon', 'Harbour at dawn #photo', [rig.media('harbour.jpg')], {
      mastodon: { visibility: 'unlisted', contentWarning: 'bright light', language: 'en' },
      media: [{ url: rig.media('harbour.jpg'), altText: 'Boats in the morning fog' }],
    } as never)
    if (result instanceof Error) throw result
    const status = instance().statuses.get(result.remoteId)!
    expect(status).toMatchObject({ visibility: 'unlisted', spoilerText: 'bright light', language: 'en' })
    expect(instance().media.get(status.mediaIds[0]!)?.description).toBe('Boats in the morning fog')
    expect(result.url).toContain('/sandbox/mastodon/web/social.example/@alice/')
  })

  it('refuses a status longer than the instance allows, with the content warning counted', async () => {
    const failure = (await rig.publish('mastodon', 'x'.repeat(495), [], {
      mastodon: { contentWarning: 'spoilers' },
    } as never)) as PublishFailure
    expect(failure.kind).toBe('invalid_content')
  })

  it('uploads a video, waits while the instance processes it, then posts it', async () => {
    const result = await published('mastodon', 'A short clip', [rig.media('clip.mp4')])
    const status = instance().statuses.get(result.remoteId)!
    const media = instance().media.get(status.mediaIds[0]!)!
    expect(media).toMatchObject({ type: 'video', pollsLeft: 0 })
    const polls = rig.script.calls.filter((c) => c.operation === 'media.get' && c.path.endsWith(media.id))
    expect(polls.length).toBeGreaterThanOrEqual(3)
  })

  it('reads a refused token as auth_expired, a 429 as a rate limit until X-RateLimit-Reset, a refusal as invalid content', async () => {
    rig.script.on(statusCalls, {
      timing: 'before',
      answer: { kind: 'status', status: 401, body: { error: 'The access token is invalid' } },
    })
    expect(((await rig.publish('mastodon', 'refused token')) as PublishFailure).kind).toBe('auth_expired')
    rig.script.on(statusCalls, { timing: 'before', answer: { kind: 'status', status: 429 } })
    const limited = (await rig.publish('mastodon', 'limited')) as PublishFailure
    expect(limited.kind).toBe('rate_limited')
    expect(limited.options.resetAt! - Date.now()).toBeGreaterThan(4 * 60_000)
    rig.script.on(statusCalls, {
      timing: 'before',
      answer: { kind: 'status', status: 422, body: { error: "Validation failed: Text can't be blank" } },
    })
    const refused = (await rig.publish('mastodon', 'refused')) as PublishFailure
    expect(refused.kind).toBe('invalid_content')
    expect(refused.message).toBe(
      "social.example answered 422 to posting the status: Validation failed: Text can't be blank",
    )
  })

  it("holds to the instance's posting limit: the next status is a 429 with the time the oldest leaves the window", async () => {
    const settings = instance().settings
    const posted = [...instance().statuses.values()].filter(
      (s) => s.accountId === rig.profile('mastodon').profile.profileId.split('@')[0],
    ).length
    settings.statusLimit = posted
    try {
      const failure = (await rig.publish('mastodon', 'one too many')) as PublishFailure
      expect(failure.kind).toBe('rate_limited')
      expect(failure.options.resetAt).toBeGreaterThan(Date.now())
    } finally {
      settings.statusLimit = 300
    }
  })

  it('looks up an unanswered status: found by its copy, absent when none is there, ambiguous when two look like it', async () => {
    const since = Date.now() - 1_000
    const made = await published(
      'mastodon',
      'Looked up later, with https://example.com/x and @bob@other.example',
    )
    const found = await lookUp('Looked up later, with https://example.com/x and @bob@other.example', since)
    expect(found).toEqual({ kind: 'found', result: { remoteId: made.remoteId, url: made.url } })
    expect(await lookUp('Never sent at all', since)).toEqual({ kind: 'absent' })
    await published('mastodon', 'Twice the same')
    await published('mastodon', 'Twice the same')
    expect((await lookUp('Twice the same', since)).kind).toBe('ambiguous')
  })

  it('finds a status by an attachment the attempt recorded, whatever its copy', async () => {
    const since = Date.now() - 1_000
    let recorded: Record<string, string> = {}
    const made = await published('mastodon', 'With a picture', [rig.media('keyed.jpg')], {
      saveProgress: async (progress) => {
        recorded = { ...recorded, ...progress }
      },
    })
    expect(recorded.media).toMatch(/^\d+$/)
    const found = await lookUp('Some other copy', since, { progress: recorded })
    expect(found).toMatchObject({ kind: 'found', result: { remoteId: made.remoteId } })
  })

  it('reads past short and empty pages to the end of the statuses since the attempt before saying absent', async () => {
    const since = Date.now() - 1_000
    for (let i = 0; i < 3; i++) await published('mastodon', `Filler ${i}`)
    const target = await published('mastodon', 'Deep in the list')
    for (let i = 0; i < 3; i++) await published('mastodon', `Later ${i}`)
    rig.script.shortPages(listing, 0, 2)
    rig.script.shortPages(listing, 1, 3)
    expect(await lookUp('Deep in the list', since)).toMatchObject({
      kind: 'found',
      result: { remoteId: target.remoteId },
    })
    rig.script.shortPages(listing, 0, 4)
    expect(await lookUp('Not in the list', since)).toEqual({ kind: 'absent' })
  })

  it('publishes a reply to its parent and looks one up under it', async () => {
    const who = rig.profile('mastodon')
    const adapter = rig.h.app.adapters.mastodon!
    const root = await published('mastodon', 'The first of a thread')
    const since = Date.now() - 1_000
    const item = {
      targetId: 'tgt_reply',
      index: 0,
      role: 'thread' as const,
      profile: who.profile,
      credentials: who.credentials,
      content: 'The second of a thread',
      mediaUrls: [],
      root,
      parent: root,
      mastodon: { contentWarning: 'threads' },
      signal: AbortSignal.timeout(30_000),
    }
    const reply = await adapter.publishItem!(item)
    expect(instance().statuses.get(reply.remoteId)).toMatchObject({
      inReplyToId: root.remoteId,
      spoilerText: 'threads',
    })
    const found = await adapter.findItem!({ ...item, since, excludeRemoteIds: [] })
    expect(found).toMatchObject({ kind: 'found', result: { remoteId: reply.remoteId } })
    expect(
      await adapter.findItem!({ ...item, content: 'Another reply', since, excludeRemoteIds: [] }),
    ).toEqual({ kind: 'absent' })
  })

  it('reads favourites, boosts and replies of a status and the followers, following and statuses of the account', async () => {
    const who = rig.profile('mastodon')
    const adapter = rig.h.app.adapters.mastodon!
    const made = await published('mastodon', 'Counted')
    await control('engagement', {
      host: 'social.example',
      statusId: made.remoteId,
      favourites: 7,
      reblogs: 2,
    })
    const post = await adapter.postMetrics({
      credentials: who.credentials,
      profile: who.profile,
      remoteId: made.remoteId,
    })
    expect(post.summary).toMatchObject({ likes: 7, shares: 2, comments: 0, engagements: 9, views: null })
    await control('followers', { host: 'social.example', username: 'alice', followers: 42, following: 5 })
    const profile = await adapter.profileMetrics({ credentials: who.credentials, profile: who.profile })
    expect(profile.summary).toMatchObject({ followers: 42, following: 5, views: null })
    expect(profile.summary.posts).toBeGreaterThan(0)
  })
})
