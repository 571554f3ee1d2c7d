import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LookupRequest } from '../../src/adapters/adapter.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import {
  type Connection,
  failureOf,
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

reportSkippedWithoutOpenApi('looking for an unanswered X post on a busy profile')

describe.runIf(xOpenApiAvailable)('looking for an unanswered X post on a busy profile', () => {
  let fx: TwitterFixture
  beforeAll(async () => {
    // A busy profile posts far more than X's 100 posts per 15 minutes would let one app send.
    fx = await startTwitterFixture({ sandbox: { rateLimits: { createPosts: 10_000 } } })
  })
  afterAll(() => fx.close())
  beforeEach(() => fx.validation.reset())
  afterEach(() => expect(fx.validation.problems).toEqual([]))

  /** Posts `count` other copies, a second apart, as other attempts on the same profile would. */
  async function postOthers(connection: Connection, count: number) {
    for (let i = 0; i < count; i++) {
      fx.clock.advance(1000)
      await fx.publish(connection, `Another post number ${i}`)
    }
  }
  const lookup = (connection: Connection, content: string, since: number): LookupRequest => ({
    targetId: 'target-lookup',
    profile: connection.profile,
    credentials: connection.credentials,
    content,
    mediaUrls: [],
    since,
    signal: new AbortController().signal,
  })
  /** `count` posts the profile makes on X itself, a second apart, each in its own conversation. */
  const postOnX = (username: string, count: number) => {
    for (let i = 0; i < count; i++) {
      fx.clock.advance(1000)
      expect(
        fx.sandbox.postOnX({ username, text: `Posted on X itself, number ${i} of ${count}` }),
      ).toBeDefined()
    }
  }
  const pageTokens = () =>
    fx.validation.requests
      .filter((request) => request.operationId === 'getUsersPosts')
      .map((request) => request.query?.get('pagination_token') ?? null)

  it('finds the post when 250 newer posts pushed it to the third page', async () => {
    const carol = await fx.connect('carol')
    const since = fx.clock.now()
    const sent = await fx.publish(carol, 'The post whose answer was lost')
    await postOthers(carol, 250)
    fx.validation.reset()
    const found = await lookupMatch(fx.adapter)(lookup(carol, 'The post whose answer was lost', since))
    expect(found).toEqual({ remoteId: sent.remoteId, url: `https://x.com/carol/status/${sent.remoteId}` })
    const tokens = pageTokens()
    expect(tokens).toHaveLength(3)
    expect(tokens[0]).toBeNull()
    expect(tokens.slice(1).every((token) => typeof token === 'string')).toBe(true)
  })

  it('answers not found only after reading every post since the attempt', async () => {
    const dave = await fx.connect('dave')
    // The same copy, posted well before the attempt: not the attempt's post.
    await fx.publish(dave, 'Sent once, long ago')
    fx.clock.advance(10 * 60_000)
    const since = fx.clock.now()
    await postOthers(dave, 230)
    fx.validation.reset()
    expect(await lookupMatch(fx.adapter)(lookup(dave, 'Sent once, long ago', since))).toBeNull()
    // 230 posts since the attempt: pages of 100, 100 and 30, the last one without a next_token.
    expect(pageTokens()).toHaveLength(3)
    const requests = fx.validation.requests
    expect(requests[0]!.query?.get('start_time')).toBe(
      new Date(since - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    )
  })

  it('is ambiguous rather than answer not found when the profile posted too much to read back to the attempt', async () => {
    const erin = await fx.connect('erin')
    const since = fx.clock.now()
    await fx.publish(erin, 'Buried under a thousand posts')
    await postOthers(erin, 1005)
    fx.validation.reset()
    const answer = await fx.adapter.findPublished!(lookup(erin, 'Buried under a thousand posts', since))
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    const { reason } = answer as { reason: string }
    expect(reason).toMatch(/more posts since the attempt than Herald reads back/)
    expect(reason).not.toContain(erin.credentials.accessToken)
    expect(pageTokens()).toHaveLength(10)
  }, 60_000)

  it('finds an unanswered reply under 150 newer posts of other conversations, which fill whole pages', async () => {
    const hank = await fx.connect('hank')
    const root = await fx.publish(hank, 'The thread that starts it')
    fx.clock.advance(1000)
    const since = fx.clock.now()
    const item = {
      targetId: 'target-reply',
      index: 0,
      role: 'thread' as const,
      profile: hank.profile,
      credentials: hank.credentials,
      content: 'The reply whose answer was lost',
      mediaUrls: [],
      root,
      parent: root,
      signal: new AbortController().signal,
    }
    const reply = await fx.adapter.publishItem!(item)
    // The profile goes on posting on X itself: every post of the first page belongs to another conversation.
    postOnX('hank', 150)
    fx.validation.reset()
    const answer = await fx.adapter.findItem!({ ...item, since, excludeRemoteIds: [] })
    expect(answer).toEqual({ kind: 'found', result: reply })
    expect(pageTokens()).toHaveLength(2)
    // Buried deeper than Herald reads: ambiguous, counting the posts of other conversations it read.
    postOnX('hank', 1000)
    const buried = await fx.adapter.findItem!({ ...item, since, excludeRemoteIds: [] })
    expect(buried).toMatchObject({ kind: 'ambiguous' })
    expect((buried as { reason: string }).reason).toContain('(1000 in 10 pages)')
  })

  it('throws rather than answer not found when X answers the timeline in a form Herald cannot read', async () => {
    const frank = await fx.connect('frank')
    fx.sandbox.injectFailure('getUsersPosts', { status: 200, body: { data: 'not a list of posts' } })
    const failure = await failureOf(() => lookupMatch(fx.adapter)(lookup(frank, 'Anything', fx.clock.now())))
    expect(failure).toMatchObject({ name: 'PublishFailure', kind: 'unknown_outcome' })
    expect(failure.message).toMatch(/could not read/)
  })

  it('finds a premium post over 280 characters by its whole text (note_post), entities decoded', async () => {
    const gail = await fx.connect('gail', { tier: 'premium' })
    const since = fx.clock.now()
    const copy = `${'Fish & chips <fresh> every Friday. '.repeat(12)}Menu: https://example.com/menu`
    const sent = await fx.publish(gail, copy)
    await postOthers(gail, 3)
    const found = await lookupMatch(fx.adapter)(lookup(gail, copy, since))
    expect(found?.remoteId).toBe(sent.remoteId)
  })

  it('compares a short copy with & < > as X escapes them and NFC-normalised', async () => {
    const hank = await fx.connect('hank')
    const since = fx.clock.now()
    const sent = await fx.publish(hank, 'Cafe\u0301 & <bread>')
    const found = await lookupMatch(fx.adapter)(lookup(hank, 'Caf\u00e9 & <bread>', since))
    expect(found?.remoteId).toBe(sent.remoteId)
  })

  it('finds a post whose failed media URL X kept as plain text (an IP address host), found by the simulation', async () => {
    const jo = await fx.connect('jo')
    const since = fx.clock.now()
    const media = 'http://203.0.113.9:8080/photo.jpg'
    // The publish appends a media URL whose upload failed on its own line; X does not make this one a link.
    const sent = await fx.publish(jo, `Opening hours today\n${media}`)
    const found = await lookupMatch(fx.adapter)({
      ...lookup(jo, 'Opening hours today', since),
      mediaUrls: [media],
    })
    expect(found?.remoteId).toBe(sent.remoteId)
  })

  it('tells two posts apart by their links, which X answers as t.co', async () => {
    const ivy = await fx.connect('ivy')
    const since = fx.clock.now()
    const ours = await fx.publish(ivy, 'Read the notes https://example.com/ours')
    fx.clock.advance(1000)
    // Posted later (so read first), the same words with another link: not the attempt's post.
    await fx.publish(ivy, 'Read the notes https://example.com/theirs')
    const found = await lookupMatch(fx.adapter)(lookup(ivy, 'Read the notes https://example.com/ours', since))
    expect(found?.remoteId).toBe(ours.remoteId)
  })
})
