import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PublishFailure } from '../../src/adapters/adapter.js'
import { createMastodonAdapter } from '../../src/adapters/mastodon/index.js'
import type { MediaPort } from '../../src/core/media-port.js'
import { createLogger } from '../../src/platform/logger.js'

/**
 * A slow or hostile instance cannot hold Herald up: every call has a timeout, each instance gets a few
 * requests at a time (the rest wait briefly, then give up before sending), an instance that left several
 * requests in a row unanswered rests (its calls fail at once, nothing sent), and an answer too large is not
 * read. Meanwhile every other instance is answered as usual.
 */

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
    }),
  )

describe('Mastodon instances that are slow or hostile', () => {
  let slowUrl = ''
  let fastUrl = ''
  let hugeUrl = ''
  let slowRequests = 0
  const sockets = new Set<Socket>()
  const slow = createServer(() => {
    slowRequests++
  })
  slow.on('connection', (socket) => sockets.add(socket))
  const fast = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({
        version: '4.5.0',
        title: 'Fast',
        configuration: { statuses: { max_characters: 1000 } },
      }),
    )
  })
  const huge = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json')
    response.end(`{"version":"4.5.0","title":"${'x'.repeat(5 * 1024 * 1024)}"}`)
  })

  const adapter = () =>
    createMastodonAdapter(
      {
        instanceUrl: (host) =>
          host === 'slow.example' ? slowUrl : host === 'huge.example' ? hugeUrl : fastUrl,
        appName: 'Herald',
        website: 'https://herald.example',
        allowPrivate: true,
        timeoutMs: 400,
      },
      {
        http: (input, init) => fetch(input, init),
        logger: createLogger('error', new Writable({ write: (_c, _e, done) => done() })),
        now: () => Date.now(),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        media: {} as MediaPort,
      },
      { inFlight: 2, queueWaitMs: 150, strikes: 3, restMs: 60_000 },
    )

  beforeAll(async () => {
    slowUrl = await listen(slow)
    fastUrl = await listen(fast)
    hugeUrl = await listen(huge)
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await Promise.all([slow, fast, huge].map((s) => new Promise((resolve) => s.close(resolve))))
  })

  it('answers another instance at once while one hangs, and the hanging one takes only its own places', async () => {
    const mastodon = adapter()
    const started = Date.now()
    const hanging = [1, 2, 3, 4].map(() =>
      mastodon.discover('slow.example').catch((error: PublishFailure) => error),
    )
    const other = await mastodon.discover('fast.example')
    expect(other).toMatchObject({ title: 'Fast', limits: { textLimit: 1000 } })
    expect(Date.now() - started).toBeLessThan(350)
    const failures = (await Promise.all(hanging)) as PublishFailure[]
    expect(failures.every((f) => f.kind === 'transient')).toBe(true)
    // Two were sent and timed out; two waited their turn and gave up without being sent.
    expect(failures.filter((f) => /did not answer in time/.test(f.message))).toHaveLength(2)
    expect(failures.filter((f) => f.options.code === 'InstanceBusy')).toHaveLength(2)
    expect(slowRequests).toBe(2)
  })

  it('rests an instance that left requests unanswered: its next calls fail at once, before anything is sent', async () => {
    const mastodon = adapter()
    for (let i = 0; i < 3; i++) await mastodon.discover('slow.example').catch(() => undefined)
    const before = slowRequests
    const started = Date.now()
    const rested = (await mastodon.discover('slow.example').catch((e: PublishFailure) => e)) as PublishFailure
    expect(Date.now() - started).toBeLessThan(50)
    expect(rested).toMatchObject({ kind: 'transient', options: { code: 'InstanceBusy' } })
    expect(rested.message).toMatch(/given a rest/)
    expect(slowRequests).toBe(before)
    expect((await mastodon.discover('fast.example')).title).toBe('Fast')
  })

  it('does not read an answer larger than any Mastodon answer Herald reads', async () => {
    const failure = (await adapter()
      .discover('huge.example')
      .catch((e: PublishFailure) => e)) as PublishFailure
    expect(failure.kind).toBe('transient')
    expect(failure.message).toMatch(/more than 4194304 bytes/)
  })
})
