import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { rateLimitResetAt } from '../../src/adapters/twitter/errors.js'
import {
  CLIENT_ID,
  failureOf,
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

describe('the reset time of a 429', () => {
  it('reads x-rate-limit-reset (epoch seconds) as epoch ms', () => {
    const headers = new Headers({ 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': '1772456400' })
    expect(rateLimitResetAt(headers, 0)).toBe(1772456400 * 1000)
  })
  it('takes the exhausted 24-hour user window when the 15-minute one still has room', () => {
    const headers = new Headers({
      'x-rate-limit-remaining': '40',
      'x-rate-limit-reset': '1772456400',
      'x-user-limit-24hour-remaining': '0',
      'x-user-limit-24hour-reset': '1772520000',
    })
    expect(rateLimitResetAt(headers, 0)).toBe(1772520000 * 1000)
  })
  it('falls back to retry-after seconds', () => {
    expect(rateLimitResetAt(new Headers({ 'retry-after': '30' }), 1000)).toBe(31_000)
  })
})

reportSkippedWithoutOpenApi("X's failures as the adapter reports them (spec §7)")

describe.runIf(xOpenApiAvailable)("X's failures as the adapter reports them (spec §7)", () => {
  let fx: TwitterFixture
  /** Every failure any test here saw, checked at the end for token values. */
  const seen: PublishFailure[] = []
  const tokens: string[] = []
  const connect = async (username: string) => {
    const connection = await fx.connect(username)
    tokens.push(connection.credentials.accessToken, connection.credentials.refreshToken!)
    return connection
  }
  const failing = async (action: () => Promise<unknown>) => {
    const failure = await failureOf(action)
    expect(failure).toBeInstanceOf(PublishFailure)
    seen.push(failure as unknown as PublishFailure)
    return failure
  }

  beforeAll(async () => {
    fx = await startTwitterFixture()
  })
  afterAll(() => fx.close())
  afterEach(() => {
    expect(fx.validation.problems).toEqual([])
  })

  it('401: a revoked connection fails with "Access token for twitter is missing or invalid"', async () => {
    const carol = await connect('carol')
    fx.sandbox.revokeTokens('carol')
    const failure = await failing(() => fx.publish(carol, 'after revoke'))
    expect(failure.kind).toBe('auth_expired')
    expect(failure.message).toBe('Access token for twitter is missing or invalid')
    expect(failure.options.status).toBe(401)
    // The refresh token went with it: reconnecting is the only way back.
    const refresh = await failing(() => fx.adapter.refresh(carol.credentials))
    expect(refresh.kind).toBe('auth_expired')
    expect(refresh.message).toMatch(/^Access token for twitter is missing or invalid/)
  })

  it('403: duplicate content fails with "Twitter API v2 posting failed" and X\'s reason', async () => {
    const dave = await connect('dave')
    await fx.publish(dave, 'same words twice')
    const failure = await failing(() => fx.publish(dave, 'same words twice'))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toBe(
      'Twitter API v2 posting failed: You are not allowed to create a Tweet with duplicate content.',
    )
    expect(failure.options.status).toBe(403)
    // Another account may say the same thing.
    const erin = await connect('erin')
    await expect(fx.publish(erin, 'same words twice')).resolves.toBeDefined()
  })

  it('403: an app whose access tier does not permit writes fails with "Twitter API v2 posting failed"', async () => {
    const frank = await connect('frank')
    fx.sandbox.registerClient({ clientId: CLIENT_ID, access: 'read' })
    try {
      const failure = await failing(() => fx.publish(frank, 'read-only app'))
      expect(failure.kind).toBe('invalid_content')
      expect(failure.message).toMatch(/^Twitter API v2 posting failed: /)
      expect(failure.options).toMatchObject({ status: 403, code: 'client-forbidden' })
    } finally {
      fx.sandbox.registerClient({ clientId: CLIENT_ID, access: 'read-write' })
    }
  })

  it('400: media over the size ceiling is dropped and the post ships with its URL and the upload error', async () => {
    const gina = await connect('gina')
    const url = fx.fileUrl('huge.png')
    const result = await fx.publish(gina, 'too big to attach', [url])
    const created = fx.sandbox.tweets().find((item) => item.id === result.remoteId)!
    expect(created.text).toBe(`too big to attach\n${url}`)
    expect(created.mediaIds).toEqual([])
    expect(result.uploadError).toBe(
      `Twitter Media Upload Initialization failed: ${url} (initialize answered 400: File size exceeds 5242880 bytes.)`,
    )
  })

  it('400: a connection without media.write still posts, with the URL appended and the refusal recorded', async () => {
    const noMedia = await fx.connect('nomedia', { untick: ['media.write'] })
    const url = fx.fileUrl('photo.png')
    const result = await fx.publish(noMedia, 'no media scope', [url])
    expect(fx.sandbox.tweets().find((item) => item.id === result.remoteId)?.text).toBe(
      `no media scope\n${url}`,
    )
    expect(result.uploadError).toMatch(
      /^Twitter Media Upload Initialization failed: .*initialize answered 403/,
    )
  })

  it('429: an exhausted posting window fails with "Too Many Requests" and the reset from x-rate-limit-reset', async () => {
    const hank = await connect('hank')
    fx.sandbox.setRateLimit('createPosts', 1)
    try {
      const windowStart = fx.clock.now()
      await fx.publish(hank, 'first in the window')
      fx.clock.advance(5_000)
      const failure = await failing(() => fx.publish(hank, 'second in the window'))
      expect(failure.kind).toBe('rate_limited')
      expect(failure.message).toBe('Too Many Requests')
      expect(failure.options.status).toBe(429)
      expect(failure.options.resetAt).toBe(Math.ceil((windowStart + 15 * 60_000) / 1000) * 1000)
      // After the reset the window opens again.
      fx.clock.set(failure.options.resetAt!)
      await expect(fx.publish(hank, 'next window')).resolves.toBeDefined()
    } finally {
      fx.sandbox.setRateLimit('createPosts', 100)
    }
  })

  it('5xx from POST /2/tweets is an unknown outcome: X may have created the post, so it is never resent blindly', async () => {
    const ivy = await connect('ivy')
    fx.sandbox.injectFailure('createPosts', { status: 503 })
    const failure = await failing(() => fx.publish(ivy, 'server trouble'))
    expect(failure.kind).toBe('unknown_outcome')
    expect(failure.message).toMatch(/may or may not have been created/)
    expect(failure.options.status).toBe(503)
    expect(fx.sandbox.tweets().some((item) => item.text === 'server trouble')).toBe(false)
  })

  it('a refused connection is transient: nothing reached X', async () => {
    const jay = await connect('jay')
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const offline = fx.adapterWith({ apiUrl: `http://127.0.0.1:${port}/api` })
    const failure = await failing(() =>
      offline.publish({
        targetId: 't-offline',
        profile: jay.profile,
        credentials: jay.credentials,
        content: 'nobody home',
        mediaUrls: [],
        signal: new AbortController().signal,
      }),
    )
    expect(failure.kind).toBe('transient')
    // The real refusal of Node's fetch: TypeError 'fetch failed' with the socket's ECONNREFUSED on its cause
    // (Node 22.23.5, 24.21.0 and 24.22.3 alike), which the adapter reads along the cause chain.
    expect(failure.options.code).toBe('ECONNREFUSED')
    // This request went outside the validating fetch's base URL on purpose.
    fx.validation.reset()
  })

  it('a connection lost after the post was sent is unknown_outcome, and the post did exist', async () => {
    const kim = await connect('kim')
    fx.sandbox.injectFailure('createPosts', { dropConnection: 'after' })
    const failure = await failing(() => fx.publish(kim, 'did it go out?'))
    expect(failure.kind).toBe('unknown_outcome')
    expect(fx.sandbox.tweets().some((item) => item.text === 'did it go out?')).toBe(true)
  })

  it('a timeout after the post was sent is unknown_outcome', async () => {
    const lee = await connect('lee')
    fx.sandbox.injectFailure('createPosts', { delayMs: 1000, status: 503 })
    const failure = await failing(() => fx.publish(lee, 'slow network', [], AbortSignal.timeout(150)))
    expect(failure.kind).toBe('unknown_outcome')
    expect(failure.message).toMatch(/may or may not have been published/)
  })

  it('never puts an access or refresh token in a failure message, even when X echoes one', async () => {
    const mo = await connect('mo')
    fx.sandbox.injectFailure('createPosts', {
      status: 403,
      body: {
        title: 'Forbidden',
        type: 'about:blank',
        status: 403,
        detail: `token ${mo.credentials.accessToken} refused`,
      },
    })
    const echoed = await failing(() => fx.publish(mo, 'echo'))
    expect(echoed.message).toBe('Twitter API v2 posting failed: token [redacted] refused')
    fx.sandbox.injectFailure('oauth2Token', {
      status: 400,
      body: { error: 'invalid_request', error_description: `bad ${mo.credentials.refreshToken}` },
    })
    const refresh = await failing(() => fx.adapter.refresh(mo.credentials))
    expect(refresh.message).toBe('Access token for twitter is missing or invalid: bad [redacted]')

    expect(seen.length).toBeGreaterThanOrEqual(10)
    for (const failure of seen) {
      for (const token of tokens) {
        expect(failure.message).not.toContain(token)
        expect(JSON.stringify(failure.options)).not.toContain(token)
      }
    }
    // Nor in a log line.
    const logs = fx.logs.join('\n')
    for (const token of tokens) expect(logs).not.toContain(token)
  })
})
