import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Credentials, type Profile, PublishFailure } from '../../src/adapters/adapter.js'
import { type BlueskyAdapter, createBlueskyAdapter } from '../../src/adapters/bluesky/index.js'
import { recordKeyFor } from '../../src/adapters/bluesky/record-key.js'
import { createLogger } from '../../src/platform/logger.js'
import { type BlueskySandbox, registerBlueskySandbox } from '../../src/sandbox/bluesky/index.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * The Bluesky adapter against the Bluesky simulator over HTTP (the tests against the real PDS stay in
 * bluesky-pds.test.ts). The simulator checks every call against atproto.openapi.json; none may miss.
 */
describe('the Bluesky adapter against the simulator', () => {
  let server: FastifyInstance
  let sim: BlueskySandbox
  let sources: TestServer
  let adapter: BlueskyAdapter
  let clock = Date.UTC(2026, 10, 24, 12, 0, 0)
  const calls: string[] = []
  let alice: { credentials: Credentials; profile: Profile }

  const http: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    calls.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/^.*\/(xrpc|plc)\//, '$1/')}`)
    return fetch(input, init)
  }
  let targets = 0
  const request = (
    content: string,
    media: string[] = [],
    targetId = `6744${(++targets).toString(16).padStart(4, '0')}aaaabbbbccccdddd`,
  ) => ({
    targetId,
    profile: alice.profile,
    credentials: alice.credentials,
    content,
    mediaUrls: media.map((name) => `${sources.url}/${name}`),
    signal: new AbortController().signal,
  })
  const recordOf = (uri: string) => sim.records.get(uri)!.value as Record<string, any>
  const failureOf = async (promise: Promise<unknown>) => {
    try {
      await promise
    } catch (error) {
      if (error instanceof PublishFailure) return error
      throw error
    }
    throw new Error('expected a PublishFailure')
  }

  beforeAll(async () => {
    const jpeg = await solidImage(800, 600, 'jpeg')
    const video = mp4File({ width: 720, height: 1280, durationMs: 4000, mdatBytes: 16 * 1024 })
    sources = await serveJpegOrVideo(jpeg, video)
    server = Fastify()
    sim = registerBlueskySandbox(server, { prefix: '/bsky', clock: () => clock })
    await server.listen({ host: '127.0.0.1', port: 0 })
    const base = `http://127.0.0.1:${(server.server.address() as { port: number }).port}/bsky`
    adapter = createBlueskyAdapter(
      { serviceUrl: base, plcUrl: `${base}/plc`, allowLocalPds: true },
      {
        http,
        logger: createLogger('silent'),
        now: () => clock,
        sleep: async () => {},
        media: createTestMediaPort(),
      },
    )
    const { appPassword } = sim.createAccount({ username: 'alice', displayName: 'Alice Liddell' })
    sim.createAccount({ username: 'bob' })
    alice = await adapter.login({ identifier: '@Alice.bsky.social', appPassword })
  })
  afterAll(async () => {
    await server?.close()
    await sources?.close()
  })

  it('connects with a handle and an app password: handle → did:plc → the simulator as PDS → a session', async () => {
    expect(alice.profile).toEqual({
      profileId: expect.stringMatching(/^did:plc:[a-z2-7]{24}$/),
      username: 'alice.bsky.social',
      name: 'Alice Liddell',
      isOrganization: false,
      // The profile record's avatar blob, read from the PDS as the Bluesky app reads it.
      avatarUrl: expect.stringMatching(
        /\/bsky\/xrpc\/com\.atproto\.sync\.getBlob\?did=did%3Aplc%3A[a-z2-7]{24}&cid=baf/,
      ),
    })
    expect(alice.credentials.expiresAt).toBe(clock + 2 * 3_600_000)
    expect(alice.credentials.extra?.pdsUrl).toMatch(/\/bsky$/)
    expect(calls.slice(0, 5)).toEqual([
      'GET xrpc/com.atproto.identity.resolveHandle',
      `GET plc/${alice.profile.profileId}`,
      'POST xrpc/com.atproto.server.createSession',
      'GET xrpc/com.atproto.server.getSession',
      'GET xrpc/com.atproto.repo.getRecord',
    ])
  })

  it('refuses a wrong app password as auth_expired and a handle nobody has as invalid_content', async () => {
    const wrong = await failureOf(
      adapter.login({ identifier: 'alice.bsky.social', appPassword: 'aaaa-bbbb-cccc-dddd' }),
    )
    expect(wrong).toMatchObject({
      kind: 'auth_expired',
      options: { status: 401, code: 'AuthenticationRequired' },
    })
    const nobody = await failureOf(adapter.login({ identifier: 'nobody.bsky.social', appPassword: 'x' }))
    expect(nobody.kind).toBe('invalid_content')
  })

  it('publishes text with a mention, a link and a tag as facets at the record key of the target', async () => {
    const text = 'Hello @bob.bsky.social, read https://example.com/a #herald'
    const req = request(text)
    const result = await adapter.publish(req)
    const rkey = recordKeyFor(req.targetId)
    expect(result).toEqual({
      remoteId: `at://${alice.profile.profileId}/app.bsky.feed.post/${rkey}`,
      url: `https://bsky.app/profile/alice.bsky.social/post/${rkey}`,
    })
    const record = recordOf(result.remoteId)
    expect(record.text).toBe(text)
    const features = record.facets.map((f: { features: Array<Record<string, string>> }) => f.features[0])
    expect(features).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: sim.findAccount('bob.bsky.social')!.did },
      { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'herald' },
    ])
    const mention = record.facets[0].index
    expect(Buffer.from(text).subarray(mention.byteStart, mention.byteEnd).toString()).toBe('@bob.bsky.social')
  })

  it('uploads two images as blobs and references them from an images embed', async () => {
    const result = await adapter.publish(request('Two pictures', ['a.jpg', 'b.jpg']))
    const embed = recordOf(result.remoteId).embed
    expect(embed.$type).toBe('app.bsky.embed.images')
    expect(embed.images).toHaveLength(2)
    for (const image of embed.images) {
      expect(image.alt).toBe('')
      const blob = sim.blobs.get(`${alice.profile.profileId} ${image.image.ref.$link}`)!
      expect(blob).toMatchObject({ mimeType: 'image/jpeg', size: image.image.size })
      expect(image.image.ref.$link).toMatch(/^bafkrei[a-z2-7]{52}$/)
    }
  })

  it('uploads a video as one blob and references it from a video embed', async () => {
    const result = await adapter.publish(request('A vertical clip', ['clip.mp4']))
    const embed = recordOf(result.remoteId).embed
    expect(embed.$type).toBe('app.bsky.embed.video')
    expect(embed.video.mimeType).toBe('video/mp4')
    expect(sim.blobs.get(`${alice.profile.profileId} ${embed.video.ref.$link}`)?.size).toBe(embed.video.size)
  })

  it('resolves an unanswered createRecord by reading the record back, without a second post', async () => {
    const req = request('Sent once, whatever happens to the answer')
    sim.failNext({ nsid: 'com.atproto.repo.createRecord', action: 'drop_after' })
    calls.length = 0
    const result = await adapter.publish(req)
    expect(calls).toEqual(['POST xrpc/com.atproto.repo.createRecord', 'GET xrpc/com.atproto.repo.getRecord'])
    // A retry of the same target is refused at its record key, and finds the same post again.
    const again = await adapter.publish({ ...req, signal: new AbortController().signal })
    expect(again.remoteId).toBe(result.remoteId)
    const copies = sim.postsOf(alice.profile.profileId).filter((r) => r.value.text === req.content)
    expect(copies).toHaveLength(1)
  })

  it('fails as unknown_outcome when createRecord was lost and the record is not there either', async () => {
    sim.failNext({ nsid: 'com.atproto.repo.createRecord', action: 'drop_before' })
    const failure = await failureOf(adapter.publish(request('Never arrived')))
    expect(failure.kind).toBe('unknown_outcome')
    expect(sim.postsOf(alice.profile.profileId).some((r) => r.value.text === 'Never arrived')).toBe(false)
  })

  it('reads post counts from getPosts and account counts from getProfile', async () => {
    const result = await adapter.publish(request('Counted'))
    Object.assign(sim.engagement.get(result.remoteId)!, {
      likeCount: 7,
      repostCount: 2,
      quoteCount: 1,
      replyCount: 3,
    })
    const post = await adapter.postMetrics!({
      credentials: alice.credentials,
      profile: alice.profile,
      remoteId: result.remoteId,
    })
    expect(post.summary).toEqual({
      views: null,
      likes: 7,
      comments: 3,
      shares: 3,
      saves: 0,
      clicks: null,
      engagements: 13,
    })
    expect(post.error).toBeUndefined()
    sim.findAccount('alice.bsky.social')!.followersCount = 42
    const profile = await adapter.profileMetrics!({ credentials: alice.credentials, profile: alice.profile })
    expect(profile.summary).toEqual({
      followers: 42,
      following: 0,
      posts: sim.postsOf(alice.profile.profileId).length,
      views: null,
    })
  })

  it('answers an expired access token with ExpiredToken, and a refresh rotates the refresh token', async () => {
    clock += 2 * 3_600_000 + 1000
    const expired = await failureOf(adapter.resolveProfile(alice.credentials))
    expect(expired).toMatchObject({ kind: 'auth_expired', options: { status: 400, code: 'ExpiredToken' } })
    const fresh = await adapter.refresh!(alice.credentials)
    expect(fresh.expiresAt).toBe(clock + 2 * 3_600_000)
    expect(fresh.refreshToken).not.toBe(alice.credentials.refreshToken)
    expect((await adapter.resolveProfile(fresh)).username).toBe('alice.bsky.social')
    const reused = await failureOf(adapter.refresh!(alice.credentials))
    expect(reused).toMatchObject({ kind: 'auth_expired', options: { code: 'ExpiredToken' } })
    alice = { ...alice, credentials: fresh }
    await adapter.publish(request('After the refresh'))
  })

  it('saw no call that atproto.openapi.json does not describe', () => {
    expect(sim.violations).toEqual([])
  })
})
