import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Credentials,
  type NetworkAdapter,
  type Profile,
  PublishFailure,
} from '../../src/adapters/adapter.js'
import { createLinkedInAdapter } from '../../src/adapters/linkedin/index.js'
import { tokenCredentials } from '../../src/adapters/linkedin/oauth.js'
import { RESERVED_CHARACTERS } from '../../src/core/linkedin-little.js'
import { assessConnection } from '../../src/modules/connections/health.js'
import { createLogger } from '../../src/platform/logger.js'
import { checkLinkedInRequest } from '../../src/sandbox/linkedin/contract.js'
import { type LinkedInSandbox, registerLinkedInSandbox } from '../../src/sandbox/linkedin/index.js'
import { lookupMatch } from '../helpers/lookup-match.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * The LinkedIn adapter against the LinkedIn simulator over HTTP, with every request the adapter sends
 * checked against the project's request contract (`src/sandbox/linkedin/contract.ts`) here, as the
 * simulator also enforces it.
 */
describe('the LinkedIn adapter against the simulator', () => {
  let server: FastifyInstance
  let sim: LinkedInSandbox
  let sources: TestServer
  let base: string
  let clock = Date.UTC(2026, 10, 24, 12, 0, 0)
  const sent: { method: string; url: string; problems: string[] }[] = []
  const sleeps: number[] = []
  const video = mp4File({ width: 1280, height: 720, durationMs: 5000, mdatBytes: 24 * 1024 })

  const http: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries((init?.headers ?? {}) as Record<string, string>))
      headers[k.toLowerCase()] = v
    let body: unknown
    if (typeof init?.body === 'string')
      body = headers['content-type']?.startsWith('application/json')
        ? JSON.parse(init.body)
        : Object.fromEntries(new URLSearchParams(init.body))
    const query = Object.fromEntries(url.searchParams)
    const path = url.pathname.slice('/li'.length)
    const { problems } = checkLinkedInRequest({ method: init?.method ?? 'GET', path, query, headers, body })
    sent.push({ method: init?.method ?? 'GET', url: url.toString(), problems })
    return answerInstead?.(url) ?? fetch(input, init)
  }
  /** An answer LinkedIn could give that the simulator does not, for the request it returns one for. */
  let answerInstead: ((url: URL) => Response | undefined) | undefined
  const settings = () => ({
    clientId: 'herald-test',
    clientSecret: 'test-secret',
    version: '202608',
    communityManagement: true,
    authorizeUrl: `${base}/oauth/v2/authorization`,
    tokenUrl: `${base}/oauth/v2/accessToken`,
    apiUrl: base,
  })
  const deps = () => ({
    http,
    logger: createLogger('silent'),
    now: () => clock,
    sleep: async (ms: number) => {
      sleeps.push(ms)
    },
    media: createTestMediaPort(),
  })
  let adapter: NetworkAdapter

  /** The authorization page posted as a browser would, then the code exchanged and the grant's profiles listed. */
  async function connect(username: string, a = adapter) {
    const oauth = a.oauth!
    const redirectUri = 'http://127.0.0.1:9/connect/linkedin/callback'
    const authorize = new URL(oauth.authorizeUrl({ state: 's1', codeChallenge: 'unused', redirectUri }))
    const form = new URLSearchParams(authorize.searchParams)
    form.set('username', username)
    form.set('decision', 'authorize')
    for (const scope of oauth.scopes) form.append('granted_scope', scope)
    const consent = await fetch(`${authorize.origin}${authorize.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    })
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!
    const { credentials, grantedScopes } = await oauth.exchangeCode({ code, codeVerifier: 'v', redirectUri })
    const profiles = await oauth.listProfiles!(credentials)
    return { credentials, grantedScopes, profiles }
  }
  const publish = (profile: Profile, credentials: Credentials, content: string, mediaUrls: string[] = []) =>
    adapter.publish({
      targetId: `t-${Math.random()}`,
      profile,
      credentials,
      content,
      mediaUrls: mediaUrls.map((m) => `${sources.url}${m}`),
      signal: new AbortController().signal,
    })
  const failureOf = async (promise: Promise<unknown>) => {
    try {
      await promise
    } catch (error) {
      if (error instanceof PublishFailure) return error
      throw error
    }
    throw new Error('expected a PublishFailure')
  }

  let member: { profile: Profile; credentials: Credentials }
  let page: { profile: Profile; credentials: Credentials }

  beforeAll(async () => {
    const jpeg = await solidImage(800, 600, 'jpeg')
    sources = await serveJpegOrVideo(jpeg, video)
    server = Fastify()
    sim = registerLinkedInSandbox(server, {
      prefix: '/li',
      clock: () => clock,
      videoPartBytes: 10_000,
      processingMs: 0,
    })
    await server.listen({ host: '127.0.0.1', port: 0 })
    const address = server.server.address() as { port: number }
    base = `http://127.0.0.1:${address.port}/li`
    adapter = createLinkedInAdapter(settings(), deps())
    const grant = await connect('Robin Vale')
    member = grant.profiles[0]!
    page = grant.profiles[1]!
  })
  afterAll(async () => {
    await server?.close()
    await sources?.close()
    const broken = sent.filter((s) => s.problems.length > 0)
    expect(broken, JSON.stringify(broken, null, 1)).toEqual([])
  })

  it('lists the member and both pages they administer, with the scopes LinkedIn granted', async () => {
    const grant = await connect('Robin Vale')
    expect(grant.grantedScopes).toEqual([
      'openid',
      'profile',
      'email',
      'w_member_social',
      'w_organization_social',
      'r_organization_social',
      'rw_organization_admin',
    ])
    expect(
      grant.profiles.map((p) => [p.profile.name, p.profile.username, p.profile.isOrganization, p.kind]),
    ).toEqual([
      ['Robin Vale', 'Robin Vale', false, 'Personal profile'],
      ['Robin Vale Studio', 'robin-vale-studio', true, 'Page'],
      ['Robin Vale Labs', 'robin-vale-labs', true, 'Page'],
    ])
    expect(grant.credentials.expiresAt).toBe(clock + 5_183_999_000)
    expect(Number(grant.credentials.extra?.refreshTokenExpiresAt)).toBe(clock + 31_535_999_000)
  })

  it('reads every page of organizationAcls, for both roles', async () => {
    const m = sim.ensureMember('Many Pages')
    for (let i = 0; i < 23; i++)
      sim.addOrganization(m, `Shop ${i}`, `shop-${i}`, i % 2 ? 'ADMINISTRATOR' : 'CONTENT_ADMINISTRATOR')
    const grant = await connect('Many Pages')
    expect(grant.profiles).toHaveLength(1 + 2 + 23)
    expect(new Set(grant.profiles.map((p) => p.profile.profileId)).size).toBe(26)
  })

  it('asks only for the member scopes when the app lacks Community Management, and lists only the member', async () => {
    const personal = createLinkedInAdapter({ ...settings(), communityManagement: false }, deps())
    expect(personal.oauth!.scopes).toEqual(['openid', 'profile', 'email', 'w_member_social'])
    const grant = await connect('Solo Writer', personal)
    expect(grant.profiles.map((p) => p.kind)).toEqual(['Personal profile'])
  })

  it('retries the REVOKED_ACCESS_TOKEN answered right after an exchange once, after a short delay', async () => {
    sim.faults.push({
      op: 'userinfo',
      status: 401,
      body: {
        serviceErrorCode: 65601,
        code: 'REVOKED_ACCESS_TOKEN',
        message: 'The token used in the request has been revoked by the user',
      },
    })
    const before = sleeps.length
    const grant = await connect('Robin Vale')
    expect(grant.profiles).toHaveLength(3)
    expect(sleeps.slice(before)).toEqual([2_000])
  })

  it.each(RESERVED_CHARACTERS.map((c) => [c]))(
    'keeps the reserved character %s through the round trip',
    async (c) => {
      const content = `before ${c} after ${c}${c} end`
      const result = await publish(member.profile, member.credentials, content)
      const stored = sim.posts.get(result.remoteId)!
      expect(stored.truncated).toBe(false)
      expect(stored.visibleText).toBe(content)
    },
  )

  it('keeps hashtags, mentions and URLs live, and the simulator cuts at an unescaped reserved character as LinkedIn does', async () => {
    const content =
      'Launch day #launch with @[Robin](urn:li:person:abc) at https://example.com/a_b(c)?x=1 (really)'
    const result = await publish(member.profile, member.credentials, content)
    const stored = sim.posts.get(result.remoteId)!
    expect(stored.commentary).toContain(' #launch ')
    expect(stored.commentary).toContain('https://example.com/a_b(c)?x=1 \\(really\\)')
    expect(stored.visibleText).toBe(content)
    const raw = await fetch(`${base}/rest/posts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${member.credentials.accessToken}`,
        'linkedin-version': '202608',
        'x-restli-protocol-version': '2.0.0',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        author: `urn:li:person:${member.profile.profileId}`,
        commentary: 'Cut here (and the rest is lost)',
        visibility: 'PUBLIC',
        distribution: {
          feedDistribution: 'MAIN_FEED',
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        lifecycleState: 'PUBLISHED',
        isReshareDisabledByAuthor: false,
      }),
    })
    expect(raw.status).toBe(201)
    const cut = sim.posts.get(raw.headers.get('x-restli-id')!)!
    expect(cut).toMatchObject({ visibleText: 'Cut here ', truncated: true })
  })

  it('posts one image as media and three as a multiImage, each uploaded with one PUT and AVAILABLE first', async () => {
    const one = await publish(page.profile, page.credentials, 'One image', ['/a.jpg'])
    expect(sim.posts.get(one.remoteId)!.content).toEqual({
      media: { id: expect.stringMatching(/^urn:li:image:/) },
    })
    const three = await publish(page.profile, page.credentials, 'Three images', [
      '/a.jpg',
      '/b.jpg',
      '/c.jpg',
    ])
    const images = (sim.posts.get(three.remoteId)!.content!.multiImage as { images: { id: string }[] }).images
    expect(images).toHaveLength(3)
    for (const image of images)
      expect(sim.assets.get(image.id)).toMatchObject({
        status: 'AVAILABLE',
        owner: `urn:li:organization:${page.profile.profileId}`,
      })
    expect(three.url).toBe(`https://www.linkedin.com/feed/update/${three.remoteId}`)
  })

  it('waits once instead of polling for a member’s images, which a member token may not read', async () => {
    const before = sleeps.length
    const result = await publish(member.profile, member.credentials, 'My photo', ['/a.jpg'])
    expect(sleeps.slice(before)).toEqual([20_000])
    expect(sim.posts.get(result.remoteId)!.author).toBe(`urn:li:person:${member.profile.profileId}`)
    expect(
      sent.some((s) => s.method === 'GET' && s.url.includes('/rest/images/') && s.url.includes('person')),
    ).toBe(false)
  })

  it('uploads a video in the byte ranges LinkedIn gives and finalizes with the ETags in order', async () => {
    const result = await publish(page.profile, page.credentials, 'A video', ['/clip.mp4'])
    const id = (sim.posts.get(result.remoteId)!.content!.media as { id: string }).id
    const asset = sim.assets.get(id)!
    expect(asset.parts.length).toBe(Math.ceil(video.length / 10_000))
    expect(asset.bytes).toBe(video.length)
    expect(asset.status).toBe('AVAILABLE')
  })

  it('refuses a video mixed with images before uploading anything', async () => {
    const failure = await failureOf(publish(page.profile, page.credentials, 'Mixed', ['/clip.mp4', '/a.jpg']))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/never mixed/)
  })

  it('makes an article card of a link in text-only copy', async () => {
    const result = await publish(page.profile, page.credentials, 'Read https://example.com/news today')
    expect(sim.posts.get(result.remoteId)!.content).toEqual({
      article: { source: 'https://example.com/news', title: 'example.com' },
    })
  })

  it('classifies a duplicate as invalid content', async () => {
    await publish(page.profile, page.credentials, 'Said once')
    const failure = await failureOf(publish(page.profile, page.credentials, 'Said once'))
    expect(failure).toMatchObject({
      kind: 'invalid_content',
      options: { code: 'DUPLICATE_POST', status: 422 },
    })
  })

  it('rate limits until midnight UTC on a 429, and publishes again once the day has turned', async () => {
    sim.postsPerDay = 0
    const failure = await failureOf(publish(page.profile, page.credentials, 'Throttled'))
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(Date.UTC(2026, 10, 25))
    clock = failure.options.resetAt! + 1_000
    sim.postsPerDay = 150
    const result = await publish(page.profile, page.credentials, 'Throttled')
    expect(result.remoteId).toMatch(/^urn:li:share:\d+$/)
  })

  it('treats a 5xx after the create as an unknown outcome and finds the post among the author’s recent posts', async () => {
    sim.faults.push({ op: 'posts', status: 504, afterCreate: true })
    const since = clock
    const failure = await failureOf(publish(page.profile, page.credentials, 'Lost answer (maybe)'))
    expect(failure.kind).toBe('unknown_outcome')
    const found = await lookupMatch(adapter)({
      targetId: 't',
      profile: page.profile,
      credentials: page.credentials,
      content: 'Lost answer (maybe)',
      mediaUrls: [],
      since,
      signal: new AbortController().signal,
    })
    const stored = [...sim.posts.values()].filter((p) => p.visibleText === 'Lost answer (maybe)')
    expect(stored).toHaveLength(1)
    expect(found).toEqual({
      remoteId: stored[0]!.id,
      url: `https://www.linkedin.com/feed/update/${stored[0]!.id}`,
    })
    const none = await lookupMatch(adapter)({
      targetId: 't',
      profile: page.profile,
      credentials: page.credentials,
      content: 'Never sent',
      mediaUrls: [],
      since,
      signal: new AbortController().signal,
    })
    expect(none).toBeNull()
  })

  it('tells to update the version setting when LinkedIn no longer accepts the pinned version', async () => {
    const old = createLinkedInAdapter({ ...settings(), version: '202501' }, deps())
    const failure = await failureOf(
      old.publish({
        targetId: 'x',
        profile: page.profile,
        credentials: page.credentials,
        content: 'Old',
        mediaUrls: [],
        signal: new AbortController().signal,
      }),
    )
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/HERALD_LINKEDIN_VERSION/)
    expect(failure.options.status).toBe(426)
  })

  it('the simulator refuses a call without the version header, and one that breaks the contract', async () => {
    const missing = await fetch(`${base}/rest/posts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${page.credentials.accessToken}`,
        'content-type': 'application/json',
      },
      body: '{}',
    })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: 'VERSION_MISSING' })
    const before = sim.violations.length
    const broken = await fetch(`${base}/rest/posts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${page.credentials.accessToken}`,
        'linkedin-version': '202608',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ author: 'urn:li:organization:1', commentary: 'x' }),
    })
    expect(broken.status).toBe(400)
    expect(sim.violations.length).toBe(before + 1)
    expect(sim.violations.at(-1)!.problems.join()).toMatch(/x-restli-protocol-version/)
  })

  it('reports auth on a revoked token, refreshes with the refresh token, and without one asks for a reconnect', async () => {
    const grant = await connect('Token Person')
    const who = grant.profiles[0]!
    sim.revokeTokens(sim.ensureMember('Token Person').sub)
    const failure = await failureOf(publish(who.profile, who.credentials, 'After revoke'))
    expect(failure).toMatchObject({
      kind: 'auth_expired',
      options: { status: 401, code: 'REVOKED_ACCESS_TOKEN' },
    })
    const fresh = await adapter.refresh(who.credentials)
    expect(fresh.refreshToken).toBe(who.credentials.refreshToken)
    expect(fresh.extra?.refreshTokenExpiresAt).toBe(who.credentials.extra?.refreshTokenExpiresAt)
    await publish(who.profile, fresh, 'After refresh')
    const without = await failureOf(adapter.refresh({ accessToken: 'x' }))
    expect(without.kind).toBe('auth_expired')
    expect(without.message).toMatch(/no refresh token/)
  })

  it('reads organization post and page analytics, and never calls LinkedIn for a personal profile', async () => {
    const result = await publish(page.profile, page.credentials, 'Measured post')
    const reading = await adapter.postMetrics({
      credentials: page.credentials,
      profile: page.profile,
      remoteId: result.remoteId,
    })
    expect(reading.unavailable).toBeUndefined()
    expect(reading.summary.likes).toBeGreaterThan(0)
    expect(reading.summary.views).toBeGreaterThan(0)
    const clip = await publish(page.profile, page.credentials, 'Measured video', ['/clip.mp4'])
    const videoReading = await adapter.postMetrics({
      credentials: page.credentials,
      profile: page.profile,
      remoteId: clip.remoteId,
    })
    expect(videoReading.metrics.videoViews).toBe(42)
    const profile = await adapter.profileMetrics({ credentials: page.credentials, profile: page.profile })
    expect(profile.summary.followers).toBeGreaterThan(0)
    expect(profile.summary.views).toBeGreaterThan(0)
    const before = sent.length
    const personal = await adapter.postMetrics({
      credentials: member.credentials,
      profile: member.profile,
      remoteId: 'urn:li:share:1',
    })
    const personalProfile = await adapter.profileMetrics({
      credentials: member.credentials,
      profile: member.profile,
    })
    expect(personal.unavailable).toBe(true)
    expect(personal.error).toMatch(/only for organization pages/)
    expect(personalProfile.unavailable).toBe(true)
    expect(sent.length).toBe(before)
  })

  it('shows daysLeft: 5 for a token expiring in five days, from the access token or the stated refresh-token end', () => {
    const now = Date.UTC(2026, 0, 10)
    const fiveDays = 5 * 86_400 + 3_600
    const access = tokenCredentials({ access_token: 'a', expires_in: fiveDays }, now)
    const input = {
      platform: 'linkedin',
      profileId: 'p',
      username: 'u',
      status: 'active' as const,
      lastError: null,
    }
    expect(
      assessConnection({ ...input, tokenExpiresAt: access.expiresAt!, credentials: access }, now),
    ).toMatchObject({
      daysLeft: 5,
      expired: false,
      reason: expect.stringMatching(/reconnect the profile before then/),
    })
    const refreshable = tokenCredentials(
      { access_token: 'a', expires_in: 5_183_999, refresh_token: 'r', refresh_token_expires_in: fiveDays },
      now,
    )
    expect(
      assessConnection({ ...input, tokenExpiresAt: refreshable.expiresAt!, credentials: refreshable }, now),
    ).toMatchObject({
      daysLeft: 5,
    })
  })

  it('never puts a token in a failure message', async () => {
    const failure = await failureOf(publish(page.profile, { accessToken: 'secret-token-123456' }, 'Who am I'))
    expect(failure.message).not.toContain('secret-token-123456')
    expect(failure.kind).toBe('auth_expired')
  })

  describe('looking for an unanswered post on a busy profile (start / count paging)', () => {
    /** Posts other attempts made as `author`, a second apart from `at` (seeded: a busy profile). */
    function seedPosts(author: string, count: number, at: number, commentary = 'Another post') {
      const now = clock
      for (let i = 0; i < count; i++) {
        clock = at + i * 1000
        sim.createPost({ author, commentary: `${commentary} ${i}`, createdBy: 'seed' })
      }
      clock = Math.max(now, clock)
    }
    const lookup = (who: { profile: Profile; credentials: Credentials }, content: string, since: number) =>
      lookupMatch(adapter)({
        targetId: 't',
        profile: who.profile,
        credentials: who.credentials,
        content,
        mediaUrls: [],
        since,
        signal: new AbortController().signal,
      })
    const pageStarts = (from: number) =>
      sent
        .slice(from)
        .filter((s) => s.method === 'GET' && new URL(s.url).pathname.endsWith('/rest/posts'))
        .map((s) => new URL(s.url).searchParams.get('start'))

    it('finds the post when 250 newer posts pushed it to the third page', async () => {
      const busy = (await connect('Busy Poster')).profiles[0]!
      const author = `urn:li:person:${busy.profile.profileId}`
      const since = clock
      const result = await publish(busy.profile, busy.credentials, 'The post whose answer was lost')
      seedPosts(author, 250, clock + 1000)
      const from = sent.length
      expect(await lookup(busy, 'The post whose answer was lost', since)).toEqual(result)
      expect(pageStarts(from)).toEqual(['0', '100', '200'])
    })

    it('answers not found after reading every post since the attempt, and stops at the first older post', async () => {
      const busy = (await connect('Busy Writer')).profiles[0]!
      const author = `urn:li:person:${busy.profile.profileId}`
      const since = clock
      // 1,200 older posts (one with the same copy) would trip the bound if the scan did not stop at them.
      seedPosts(author, 1200, since - 3 * 3600_000, 'Older post')
      seedPosts(author, 1, since - 10 * 60_000, 'Sent long ago')
      seedPosts(author, 230, since + 1000)
      const from = sent.length
      expect(await lookup(busy, 'Sent long ago 0', since)).toBeNull()
      expect(pageStarts(from)).toEqual(['0', '100', '200'])
    })

    it('reads past an empty page without a total whose next link leads on', async () => {
      const busy = (await connect('Busy Filterer')).profiles[0]!
      const since = clock
      const result = await publish(busy.profile, busy.credentials, 'Behind a page LinkedIn filtered empty')
      const from = sent.length
      let served = false
      answerInstead = (url) => {
        if (served || !url.pathname.endsWith('/rest/posts')) return undefined
        served = true
        const next = `/rest/posts?q=author&author=${encodeURIComponent(`urn:li:person:${busy.profile.profileId}`)}&start=0&count=100`
        return Response.json({
          paging: { start: 0, count: 100, links: [{ rel: 'next', type: 'application/json', href: next }] },
          elements: [],
        })
      }
      try {
        expect(await lookup(busy, 'Behind a page LinkedIn filtered empty', since)).toEqual(result)
      } finally {
        answerInstead = undefined
      }
      expect(pageStarts(from)).toEqual(['0', '0'])
    })

    it('is ambiguous rather than answer not found when 10 pages do not reach the attempt', async () => {
      const busy = (await connect('Busy Agency')).profiles[0]!
      const author = `urn:li:person:${busy.profile.profileId}`
      const since = clock
      seedPosts(author, 1005, since + 1000)
      const from = sent.length
      const answer = await adapter.findPublished!({
        targetId: 'target-busy',
        profile: busy.profile,
        credentials: busy.credentials,
        content: 'Buried under a thousand posts',
        mediaUrls: [],
        since,
        signal: new AbortController().signal,
      })
      expect(answer).toMatchObject({ kind: 'ambiguous' })
      expect((answer as { reason: string }).reason).toMatch(
        /more posts since the attempt than Herald reads back/,
      )
      expect(pageStarts(from)).toHaveLength(10)
      expect(sim.violations.filter((v) => v.path.endsWith('/rest/posts') && v.method === 'GET')).toEqual([])
    })
  })
})
