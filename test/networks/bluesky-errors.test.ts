import { describe, expect, it } from 'vitest'
import {
  type Credentials,
  type Profile,
  PublishFailure,
  type PublishRequest,
} from '../../src/adapters/adapter.js'
import { createBlueskyAdapter } from '../../src/adapters/bluesky/index.js'
import { recordKeyFor } from '../../src/adapters/bluesky/record-key.js'
import { failureFromResponse, failureFromThrown, rateLimitResetAt } from '../../src/adapters/bluesky/xrpc.js'
import type { MediaPort } from '../../src/core/media-port.js'
import { createLogger } from '../../src/platform/logger.js'
import {
  abortedFetchError,
  cutFetchError,
  fetchErrorShape,
  refusedFetchError,
} from '../helpers/node-fetch-errors.js'

/**
 * Answers a real PDS cannot be made to give on demand (throttling, 5xx, lost answers, an AppView with
 * counts), played by a scripted fetch. The happy paths run against a real PDS in bluesky-pds.test.ts.
 */

const NOW = Date.parse('2026-03-01T12:00:00Z')
const DID = 'did:plc:abcdefghijklmnopqrstuvwx'
const URI = `at://${DID}/app.bsky.feed.post/3kabcdefghijk`

const credentials: Credentials = {
  accessToken: 'access',
  refreshToken: 'refresh',
  extra: { pdsUrl: 'https://pds.example', did: DID, handle: 'alice.example' },
}
const profile: Profile = { profileId: DID, username: 'alice.example', name: 'Alice', isOrganization: false }

type Route = (init: RequestInit & { signal: AbortSignal }) => Promise<Response> | Response

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}

function adapterWith(routes: Record<string, Route>, options: { timeoutMs?: number } = {}) {
  const sent: string[] = []
  const http = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input))
    const nsid = url.pathname.replace('/xrpc/', '')
    sent.push(nsid)
    const route = routes[nsid]
    if (!route) return json(501, { error: 'MethodNotImplemented', message: 'Method Not Implemented' })
    return route({ ...init, signal: init!.signal! })
  }) as typeof fetch
  const adapter = createBlueskyAdapter(
    { serviceUrl: 'https://service.example', timeoutMs: options.timeoutMs },
    {
      http,
      logger: createLogger('silent'),
      now: () => NOW,
      sleep: async () => undefined,
      media: { prepare: () => Promise.reject(new Error('no media in these tests')) } satisfies MediaPort,
    },
  )
  return { adapter, sent }
}

function request(signal = new AbortController().signal): PublishRequest {
  return { targetId: 't1', profile, credentials, content: 'hello', mediaUrls: [], signal }
}

/** A fetch that never answers: it rejects only when its signal aborts, as fetch does. */
const hang: Route = (init) =>
  new Promise((_resolve, reject) => {
    init.signal.addEventListener('abort', () => reject(init.signal.reason), { once: true })
  })

async function failureOf(promise: Promise<unknown>): Promise<PublishFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PublishFailure)
  return error as PublishFailure
}

describe('Bluesky error mapping', () => {
  describe.each([
    [401, { error: 'AuthenticationRequired', message: 'Invalid identifier or password' }, 'auth_expired'],
    [400, { error: 'ExpiredToken', message: 'Token has expired' }, 'auth_expired'],
    [400, { error: 'InvalidToken', message: 'Token could not be verified' }, 'auth_expired'],
    [400, { error: 'AccountTakedown' }, 'auth_expired'],
    [403, { error: 'AccountNotFound' }, 'auth_expired'],
    [400, { error: 'InvalidRequest', message: 'Invalid app.bsky.feed.post record' }, 'invalid_content'],
    [400, { error: 'InvalidMimeType' }, 'invalid_content'],
    [413, { error: 'PayloadTooLarge', message: 'request entity too large' }, 'invalid_content'],
    [500, { error: 'InternalServerError' }, 'unknown_outcome'],
    [502, 'Bad Gateway', 'unknown_outcome'],
    [503, undefined, 'unknown_outcome'],
    [501, { error: 'MethodNotImplemented' }, 'invalid_content'],
  ] as const)('an answer of %i %j', (status, body, kind) => {
    it(`is ${kind}`, () => {
      const failure = failureFromResponse({
        label: 'com.atproto.repo.createRecord',
        status,
        body,
        headers: new Headers(),
        now: NOW,
        effectful: true,
      })
      expect(failure.kind).toBe(kind)
      expect(failure.options.status).toBe(status)
    })
  })

  it('treats a gateway timeout after a post was sent as an unknown outcome, and before a read as transient', () => {
    const answer = { status: 504, body: undefined, headers: new Headers(), now: NOW, label: 'x' }
    expect(failureFromResponse({ ...answer, effectful: true }).kind).toBe('unknown_outcome')
    expect(failureFromResponse({ ...answer, effectful: false }).kind).toBe('transient')
  })

  it('takes the reset time of a rate limit from ratelimit-reset in epoch seconds', () => {
    const reset = NOW / 1000 + 300
    const failure = failureFromResponse({
      label: 'com.atproto.repo.createRecord',
      status: 429,
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      headers: new Headers({ 'ratelimit-reset': String(reset), 'ratelimit-remaining': '0' }),
      now: NOW,
      effectful: true,
    })
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(reset * 1000)
  })

  it('falls back to retry-after, then to a minute, when ratelimit-reset is missing', () => {
    expect(rateLimitResetAt(new Headers({ 'retry-after': '30' }), NOW)).toBe(NOW + 30_000)
    expect(rateLimitResetAt(new Headers(), NOW)).toBe(NOW + 60_000)
  })

  it('treats a refused connection as transient even for a post, and a lost answer to a post as unknown', async () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    })
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    })
    // Built as Node's fetch throws them (its bundled undici: 6.29.1 on Node 22.23.5, 7.29.1 on 24.21.0,
    // 7.30.2 on 24.22.3); the refused one is checked against this Node's, and the mapping is held to this
    // Node's real failures too, where a connection cut after the request is a SocketError UND_ERR_SOCKET.
    expect(
      fetchErrorShape(await refusedFetchError()),
      "this Node's fetch rejects a refused connection as TypeError 'fetch failed' with ECONNREFUSED on its cause",
    ).toEqual(fetchErrorShape(refused))
    const real = { refused: await refusedFetchError(), cut: await cutFetchError() }
    for (const error of [refused, real.refused]) {
      expect(failureFromThrown({ label: 'x', error, effectful: true, timedOut: false }).kind).toBe(
        'transient',
      )
    }
    for (const error of [reset, real.cut]) {
      expect(failureFromThrown({ label: 'x', error, effectful: true, timedOut: false }).kind).toBe(
        'unknown_outcome',
      )
      expect(failureFromThrown({ label: 'x', error, effectful: false, timedOut: false }).kind).toBe(
        'transient',
      )
    }
  })
})

describe('Bluesky adapter with a scripted server', () => {
  it('reports a throttled createRecord as rate_limited with the reset time', async () => {
    const reset = NOW / 1000 + 120
    const { adapter } = adapterWith({
      'com.atproto.repo.createRecord': () =>
        json(
          429,
          { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
          { 'ratelimit-reset': String(reset) },
        ),
    })
    const failure = await failureOf(adapter.publish(request()))
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(reset * 1000)
  })

  it('reports a 5xx from createRecord as an unknown outcome when the target has no record yet', async () => {
    const { adapter, sent } = adapterWith({
      'com.atproto.repo.createRecord': () => json(500, { error: 'InternalServerError', message: 'boom' }),
      'com.atproto.repo.getRecord': () => json(400, { error: 'RecordNotFound' }),
    })
    expect((await failureOf(adapter.publish(request()))).kind).toBe('unknown_outcome')
    expect(sent).toEqual(['com.atproto.repo.createRecord', 'com.atproto.repo.getRecord'])
  })

  it("reports a 5xx from createRecord as published when the target's record exists", async () => {
    const { adapter } = adapterWith({
      'com.atproto.repo.createRecord': () => json(502, 'Bad Gateway'),
      'com.atproto.repo.getRecord': () => json(200, { uri: URI, cid: 'bafyrei', value: {} }),
    })
    expect((await adapter.publish(request())).remoteId).toBe(URI)
  })

  it('reports a createRecord that timed out after it was sent as an unknown outcome', async () => {
    const { adapter, sent } = adapterWith(
      {
        'com.atproto.repo.createRecord': hang,
        'com.atproto.repo.getRecord': () => json(400, { error: 'RecordNotFound' }),
      },
      { timeoutMs: 50 },
    )
    const failure = await failureOf(adapter.publish(request()))
    // After the silence the adapter asks for the target's record before calling the outcome unknown.
    expect(sent).toEqual(['com.atproto.repo.createRecord', 'com.atproto.repo.getRecord'])
    expect(failure.kind).toBe('unknown_outcome')
    expect(failure.message).toMatch(/timed out after the request was sent/)
  })

  it('reports a createRecord cancelled mid-flight as an unknown outcome', async () => {
    // `hang` rejects with the signal's reason, as Node's fetch does when it is aborted (22.23.5, 24.21.0 and
    // 24.22.3 alike): checked against this Node's fetch.
    const reason = new DOMException('This operation was aborted', 'AbortError')
    expect(
      await abortedFetchError(reason),
      "this Node's fetch rejects an aborted request with the signal's reason",
    ).toBe(reason)
    const controller = new AbortController()
    const { adapter } = adapterWith({
      'com.atproto.repo.createRecord': (init) => {
        queueMicrotask(() => controller.abort())
        return hang(init)
      },
    })
    const failure = await failureOf(adapter.publish(request(controller.signal)))
    expect(failure.kind).toBe('unknown_outcome')
  })

  it('reports a publish cancelled before anything was sent as transient and sends nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const { adapter, sent } = adapterWith({ 'com.atproto.repo.createRecord': () => json(200, {}) })
    const failure = await failureOf(adapter.publish(request(controller.signal)))
    expect(failure.kind).toBe('transient')
    expect(sent).toEqual([])
  })

  it('reports a connection refused on createRecord as transient', async () => {
    // The refusal as this Node's own fetch throws it (test/helpers/node-fetch-errors.ts).
    const refused = await refusedFetchError()
    const { adapter } = adapterWith({
      'com.atproto.repo.createRecord': () => {
        throw refused
      },
    })
    expect((await failureOf(adapter.publish(request()))).kind).toBe('transient')
  })

  it('sends the record with createdAt from the injected clock and the post URL from the handle', async () => {
    let body: any
    const { adapter } = adapterWith({
      'com.atproto.repo.createRecord': (init) => {
        body = JSON.parse(String(init.body))
        return json(200, { uri: URI, cid: 'bafyrei' })
      },
    })
    const result = await adapter.publish(request())
    expect(body).toEqual({
      repo: DID,
      collection: 'app.bsky.feed.post',
      rkey: recordKeyFor('t1'),
      record: { $type: 'app.bsky.feed.post', text: 'hello', createdAt: '2026-03-01T12:00:00.000Z' },
    })
    expect(result).toEqual({
      remoteId: URI,
      url: 'https://bsky.app/profile/alice.example/post/3kabcdefghijk',
    })
  })

  it('reads post counts from an AppView under Herald summary names', async () => {
    const { adapter } = adapterWith({
      'app.bsky.feed.getPosts': () =>
        json(200, { posts: [{ uri: URI, likeCount: 10, repostCount: 3, replyCount: 2, quoteCount: 1 }] }),
    })
    const reading = await adapter.postMetrics({ credentials, profile, remoteId: URI })
    expect(reading).toEqual({
      summary: { views: null, likes: 10, comments: 2, shares: 4, saves: null, clicks: null, engagements: 16 },
      metrics: { likeCount: 10, repostCount: 3, replyCount: 2, quoteCount: 1 },
      source: 'app.bsky.feed.getPosts',
    })
  })

  it('reads profile counts from an AppView', async () => {
    const { adapter } = adapterWith({
      'app.bsky.actor.getProfile': () =>
        json(200, {
          did: DID,
          handle: 'alice.example',
          followersCount: 120,
          followsCount: 80,
          postsCount: 42,
        }),
    })
    expect(await adapter.profileMetrics({ credentials, profile })).toEqual({
      summary: { followers: 120, following: 80, posts: 42, views: null },
      metrics: { followersCount: 120, followsCount: 80, postsCount: 42 },
      window: 'lifetime',
      source: 'app.bsky.actor.getProfile',
    })
  })

  it('answers null counts with an error when the server does not implement the method', async () => {
    const { adapter } = adapterWith({})
    const reading = await adapter.postMetrics({ credentials, profile, remoteId: URI })
    expect(reading.summary.likes).toBeNull()
    expect(reading.error).toMatch(/offers no counts/)
  })

  it('answers an error reading for a post the AppView no longer has', async () => {
    const { adapter } = adapterWith({ 'app.bsky.feed.getPosts': () => json(200, { posts: [] }) })
    const reading = await adapter.postMetrics({ credentials, profile, remoteId: URI })
    expect(reading.summary.likes).toBeNull()
    expect(reading.error).toMatch(/deleted or is not indexed yet/)
  })

  it('throws an expired token on a metrics read so the caller can refresh', async () => {
    const { adapter } = adapterWith({
      'app.bsky.actor.getProfile': () => json(400, { error: 'ExpiredToken', message: 'Token has expired' }),
    })
    expect((await failureOf(adapter.profileMetrics({ credentials, profile }))).kind).toBe('auth_expired')
  })

  it('reports a refresh token the PDS refuses as auth_expired', async () => {
    const { adapter } = adapterWith({
      'com.atproto.server.refreshSession': () =>
        json(400, { error: 'ExpiredToken', message: 'Token has expired' }),
    })
    expect((await failureOf(adapter.refresh(credentials))).kind).toBe('auth_expired')
  })
})
