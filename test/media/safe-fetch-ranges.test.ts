import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MediaError } from '../../src/core/media-port.js'
import { createSafeFetcher } from '../../src/platform/egress/safe-fetch.js'
import { startServer, type TestServer } from './servers.js'

/** Range and conditional requests go through the same guards as any fetch. */
describe('range and conditional requests through the guarded fetcher', () => {
  let web: TestServer
  const body = Buffer.from('0123456789abcdef')

  beforeAll(async () => {
    web = await startServer((req, res) => {
      if (req.url === '/lying') {
        res.writeHead(206, { 'content-range': `bytes 5-9/${body.length}` }).end(body.subarray(5, 10))
        return
      }
      if (req.headers['if-none-match'] === '"b1"') return void res.writeHead(304).end()
      const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
      if (!match) return void res.writeHead(200, { etag: '"b1"' }).end(body)
      const [start, end] = [Number(match[1]), Number(match[2])]
      res
        .writeHead(206, { etag: '"b1"', 'content-range': `bytes ${start}-${end}/${body.length}` })
        .end(body.subarray(start, end + 1))
    })
  })
  afterAll(() => web.close())

  const open = createSafeFetcher({ allowPrivate: true })
  const guarded = createSafeFetcher()

  it('answers a range with exactly its bytes, the total size and the validators', async () => {
    const answer = await open.fetchRange(`${web.url}/f`, { start: 2, end: 5 }, { maxBytes: 100 })
    expect(answer).toMatchObject({ kind: 'partial', totalSize: 16, validators: { etag: '"b1"' } })
    expect(answer.kind === 'partial' && answer.bytes.toString()).toBe('2345')
  })

  it('refuses a file whose total size is over the cap from the range answer', async () => {
    const error = (await open
      .fetchRange(`${web.url}/f`, { start: 0, end: 3 }, { maxBytes: 10 })
      .catch((e: unknown) => e)) as MediaError
    expect(error.reason).toBe('too_large')
  })

  it('refuses a range answer for other bytes than asked', async () => {
    const error = (await open
      .fetchRange(`${web.url}/lying`, { start: 0, end: 3 }, { maxBytes: 100 })
      .catch((e: unknown) => e)) as MediaError
    expect(error).toMatchObject({ reason: 'fetch_failed' })
  })

  it('says not_modified on a 304, and fetches the body when the validators do not match', async () => {
    expect(await open.fetchIfChanged(`${web.url}/f`, { etag: '"b1"' }, { maxBytes: 100 })).toBe(
      'not_modified',
    )
    const changed = await open.fetchIfChanged(`${web.url}/f`, { etag: '"old"' }, { maxBytes: 100 })
    expect(changed).toMatchObject({ size: 16, validators: { etag: '"b1"' } })
    if (changed !== 'not_modified') await changed.dispose()
  })

  it('refuses loopback for range and conditional requests as for any fetch', async () => {
    const before = web.requests.length
    const ranged = (await guarded
      .fetchRange(`${web.url}/f`, { start: 0, end: 3 }, { maxBytes: 100 })
      .catch((e: unknown) => e)) as MediaError
    const conditional = (await guarded
      .fetchIfChanged(`${web.url}/f`, { etag: '"b1"' }, { maxBytes: 100 })
      .catch((e: unknown) => e)) as MediaError
    expect([ranged.reason, conditional.reason]).toEqual(['blocked_address', 'blocked_address'])
    expect(web.requests.length).toBe(before)
  })
})
