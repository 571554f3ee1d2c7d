import Fastify, { type FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from '../helpers/harness.js'

/** The hosted URL's path on the running harness (PUBLIC_BASE_URL in tests names port 0). */
const onHarness = (h: Harness, mediaUrl: string) => `${h.baseUrl}${new URL(mediaUrl).pathname}`

const mediaRows = (h: Harness) => h.app.store.db.selectFrom('media').selectAll().execute()
const balance = async (h: Harness) =>
  Number(
    (
      await h.app.store.db
        .selectFrom('workspaces')
        .select('credit_balance')
        .where('id', '=', h.workspaceId)
        .executeTakeFirstOrThrow()
    ).credit_balance,
  )

describe('generate_image offline', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('renders a PNG card, charges 5 credits and hosts it at an unguessable URL', async () => {
    const { status, body } = await h.call('generate_image', {
      prompt: 'Summer launch: 20% off',
      aspectRatio: '4:5',
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      width: 1080,
      height: 1350,
      contentType: 'image/png',
      credits: { charged: 5, remaining: 995 },
    })
    expect(body.mediaUrl).toMatch(
      new RegExp(`^${h.app.config.publicBaseUrl}/media/[0-9a-f]{32}/summer-launch-20-off\\.png$`),
    )
    const ledger = await h.app.store.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('reason', '=', 'generate_image')
      .execute()
    expect(ledger).toHaveLength(1)
    expect(ledger[0]).toMatchObject({ delta: -5, balance_after: 995 })
  })

  it('serves the image with its type, length, ranges and immutable caching', async () => {
    const { body } = await h.call('generate_image', { prompt: 'A quiet harbour at dawn' })
    const url = onHarness(h, body.mediaUrl)
    const full = await fetch(url)
    expect(full.status).toBe(200)
    expect(full.headers.get('content-type')).toBe('image/png')
    const bytes = Buffer.from(await full.arrayBuffer())
    expect(full.headers.get('content-length')).toBe(String(bytes.length))
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(full.headers.get('accept-ranges')).toBe('bytes')
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 1080, height: 1080 })

    const part = await fetch(url, { headers: { range: 'bytes=0-99' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${bytes.length}`)
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(0, 100))

    const tail = await fetch(url, { headers: { range: 'bytes=-10' } })
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10))

    const beyond = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`)

    const etag = full.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304)

    const head = await fetch(url, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(bytes.length))
  })

  it('answers 404 for a wrong name or an unknown id', async () => {
    const { body } = await h.call('generate_image', { prompt: 'x' })
    const url = new URL(onHarness(h, body.mediaUrl))
    expect((await fetch(`${url.origin}${url.pathname.replace(/[^/]+$/, 'other.png')}`)).status).toBe(404)
    expect((await fetch(`${h.baseUrl}/media/${'a'.repeat(32)}/x.png`)).status).toBe(404)
    expect((await fetch(`${h.baseUrl}/media/../../etc/passwd`)).status).toBe(404)
  })

  it('gives a URL that create_post’s media checks accept without a network request', async () => {
    const { body } = await h.call('generate_image', { prompt: 'Product shot', aspectRatio: '16:9' })
    const info = await h.app.media.inspect(body.mediaUrl, { network: 'instagram' })
    expect(info).toMatchObject({ kind: 'image', contentType: 'image/png', width: 1920, height: 1080 })
    expect(info.conversions).toContain('png is not accepted')
    const prepared = await h.app.media.prepare(body.mediaUrl, { network: 'twitter' })
    expect(prepared).toMatchObject({ contentType: 'image/png', width: 1920, height: 1080 })
    await prepared.dispose()
  })

  it('validates the prompt and the aspect ratio', async () => {
    expect((await h.call('generate_image', { prompt: '' })).status).toBe(400)
    expect((await h.call('generate_image', { prompt: 'x', aspectRatio: '3:2' })).status).toBe(400)
  })
})

describe('generate_image without enough credits', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ credits: 4 })
  })
  afterAll(() => h.close())

  it('is refused with 402 and creates nothing', async () => {
    const { status, body } = await h.call('generate_image', { prompt: 'Too expensive' })
    expect(status).toBe(402)
    expect(body.error.code).toBe('insufficient_credits')
    expect(await mediaRows(h)).toEqual([])
    expect(await balance(h)).toBe(4)
  })
})

describe('generate_image with an OpenAI-compatible image API', () => {
  let api: FastifyInstance
  let h: Harness
  let mode: 'ok' | 'fail' | 'refuse' = 'ok'
  const seen: { body: any; authorization: string | undefined }[] = []

  beforeAll(async () => {
    const picture = await sharp({ create: { width: 1024, height: 1792, channels: 3, background: '#c33' } })
      .png()
      .toBuffer()
    api = Fastify()
    api.post('/v1/images/generations', async (request, reply) => {
      seen.push({ body: request.body, authorization: request.headers.authorization })
      if (mode === 'fail') return reply.code(503).send({ error: { message: 'overloaded' } })
      if (mode === 'refuse') return reply.code(400).send({ error: { message: 'Your prompt was rejected' } })
      return { created: 1, data: [{ b64_json: picture.toString('base64') }] }
    })
    await api.listen({ host: '127.0.0.1', port: 0 })
    const port = (api.server.address() as { port: number }).port
    h = await startHarness({
      env: {
        HERALD_IMAGE_API_URL: `http://127.0.0.1:${port}`,
        HERALD_IMAGE_API_KEY: 'sk-test-key',
        HERALD_IMAGE_API_MODEL: 'test-model',
      },
    })
  })
  afterAll(async () => {
    await h.close()
    await api.close()
  })

  it('posts {model, prompt, size, response_format} and hosts the answer at the requested shape', async () => {
    mode = 'ok'
    const { status, body } = await h.call('generate_image', { prompt: 'A red poster', aspectRatio: '9:16' })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      width: 1080,
      height: 1920,
      contentType: 'image/png',
      credits: { charged: 5 },
    })
    expect(seen.at(-1)).toEqual({
      body: {
        model: 'test-model',
        prompt: 'A red poster',
        size: '1024x1792',
        n: 1,
        response_format: 'b64_json',
      },
      authorization: 'Bearer sk-test-key',
    })
    const served = await fetch(onHarness(h, body.mediaUrl))
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({
      width: 1080,
      height: 1920,
    })
    expect(h.logs.join('')).not.toContain('sk-test-key')
  })

  it.each([
    ['fails', 'fail', 500, 'internal'],
    ['refuses the prompt', 'refuse', 400, 'invalid_request'],
  ] as const)('charges nothing and stores nothing when the API %s', async (_label, next, status, code) => {
    mode = next
    const rowsBefore = (await mediaRows(h)).length
    const before = await balance(h)
    const answer = await h.call('generate_image', { prompt: 'Anything' })
    expect(answer.status).toBe(status)
    expect(answer.body.error.code).toBe(code)
    expect(answer.body.error.message).toMatch(/Image generation failed: The image API answered HTTP/)
    expect(await balance(h)).toBe(before)
    expect((await mediaRows(h)).length).toBe(rowsBefore)
  })
})
