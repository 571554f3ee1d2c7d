import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createMetadataFetch,
  METADATA_DOCUMENT_MAX_BYTES,
} from '../../src/modules/oauth-server/metadata-fetch.js'
import { type DocumentServer, documentFetcher, startDocumentServer } from '../helpers/oauth.js'

/**
 * The fetcher of client ID metadata documents on its own: a document's limits (5 KB, 5 s, JSON asked for),
 * not the media fetcher's, under the same address guards.
 */
describe('the client ID metadata document fetcher', () => {
  let documents: DocumentServer
  const refusals: string[] = []
  const fetchDocument = createMetadataFetch({
    allowPrivate: true,
    ...documentFetcher,
    onRefused: (_url, reason) => refusals.push(reason),
  })
  const refusal = async (path: string, init: { signal?: AbortSignal } = {}) => {
    const started = Date.now()
    const error = await fetchDocument(documents.url(path), init).then(
      () => undefined,
      (caught: Error) => caught,
    )
    return { error, ms: Date.now() - started }
  }

  beforeAll(async () => {
    documents = await startDocumentServer()
  })
  afterAll(() => documents.close())

  it('asks for JSON as Herald’s OAuth fetcher, not as the media fetcher, and passes the caching headers on', async () => {
    documents.set('/ok.json', { client_id: 'x' }, { headers: { 'cache-control': 'max-age=120' } })
    const answer = await fetchDocument(documents.url('/ok.json'), {})
    expect(await answer.json()).toEqual({ client_id: 'x' })
    expect(answer.headers.get('cache-control')).toBe('max-age=120')
    const sent = documents.requestHeaders.get('/ok.json')
    expect(sent?.accept).toBe('application/json')
    expect(sent?.['user-agent']).toBe('Herald OAuth client metadata fetcher')
  })

  it('takes a document of exactly 5 KB', async () => {
    documents.set('/edge.json', 'x'.repeat(METADATA_DOCUMENT_MAX_BYTES))
    const answer = await fetchDocument(documents.url('/edge.json'), {})
    expect((await answer.arrayBuffer()).byteLength).toBe(METADATA_DOCUMENT_MAX_BYTES)
  })

  it.each([
    ['a 20 KB document sent whole', { body: 'x'.repeat(20_000) }],
    ['a document one byte over 5 KB', { body: 'x'.repeat(METADATA_DOCUMENT_MAX_BYTES + 1) }],
    ['a document that never ends, without a length', { body: '', endless: true }],
  ])('refuses %s at once and closes the connection', async (_label, served) => {
    const path = `/big-${refusals.length}.json`
    documents.set(path, served.body, { endless: 'endless' in served })
    const { error, ms } = await refusal(path)
    expect(error?.message).toMatch(/limit for this use is 5 KB/)
    expect(ms).toBeLessThan(1_500)
    await expect.poll(() => documents.openConnections(), { timeout: 1_500 }).toBe(0)
  })

  it('gives a slow document 5 seconds in all, and the library’s own deadline when that is sooner', async () => {
    documents.set('/slow.json', { client_id: 'x' }, { delayMs: 8_000 })
    const own = await refusal('/slow.json')
    expect(own.error?.message).toMatch(/longer than 5000 ms/)
    expect(own.ms).toBeGreaterThanOrEqual(4_900)
    expect(own.ms).toBeLessThan(6_500)
    const library = await refusal('/slow.json', { signal: AbortSignal.timeout(300) })
    expect(library.error).toBeDefined()
    expect(library.ms).toBeLessThan(1_500)
  }, 15_000)

  it('follows no redirect and takes no status but 200', async () => {
    documents.set('/moved.json', '', { status: 302, headers: { location: documents.url('/ok.json') } })
    documents.set('/gone.json', '', { status: 410 })
    const before = documents.hits.get('/ok.json') ?? 0
    expect((await refusal('/moved.json')).error?.message).toMatch(/redirect/)
    expect(documents.hits.get('/ok.json') ?? 0).toBe(before)
    expect((await refusal('/gone.json')).error?.message).toMatch(/HTTP 410/)
  })

  it('fetches over https only', async () => {
    const error = await fetchDocument(`http://public.test:${documents.port}/ok.json`, {}).then(
      () => undefined,
      (caught: Error) => caught,
    )
    expect(error?.message).toMatch(/https only/)
  })

  it('refuses a private address unless private fetches are allowed', async () => {
    const guarded = createMetadataFetch({ allowPrivate: false, ...documentFetcher })
    documents.set('/ok.json', { client_id: 'x' })
    const before = documents.hits.get('/ok.json') ?? 0
    const error = await guarded(documents.url('/ok.json'), {}).then(
      () => undefined,
      (caught: Error) => caught,
    )
    expect(error?.message).toMatch(/loopback/)
    expect(documents.hits.get('/ok.json') ?? 0).toBe(before)
  })
})
