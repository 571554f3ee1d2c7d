import { randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { AtpAgent, RichText } from '@atproto/api'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AdapterDeps, Credentials, Profile, PublishRequest } from '../../src/adapters/adapter.js'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { type BlueskyAdapter, createBlueskyAdapter } from '../../src/adapters/bluesky/index.js'
import type { MediaPort } from '../../src/core/media-port.js'
import { createLogger } from '../../src/platform/logger.js'
import { startTestPds, type TestPds } from '../helpers/bluesky-pds.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'

/**
 * The Bluesky adapter against a real PDS (@atproto/pds) and PLC directory on 127.0.0.1. Records and
 * blobs are read back with @atproto/api, an independent client, and compared byte for byte.
 */

interface Call {
  method: string
  url: URL
}

let pds: TestPds
let agent: AtpAgent
let mediaServer: Server
let mediaBase: string
const media = new Map<string, { type: string; bytes: Buffer }>()
const logs: string[] = []
const calls: Call[] = []
const secrets: string[] = []

let alice: { did: string; handle: string }
let bob: { did: string; handle: string }
let aliceAppPassword: string
let adapter: BlueskyAdapter
let session: { credentials: Credentials; profile: Profile }

/** fetch that records every request the adapter makes. */
const recordingFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  calls.push({ method: init?.method ?? 'GET', url })
  return fetch(input, init)
}

/** The test media port, plus the dimensions the real pipeline reports after probing. */
function probingMediaPort(): MediaPort {
  const base = createTestMediaPort()
  return {
    async prepare(url, options) {
      const prepared = await base.prepare(url, options)
      if (prepared.kind !== 'image') return prepared
      const { width, height } = await sharp(prepared.path).metadata()
      return { ...prepared, width, height }
    },
  }
}

function makeAdapter(overrides: Partial<AdapterDeps> = {}): BlueskyAdapter {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString())
      done()
    },
  })
  return createBlueskyAdapter(
    { serviceUrl: pds.url, plcUrl: pds.plcUrl, allowLocalPds: true },
    {
      http: recordingFetch,
      logger: createLogger('debug', sink),
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      media: probingMediaPort(),
      ...overrides,
    },
  )
}

function serve(name: string, type: string, bytes: Buffer): string {
  media.set(`/${name}`, { type, bytes })
  return `${mediaBase}/${name}`
}

function request(content: string, mediaUrls: string[] = []): PublishRequest {
  return {
    targetId: randomBytes(12).toString('hex'),
    profile: session.profile,
    credentials: session.credentials,
    content,
    mediaUrls,
    signal: new AbortController().signal,
  }
}

async function readPost(uri: string): Promise<Record<string, any>> {
  const [, , repo, collection, rkey] = uri.split('/')
  const { data } = await agent.com.atproto.repo.getRecord({
    repo: repo!,
    collection: collection!,
    rkey: rkey!,
  })
  return data.value as Record<string, any>
}

async function getBlob(did: string, cid: string): Promise<Buffer> {
  const response = await fetch(
    `${pds.url}/xrpc/com.atproto.sync.getBlob?did=${encodeURIComponent(did)}&cid=${encodeURIComponent(cid)}`,
  )
  expect(response.status).toBe(200)
  return Buffer.from(await response.arrayBuffer())
}

/** UTF-8 byte range of the first occurrence of `part` in `text`, computed independently of the adapter. */
function byteRange(text: string, part: string): { byteStart: number; byteEnd: number } {
  const bytes = Buffer.from(text, 'utf8')
  const byteStart = bytes.indexOf(Buffer.from(part, 'utf8'))
  expect(byteStart).toBeGreaterThanOrEqual(0)
  return { byteStart, byteEnd: byteStart + Buffer.byteLength(part, 'utf8') }
}

async function expectFailure(promise: Promise<unknown>): Promise<PublishFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PublishFailure)
  return error as PublishFailure
}

beforeAll(async () => {
  pds = await startTestPds()
  agent = new AtpAgent({ service: pds.url })
  mediaServer = createServer((req, res) => {
    const item = media.get(req.url ?? '')
    if (!item) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': item.type, 'content-length': item.bytes.length }).end(item.bytes)
  })
  await new Promise<void>((resolve) => mediaServer.listen(0, '127.0.0.1', resolve))
  const address = mediaServer.address()
  mediaBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

  alice = await pds.createAccount('alice.test', 'alice-account-password')
  bob = await pds.createAccount('bob.test', 'bob-account-password')
  aliceAppPassword = await pds.createAppPassword('alice.test', 'alice-account-password')
  secrets.push(aliceAppPassword, 'alice-account-password')

  adapter = makeAdapter()
  session = await adapter.login({ identifier: '@Alice.test', appPassword: aliceAppPassword })
  secrets.push(session.credentials.accessToken, session.credentials.refreshToken!)
})

afterAll(async () => {
  await new Promise((resolve) => mediaServer?.close(resolve))
  await pds?.close()
})

describe('Bluesky adapter against a real PDS', () => {
  it('connects with a handle and an app password by finding the PDS from the handle', async () => {
    const { credentials, profile } = session
    expect(credentials.extra).toEqual({ pdsUrl: pds.url, did: alice.did, handle: 'alice.test' })
    expect(credentials.accessToken.split('.')).toHaveLength(3)
    expect(credentials.refreshToken).toBeTruthy()
    // Access tokens live two hours on the reference PDS.
    expect(credentials.expiresAt! - Date.now()).toBeGreaterThan(100 * 60_000)
    expect(credentials.expiresAt! - Date.now()).toBeLessThanOrEqual(120 * 60_000)
    expect(JSON.stringify(credentials)).not.toContain(aliceAppPassword)
    expect(profile).toEqual({
      profileId: alice.did,
      username: 'alice.test',
      name: 'alice.test',
      isOrganization: false,
    })

    calls.length = 0
    await adapter.login({ identifier: 'alice.test', appPassword: aliceAppPassword })
    const route = calls.map((c) => `${c.method} ${c.url.origin}${c.url.pathname}`)
    expect(route.slice(0, 3)).toEqual([
      `GET ${pds.url}/xrpc/com.atproto.identity.resolveHandle`,
      `GET ${pds.plcUrl}/${alice.did}`,
      `POST ${pds.url}/xrpc/com.atproto.server.createSession`,
    ])
  })

  it('refuses to send the app password to a PDS on a local address unless local PDSes are allowed', async () => {
    const strict = createBlueskyAdapter(
      { serviceUrl: pds.url, plcUrl: pds.plcUrl },
      {
        http: recordingFetch,
        logger: createLogger('silent'),
        now: () => Date.now(),
        sleep: async () => undefined,
        media: probingMediaPort(),
      },
    )
    calls.length = 0
    const failure = await expectFailure(
      strict.login({ identifier: 'alice.test', appPassword: aliceAppPassword }),
    )
    expect(failure.kind).toBe('invalid_content')
    expect(failure.options.code).toBe('PdsNotPublic')
    expect(calls.some((c) => c.url.pathname.endsWith('createSession'))).toBe(false)
  })

  it('names the profile after its display name when the account has set one', async () => {
    const bobPassword = await pds.createAppPassword('bob.test', 'bob-account-password')
    const bobSession = await adapter.login({ identifier: 'bob.test', appPassword: bobPassword })
    const bobAgent = new AtpAgent({ service: pds.url })
    await bobAgent.login({ identifier: 'bob.test', password: bobPassword })
    await bobAgent.com.atproto.repo.putRecord({
      repo: bob.did,
      collection: 'app.bsky.actor.profile',
      rkey: 'self',
      record: { $type: 'app.bsky.actor.profile', displayName: 'Bob Builder 🛠️' },
    })
    expect(await adapter.resolveProfile(bobSession.credentials)).toEqual({
      profileId: bob.did,
      username: 'bob.test',
      name: 'Bob Builder 🛠️',
      isOrganization: false,
    })
  })

  it('publishes text with a link, a mention and a hashtag whose facets match byte for byte', async () => {
    const content =
      'Ship it 🚀 with @bob.test and @ghost.test — 詳細 https://example.com/ページ?x=1. #launch 🎉'
    const result = await adapter.publish(request(content))

    expect(result.remoteId).toMatch(new RegExp(`^at://${alice.did}/app\\.bsky\\.feed\\.post/[a-z2-7]{13}$`))
    const rkey = result.remoteId.split('/').pop()
    expect(result.url).toBe(`https://bsky.app/profile/alice.test/post/${rkey}`)

    const record = await readPost(result.remoteId)
    expect(record.text).toBe(content)
    expect(Date.parse(record.createdAt)).toBeGreaterThan(Date.now() - 60_000)
    // @ghost.test does not resolve: it stays plain text.
    expect(record.facets).toEqual([
      {
        index: byteRange(content, '@bob.test'),
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: bob.did }],
      },
      {
        index: byteRange(content, 'https://example.com/ページ?x=1'),
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/ページ?x=1' }],
      },
      {
        index: byteRange(content, '#launch'),
        features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'launch' }],
      },
    ])

    // Bluesky's own client library finds the same link and tag ranges in this copy.
    const reference = new RichText({ text: content })
    reference.detectFacetsWithoutResolution()
    const referenceRanges = (reference.facets ?? [])
      .filter((f) => f.features.some((x) => x.$type !== 'app.bsky.richtext.facet#mention'))
      .map((f) => f.index)
    expect(referenceRanges).toEqual([record.facets[1].index, record.facets[2].index])
  })

  it('publishes four images and the PDS holds exactly the bytes that were uploaded', async () => {
    const shapes = [
      { name: 'wide.png', width: 1200, height: 800, format: 'png' as const, type: 'image/png' },
      { name: 'tall.jpg', width: 800, height: 1200, format: 'jpeg' as const, type: 'image/jpeg' },
      { name: 'square.webp', width: 640, height: 640, format: 'webp' as const, type: 'image/webp' },
      { name: 'strip.png', width: 300, height: 150, format: 'png' as const, type: 'image/png' },
    ]
    const images = await Promise.all(
      shapes.map(async (shape, i) => {
        const bytes = await sharp({
          create: {
            width: shape.width,
            height: shape.height,
            channels: 3,
            background: { r: 40 * i, g: 120, b: 255 - 40 * i },
          },
        })
          .toFormat(shape.format)
          .toBuffer()
        return { ...shape, bytes, url: serve(shape.name, shape.type, bytes) }
      }),
    )

    calls.length = 0
    const result = await adapter.publish(
      request(
        'Four images',
        images.map((image) => image.url),
      ),
    )
    expect(calls.filter((c) => c.url.pathname.endsWith('/com.atproto.repo.uploadBlob'))).toHaveLength(4)

    const record = await readPost(result.remoteId)
    expect(record.embed.$type).toBe('app.bsky.embed.images')
    expect(record.embed.images).toHaveLength(4)
    for (const [i, image] of images.entries()) {
      const embedded = record.embed.images[i]
      expect(embedded.alt).toBe('')
      expect(embedded.aspectRatio).toEqual({ width: image.width, height: image.height })
      expect(embedded.image.mimeType).toBe(image.type)
      expect(embedded.image.size).toBe(image.bytes.length)
      const stored = await getBlob(alice.did, embedded.image.ref.toString())
      expect(stored.equals(image.bytes)).toBe(true)
    }
  })

  it('publishes one MP4 video as an app.bsky.embed.video blob on the PDS', async () => {
    // The smallest file the PDS sniffs as video/mp4: an ftyp box with an isom brand, then an mdat box.
    const ftyp = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from('ftypisom'),
      Buffer.from([0, 0, 2, 0]),
      Buffer.from('isommp41'),
    ])
    const payload = randomBytes(2048)
    const mdatHeader = Buffer.alloc(8)
    mdatHeader.writeUInt32BE(8 + payload.length)
    mdatHeader.write('mdat', 4)
    const video = Buffer.concat([ftyp, mdatHeader, payload])
    const result = await adapter.publish(request('A short clip', [serve('clip.mp4', 'video/mp4', video)]))

    const record = await readPost(result.remoteId)
    expect(record.embed.$type).toBe('app.bsky.embed.video')
    expect(record.embed.video.mimeType).toBe('video/mp4')
    expect((await getBlob(alice.did, record.embed.video.ref.toString())).equals(video)).toBe(true)
  })

  it('a retry for the same target writes to the same record key and makes no second post', async () => {
    const first = request('Sent once, whatever happens to the answer')
    const published = await adapter.publish(first)
    const again = await adapter.publish({ ...first, signal: new AbortController().signal })
    expect(again.remoteId).toBe(published.remoteId)
    const { data } = await agent.com.atproto.repo.listRecords({
      repo: alice.did,
      collection: 'app.bsky.feed.post',
      limit: 100,
    })
    const copies = data.records.filter(
      (r) => (r.value as { text?: string }).text === 'Sent once, whatever happens to the answer',
    )
    expect(copies).toHaveLength(1)
    expect(published.remoteId.split('/').pop()).toMatch(/^[2-7a-j][2-7a-z]{12}$/)
  })

  it('refuses a 301-grapheme post before making any call', async () => {
    calls.length = 0
    const failure = await expectFailure(adapter.publish(request('🦋'.repeat(150) + 'x'.repeat(151))))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/at most 300 characters; this copy has 301/)
    expect(calls).toEqual([])
  })

  it('refuses five media URLs before fetching any of them', async () => {
    calls.length = 0
    const urls = [1, 2, 3, 4, 5].map((n) => `${mediaBase}/missing-${n}.png`)
    const failure = await expectFailure(adapter.publish(request('Too many', urls)))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/at most 4 images or one video; 5 media URLs/)
    expect(calls).toEqual([])
  })

  it('refuses an image mixed with a video before uploading anything', async () => {
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer()
    const urls = [serve('mix.png', 'image/png', png), serve('mix.mp4', 'video/mp4', Buffer.from('not used'))]
    calls.length = 0
    const failure = await expectFailure(adapter.publish(request('Mixed', urls)))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/either up to 4 images or a single video/)
    expect(calls.filter((c) => c.url.pathname.includes('/xrpc/com.atproto.repo.'))).toEqual([])
  })

  it('refuses an image over 1,000,000 bytes instead of uploading it', async () => {
    const file = path.join(tmpdir(), `herald-big-${randomBytes(4).toString('hex')}.png`)
    await writeFile(file, randomBytes(1_000_001))
    const bigMedia: MediaPort = {
      prepare: async () => ({
        path: file,
        contentType: 'image/png',
        size: 1_000_001,
        kind: 'image',
        name: 'big.png',
        dispose: () => rm(file, { force: true }),
      }),
    }
    const strict = makeAdapter({ media: bigMedia })
    calls.length = 0
    const failure = await expectFailure(strict.publish(request('Big', ['https://media.example/big.png'])))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toMatch(/at most 1000000 bytes; big.png has 1000001/)
    expect(calls.filter((c) => c.url.pathname.endsWith('uploadBlob'))).toEqual([])
  })

  it('refreshes the session with refreshSession and publishes with the new token', async () => {
    calls.length = 0
    const refreshed = await adapter.refresh(session.credentials)
    secrets.push(refreshed.accessToken, refreshed.refreshToken!)
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /xrpc/com.atproto.server.refreshSession',
    ])
    expect(refreshed.extra).toEqual(session.credentials.extra)
    expect(refreshed.refreshToken).not.toBe(session.credentials.refreshToken)
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now())

    const result = await adapter.publish({ ...request('After a refresh'), credentials: refreshed })
    expect((await readPost(result.remoteId)).text).toBe('After a refresh')
  })

  it('reports a wrong app password as an auth failure', async () => {
    const failure = await expectFailure(
      adapter.login({ identifier: 'alice.test', appPassword: 'aaaa-bbbb-cccc-dddd' }),
    )
    expect(failure.kind).toBe('auth_expired')
    expect(failure.options).toMatchObject({ status: 401, code: 'AuthenticationRequired' })
    expect(failure.message).toMatch(/Invalid identifier or password/)
  })

  it('reports a handle that does not resolve as invalid, naming the handle', async () => {
    const failure = await expectFailure(adapter.login({ identifier: 'nobody.test', appPassword: 'x' }))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.options.code).toBe('HandleNotFound')
    expect(failure.message).toMatch(/nobody\.test could not be resolved/)
  })

  it('reports a token the PDS rejects as auth_expired when publishing', async () => {
    const credentials = { ...session.credentials, accessToken: 'not-a-valid-jwt' }
    const failure = await expectFailure(adapter.publish({ ...request('Never sent'), credentials }))
    expect(failure.kind).toBe('auth_expired')
    expect(failure.options.code).toBe('InvalidToken')
  })

  it('reports a record the PDS refuses as invalid content', async () => {
    // A PNG presented as video/mp4 passes Herald's checks; the PDS sniffs the blob as image/png and
    // refuses a video embed that points at it.
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#fff' } })
      .png()
      .toBuffer()
    const failure = await expectFailure(
      adapter.publish(request('Not a video', [serve('fake.mp4', 'video/mp4', png)])),
    )
    expect(failure.kind).toBe('invalid_content')
    expect(failure.options.status).toBe(400)
    expect(failure.message).toMatch(/^Bluesky com\.atproto\.repo\.createRecord answered 400/)
  })

  it('reads metrics as null numbers with an error on a PDS without an AppView', async () => {
    const post = await adapter.publish(request('Counting'))
    const postReading = await adapter.postMetrics({
      credentials: session.credentials,
      profile: session.profile,
      remoteId: post.remoteId,
    })
    expect(postReading.summary).toEqual({
      views: null,
      likes: null,
      comments: null,
      shares: null,
      saves: null,
      clicks: null,
      engagements: null,
    })
    expect(postReading.source).toBe('app.bsky.feed.getPosts')
    expect(postReading.error).toMatch(/offers no counts/)

    const profileReading = await adapter.profileMetrics({
      credentials: session.credentials,
      profile: session.profile,
    })
    expect(profileReading.summary).toEqual({ followers: null, following: null, posts: null, views: null })
    expect(profileReading.source).toBe('app.bsky.actor.getProfile')
    expect(profileReading.error).toMatch(/offers no counts/)
  })

  it('never writes a password or token to the log', () => {
    expect(logs.length).toBeGreaterThan(0)
    const all = logs.join('\n')
    for (const secret of secrets) expect(all).not.toContain(secret)
  })
})
