import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import {
  type GoogleBusinessSandbox,
  registerGoogleBusinessSandbox,
} from '../../src/sandbox/googlebusiness/index.js'

/**
 * The Google Business Profile simulator on its own: Google's refusals (a token without the business scope,
 * another user's location, a body Google would refuse, a project without access, the minute's quota), its
 * pages, a post's state over time and under moderation, faults queued on its control surface, and its state.
 */
describe('the Google Business Profile simulator', () => {
  const clock = new FakeClock(Date.UTC(2026, 9, 1, 9))
  let server: FastifyInstance
  let sandbox: GoogleBusinessSandbox
  let token: string
  let parent: string
  const SCOPE = 'https://www.googleapis.com/auth/business.manage'

  beforeAll(async () => {
    server = Fastify({ logger: false })
    sandbox = registerGoogleBusinessSandbox(server, {
      prefix: '/gbp',
      clock,
      perMinute: 40,
      processingMs: 30_000,
    })
    await server.ready()
    const business = sandbox.ensureBusiness('Sim Bakery')
    token = sandbox.oauth.issueTokens(business.user.email, 'client', [SCOPE]).access_token
    parent = `${business.account.name}/${business.locations[0]!.name}`
  })
  afterAll(() => server.close())

  const call = (method: 'GET' | 'POST', url: string, body?: unknown, bearer = token) =>
    server.inject({
      method,
      url: `/gbp${url}`,
      headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    })
  const create = (body: unknown) => call('POST', `/mybusiness/v4/${parent}/localPosts`, body)

  it('makes a post PROCESSING, LIVE once processed, and REJECTED when moderation refuses it', async () => {
    const made = await create({ summary: 'Fresh bread', topicType: 'STANDARD' })
    expect(made.statusCode).toBe(200)
    const post = made.json()
    expect(post).toMatchObject({ summary: 'Fresh bread', topicType: 'STANDARD', state: 'PROCESSING' })
    clock.advance(30_000)
    expect((await call('GET', `/mybusiness/v4/${post.name}`)).json().state).toBe('LIVE')
    const refused = await create({ summary: 'A SANDBOX-REJECT loaf', topicType: 'STANDARD' })
    expect(refused.json().state).toBe('REJECTED')
    expect((await call('GET', `/mybusiness/v4/${parent}/localPosts/0`)).statusCode).toBe(404)
  })

  it.each([
    ['an alert', { summary: 'x', topicType: 'ALERT' }, 'topic_type'],
    ['a summary of 1,501 characters', { summary: 'x'.repeat(1501), topicType: 'STANDARD' }, 'summary'],
    ['an event without its event', { summary: 'x', topicType: 'EVENT' }, 'event'],
    [
      'an offer’s fields on an update',
      { summary: 'x', topicType: 'STANDARD', offer: { couponCode: 'A' } },
      'offer',
    ],
    [
      'a Call button with a URL',
      { summary: 'x', topicType: 'STANDARD', callToAction: { actionType: 'CALL', url: 'https://a.example' } },
      'call_to_action.url',
    ],
    [
      'a Book button without one',
      { summary: 'x', topicType: 'STANDARD', callToAction: { actionType: 'BOOK' } },
      'call_to_action.url',
    ],
    [
      'a video',
      {
        summary: 'x',
        topicType: 'STANDARD',
        media: [{ mediaFormat: 'VIDEO', sourceUrl: 'https://a.example/v.mp4' }],
      },
      'media.media_format',
    ],
    [
      'two photos',
      {
        summary: 'x',
        topicType: 'STANDARD',
        media: [{ sourceUrl: 'https://a.example/1.jpg' }, { sourceUrl: 'https://a.example/2.jpg' }],
      },
      'media',
    ],
    ['an unknown field', { summary: 'x', topicType: 'STANDARD', colour: 'red' }, 'local_post'],
  ])('refuses %s as Google does, naming the field', async (_what, body, field) => {
    const before = sandbox.posts.size
    const answer = await create(body)
    expect(answer.statusCode).toBe(400)
    expect(answer.json().error.status).toBe('INVALID_ARGUMENT')
    expect(JSON.stringify(answer.json().error)).toContain(field)
    expect(sandbox.posts.size).toBe(before)
  })

  it('refuses a token without the business scope, and another user’s location', async () => {
    const other = sandbox.ensureBusiness('Other Bakery')
    const narrow = sandbox.oauth.issueTokens(other.user.email, 'client', ['openid']).access_token
    const scoped = await call('GET', '/mybusinessaccountmanagement/v1/accounts', undefined, narrow)
    expect(scoped.statusCode).toBe(403)
    expect(scoped.json().error.details[0].reason).toBe('ACCESS_TOKEN_SCOPE_INSUFFICIENT')
    const otherToken = sandbox.oauth.issueTokens(other.user.email, 'client', [SCOPE]).access_token
    expect(await create({ summary: 'x', topicType: 'STANDARD' }).then((r) => r.statusCode)).toBe(200)
    const theirs = await call(
      'POST',
      `/mybusiness/v4/${parent}/localPosts`,
      { summary: 'x', topicType: 'STANDARD' },
      otherToken,
    )
    expect(theirs.statusCode).toBe(403)
    expect(
      (await call('GET', '/mybusinessaccountmanagement/v1/accounts', undefined, 'nonsense')).statusCode,
    ).toBe(401)
  })

  it('needs a read mask on locations and pages every list with tokens', async () => {
    const account = parent.split('/locations/')[0]
    expect((await call('GET', `/mybusinessbusinessinformation/v1/${account}/locations`)).statusCode).toBe(400)
    const first = (
      await call(
        'GET',
        `/mybusinessbusinessinformation/v1/${account}/locations?readMask=name,title&pageSize=1`,
      )
    ).json()
    expect(first.locations).toHaveLength(1)
    expect(Object.keys(first.locations[0]).sort()).toEqual(['name', 'title'])
    const second = (
      await call(
        'GET',
        `/mybusinessbusinessinformation/v1/${account}/locations?readMask=name&pageSize=1&pageToken=${first.nextPageToken}`,
      )
    ).json()
    expect(second.locations[0].name).not.toBe(first.locations[0].name)
    expect(second.nextPageToken).toBeUndefined()
    const posts = (await call('GET', `/mybusiness/v4/${parent}/localPosts?pageSize=2`)).json()
    expect(posts.localPosts).toHaveLength(2)
    const rest = (
      await call('GET', `/mybusiness/v4/${parent}/localPosts?pageSize=2&pageToken=${posts.nextPageToken}`)
    ).json()
    expect(rest.localPosts.map((p: { name: string }) => p.name)).not.toContain(posts.localPosts[0].name)
  })

  it('meets every call with a quota of 0 while the project has no access, and then the minute’s quota', async () => {
    sandbox.accessGranted = false
    const refused = await call('GET', '/mybusinessaccountmanagement/v1/accounts')
    expect(refused.statusCode).toBe(429)
    expect(refused.json().error).toMatchObject({
      status: 'RESOURCE_EXHAUSTED',
      details: [{ reason: 'RATE_LIMIT_EXCEEDED', metadata: { quota_limit_value: '0' } }, expect.anything()],
    })
    sandbox.accessGranted = true
    clock.advance(60_000)
    const answers = []
    for (let i = 0; i < 41; i++)
      answers.push((await call('GET', `/mybusiness/v4/${parent}/localPosts`)).statusCode)
    expect(answers.slice(0, 40).every((s) => s === 200)).toBe(true)
    const limited = await call('GET', `/mybusiness/v4/${parent}/localPosts`)
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error.details[0].metadata.quota_limit_value).toBe('40')
    clock.advance(60_000)
    expect((await call('GET', `/mybusiness/v4/${parent}/localPosts`)).statusCode).toBe(200)
  })

  it('applies a fault queued on its control surface after the post is made, and shows it in its state', async () => {
    const queued = await server.inject({
      method: 'POST',
      url: '/gbp/_sandbox/faults',
      payload: { op: 'localPosts.create', action: 'error_after', status: 503 },
    })
    expect(queued.statusCode).toBe(201)
    const answer = await create({ summary: 'Made before the 503', topicType: 'STANDARD' })
    expect(answer.statusCode).toBe(503)
    expect(answer.json().error.status).toBe('UNAVAILABLE')
    const state = (await server.inject({ method: 'GET', url: '/gbp/_sandbox/state' })).json()
    expect(
      state.localPosts.filter((p: { summary: string }) => p.summary === 'Made before the 503'),
    ).toHaveLength(1)
    expect(JSON.stringify(state)).not.toContain(token)
  })
})
