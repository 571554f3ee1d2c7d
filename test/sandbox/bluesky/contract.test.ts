import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkXrpcAnswer, checkXrpcRequest, loadAtprotoSpec } from '../../../src/sandbox/bluesky/contract.js'
import { type BlueskySandbox, registerBlueskySandbox } from '../../../src/sandbox/bluesky/index.js'

const spec = loadAtprotoSpec()!

describe("the Bluesky simulator's contract check against atproto.openapi.json", () => {
  it('accepts the calls as the adapter makes them', () => {
    expect(
      checkXrpcRequest(spec, {
        method: 'GET',
        nsid: 'app.bsky.feed.getPosts',
        query: [
          ['uris', 'at://did:plc:a/app.bsky.feed.post/1'],
          ['uris', 'at://did:plc:a/app.bsky.feed.post/2'],
        ],
      }),
    ).toEqual([])
    expect(
      checkXrpcRequest(spec, {
        method: 'POST',
        nsid: 'com.atproto.repo.createRecord',
        query: [],
        contentType: 'application/json',
        body: { repo: 'did:plc:a', collection: 'app.bsky.feed.post', rkey: '3k', record: { text: 'x' } },
      }),
    ).toEqual([])
  })

  it('catches an unknown query parameter, a missing required one and a repeated single one', () => {
    expect(
      checkXrpcRequest(spec, {
        method: 'GET',
        nsid: 'com.atproto.repo.getRecord',
        query: [
          ['repo', 'did:plc:a'],
          ['repo', 'did:plc:b'],
          ['collection', 'app.bsky.feed.post'],
          ['recordKey', '3k'],
        ],
      }),
    ).toEqual([
      'GET com.atproto.repo.getRecord: unknown parameter recordKey',
      'GET com.atproto.repo.getRecord: repo is given 2 times',
      'GET com.atproto.repo.getRecord: rkey is required',
    ])
  })

  it('catches an unknown body field, a missing required one and a wrongly typed one', () => {
    expect(
      checkXrpcRequest(spec, {
        method: 'POST',
        nsid: 'com.atproto.server.createSession',
        query: [],
        contentType: 'application/json',
        body: { identifier: 7, appPassword: 'x' },
      }),
    ).toEqual([
      'POST com.atproto.server.createSession: identifier is not a string',
      'POST com.atproto.server.createSession: the body has unknown field appPassword',
      'POST com.atproto.server.createSession: the body lacks password',
    ])
  })

  it('catches a method called with the wrong HTTP method, an unknown method and a body that is not JSON', () => {
    expect(checkXrpcRequest(spec, { method: 'POST', nsid: 'com.atproto.repo.getRecord', query: [] })).toEqual(
      ['POST com.atproto.repo.getRecord: com.atproto.repo.getRecord is called with GET'],
    )
    expect(checkXrpcRequest(spec, { method: 'GET', nsid: 'com.atproto.repo.getPost', query: [] })).toEqual([
      'GET com.atproto.repo.getPost: atproto.openapi.json has no method com.atproto.repo.getPost',
    ])
    expect(
      checkXrpcRequest(spec, {
        method: 'POST',
        nsid: 'com.atproto.server.createSession',
        query: [],
        contentType: 'text/plain',
      }),
    ).toEqual(['POST com.atproto.server.createSession: the body must be application/json, not text/plain'])
  })

  it('checks answers against the 200 schema: a missing required field and an unknown one', () => {
    expect(
      checkXrpcAnswer(spec, 'GET', 'com.atproto.server.getSession', { did: 'did:plc:a', handle: 'a.b' }),
    ).toEqual([])
    expect(
      checkXrpcAnswer(spec, 'GET', 'com.atproto.server.getSession', { did: 'did:plc:a', nick: 'a' }),
    ).toEqual([
      'answer to GET com.atproto.server.getSession: the answer has unknown field nick',
      'answer to GET com.atproto.server.getSession: the answer lacks handle',
    ])
  })
})

describe('the Bluesky simulator over HTTP', () => {
  let server: FastifyInstance
  let sim: BlueskySandbox
  let base: string
  let clock = Date.UTC(2026, 10, 24, 12, 0, 0)
  let session: { accessJwt: string; refreshJwt: string; did: string }
  let appPassword: string

  const xrpc = async (
    nsid: string,
    init: { query?: string; body?: unknown; token?: string; raw?: Buffer<ArrayBuffer> } = {},
  ) => {
    const headers: Record<string, string> = {}
    if (init.token) headers.authorization = `Bearer ${init.token}`
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    if (init.raw) headers['content-type'] = 'image/png'
    const response = await fetch(`${base}/xrpc/${nsid}${init.query ? `?${init.query}` : ''}`, {
      method: init.body !== undefined || init.raw ? 'POST' : 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.raw ? { body: init.raw } : {}),
    })
    return { status: response.status, body: (await response.json()) as Record<string, any> }
  }
  const post = (rkey: string, extra: Record<string, unknown> = {}) => ({
    repo: session.did,
    collection: 'app.bsky.feed.post',
    rkey,
    record: { $type: 'app.bsky.feed.post', text: 'hi', createdAt: new Date(clock).toISOString(), ...extra },
  })

  beforeAll(async () => {
    server = Fastify()
    sim = registerBlueskySandbox(server, { prefix: '/bsky', clock: () => clock })
    await server.listen({ host: '127.0.0.1', port: 0 })
    base = `http://127.0.0.1:${(server.server.address() as { port: number }).port}/bsky`
    ;({ appPassword } = sim.createAccount({ username: 'carol' }))
    const created = await xrpc('com.atproto.server.createSession', {
      body: { identifier: 'carol.bsky.social', password: appPassword },
    })
    session = created.body as typeof session
  })
  afterAll(() => server?.close())

  it('refuses a call with an unknown parameter with 400 InvalidRequest and records it', async () => {
    const answer = await xrpc('com.atproto.identity.resolveHandle', {
      query: 'handle=carol.bsky.social&lang=en',
    })
    expect(answer).toEqual({
      status: 400,
      body: {
        error: 'InvalidRequest',
        message: 'GET com.atproto.identity.resolveHandle: unknown parameter lang',
      },
    })
    expect(sim.violations).toContain('GET com.atproto.identity.resolveHandle: unknown parameter lang')
  })

  it('refuses a second createRecord at the same record key as the PDS does, with a 500', async () => {
    expect(
      (await xrpc('com.atproto.repo.createRecord', { body: post('3kaaaaaaaaaa2'), token: session.accessJwt }))
        .status,
    ).toBe(200)
    expect(
      await xrpc('com.atproto.repo.createRecord', { body: post('3kaaaaaaaaaa2'), token: session.accessJwt }),
    ).toEqual({
      status: 500,
      body: { error: 'InternalServerError', message: 'Internal Server Error' },
    })
    expect(sim.postsOf(session.did)).toHaveLength(1)
  })

  it('refuses a post that names a blob the account never uploaded, or text over 300 graphemes', async () => {
    const embed = {
      $type: 'app.bsky.embed.images',
      images: [
        { alt: '', image: { $type: 'blob', ref: { $link: 'bafkreiabc' }, mimeType: 'image/png', size: 3 } },
      ],
    }
    const missing = await xrpc('com.atproto.repo.createRecord', {
      body: post('3kaaaaaaaaab2', { embed }),
      token: session.accessJwt,
    })
    expect(missing).toMatchObject({
      status: 400,
      body: { error: 'InvalidRequest', message: expect.stringContaining('Could not find blob: bafkreiabc') },
    })
    const long = await xrpc('com.atproto.repo.createRecord', {
      body: post('3kaaaaaaaaac2', { text: 'x'.repeat(301) }),
      token: session.accessJwt,
    })
    expect(long.body.message).toContain('longer than 300 graphemes')
    expect(sim.postsOf(session.did)).toHaveLength(1)
  })

  it('answers a missing token with 401 AuthMissing, a forged one with InvalidToken and an old one with ExpiredToken', async () => {
    expect(await xrpc('com.atproto.server.getSession')).toEqual({
      status: 401,
      body: { error: 'AuthMissing', message: 'Authentication Required' },
    })
    const forged = await xrpc('com.atproto.server.getSession', {
      token: `${session.accessJwt.slice(0, -2)}xx`,
    })
    expect(forged).toMatchObject({ status: 400, body: { error: 'InvalidToken' } })
    const refreshAsAccess = await xrpc('com.atproto.server.getSession', { token: session.refreshJwt })
    expect(refreshAsAccess).toMatchObject({
      status: 400,
      body: { error: 'InvalidToken', message: 'Invalid token type' },
    })
    clock += 3 * 3_600_000
    expect(await xrpc('com.atproto.server.getSession', { token: session.accessJwt })).toEqual({
      status: 400,
      body: { error: 'ExpiredToken', message: 'Token has expired' },
    })
  })

  it('answers a method it does not serve with 501 MethodNotImplemented', async () => {
    expect(await xrpc('app.bsky.feed.getTimeline')).toEqual({
      status: 501,
      body: { error: 'MethodNotImplemented', message: 'Method Not Implemented' },
    })
  })

  it('serves an uploaded blob back from getBlob, byte for byte', async () => {
    const bytes = Buffer.from('not really a png')
    // A new session: an earlier test let the first one expire.
    const { body: fresh } = await xrpc('com.atproto.server.createSession', {
      body: { identifier: 'carol.bsky.social', password: appPassword },
    })
    const { body } = await xrpc('com.atproto.repo.uploadBlob', { raw: bytes, token: fresh.accessJwt })
    expect(body.blob).toEqual({
      $type: 'blob',
      ref: { $link: expect.stringMatching(/^bafkrei/) },
      mimeType: 'image/png',
      size: bytes.length,
    })
    const read = await fetch(
      `${base}/xrpc/com.atproto.sync.getBlob?did=${session.did}&cid=${body.blob.ref.$link}`,
    )
    expect(read.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await read.arrayBuffer()).equals(bytes)).toBe(true)
  })

  it.each([
    ['accounts', { username: 'no_underscores' }],
    ['accounts', { username: 7 }],
    ['engagement', { uri: 'at://did:plc:nobody/app.bsky.feed.post/1', likeCount: 3 }],
    ['engagement', { uri: 'at://x', likeCount: -1 }],
    ['followers', { actor: 'carol.bsky.social', followersCount: 1.5 }],
    ['faults', { nsid: 'com.atproto.repo.createRecord', action: 'explode' }],
    ['faults', { nsid: 'com.atproto.repo.createRecord', action: 'error', status: 200 }],
  ])('refuses bad control input to /_sandbox/%s with a 400 and changes nothing', async (route, input) => {
    const before = await (await fetch(`${base}/_sandbox/state`)).text()
    const answer = await fetch(`${base}/_sandbox/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    })
    expect(answer.status).toBe(400)
    expect(((await answer.json()) as { error: string }).error).toBe('InvalidRequest')
    expect(await (await fetch(`${base}/_sandbox/state`)).text()).toBe(before)
  })

  it('makes accounts and app passwords through its control route, and refuses a name that is no handle', async () => {
    const made = await fetch(`${base}/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'dave' }),
    })
    expect(made.status).toBe(201)
    expect(await made.json()).toEqual({
      did: expect.stringMatching(/^did:plc:[a-z2-7]{24}$/),
      handle: 'dave.bsky.social',
      appPassword: expect.stringMatching(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/),
    })
    const refused = await fetch(`${base}/_sandbox/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'no_underscores' }),
    })
    expect(refused.status).toBe(400)
    expect(sim.findAccount('no_underscores.bsky.social')).toBeUndefined()
    const state = await (await fetch(`${base}/_sandbox/state`)).text()
    expect(state).not.toContain(session.accessJwt)
    expect(state).toContain('"appPasswords":1')
  })
})
