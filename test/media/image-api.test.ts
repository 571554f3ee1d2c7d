import Fastify, { type FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createImageApiProvider, imageApiEndpoint } from '../../src/modules/media/image-api.js'
import { cardSvg } from '../../src/modules/media/image-card.js'
import { ImageGenerationError } from '../../src/modules/media/image-provider.js'
import { loadConfig } from '../../src/platform/config.js'
import { createSafeFetcher } from '../../src/platform/egress/safe-fetch.js'

describe('image providers', () => {
  it.each([
    ['https://api.openai.com', 'https://api.openai.com/v1/images/generations'],
    ['https://api.openai.com/', 'https://api.openai.com/v1/images/generations'],
    ['https://gateway.example.com/openai/v1', 'https://gateway.example.com/openai/v1/images/generations'],
    ['http://127.0.0.1:8080/custom/images/generations', 'http://127.0.0.1:8080/custom/images/generations'],
  ])('sends requests for %s to %s', (configured, endpoint) => {
    expect(imageApiEndpoint(configured)).toBe(endpoint)
  })

  it('reads the image API settings and media fetch timeouts from the environment', () => {
    const config = loadConfig({
      HERALD_IMAGE_API_URL: 'https://api.example.com',
      HERALD_IMAGE_API_KEY: 'k',
      HERALD_IMAGE_API_MODEL: 'gpt-image-1',
      HERALD_MEDIA_CONNECT_TIMEOUT_MS: '2500',
    })
    expect(config.imageApi).toEqual({ url: 'https://api.example.com', key: 'k', model: 'gpt-image-1' })
    expect(config.mediaFetch).toEqual({ connectTimeoutMs: 2500, totalTimeoutMs: 300_000 })
    expect(loadConfig({}).imageApi).toBeUndefined()
  })

  it('escapes the prompt in the offline card', () => {
    const svg = cardSvg('<script>alert("x")</script> & more', '1:1')
    expect(svg).not.toContain('<script>')
    expect(svg).toContain('&lt;script&gt;')
    expect(svg).toContain('&quot;x&quot;')
    expect(svg).toContain('&amp; more')
  })

  describe('an API that answers with a URL', () => {
    let api: FastifyInstance
    let port = 0
    let picture: Buffer
    beforeAll(async () => {
      picture = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#3a6' } })
        .png()
        .toBuffer()
      api = Fastify()
      api.post('/v1/images/generations', async () => ({
        data: [{ url: `http://127.0.0.1:${port}/picture.png` }],
      }))
      api.get('/picture.png', async (_request, reply) => reply.type('image/png').send(picture))
      await api.listen({ host: '127.0.0.1', port: 0 })
      port = (api.server.address() as { port: number }).port
    })
    afterAll(() => api.close())

    const provider = (allowPrivate: boolean) =>
      createImageApiProvider({
        url: `http://127.0.0.1:${port}`,
        key: undefined,
        model: undefined,
        fetcher: createSafeFetcher({ allowPrivate }),
      })

    it('downloads the picture through the safe fetcher and crops it to the requested shape', async () => {
      const image = await provider(true).generate({ prompt: 'p', aspectRatio: '16:9' })
      expect(image).toMatchObject({ width: 1920, height: 1080, contentType: 'image/png' })
      expect(await sharp(image.bytes).metadata()).toMatchObject({ width: 1920, height: 1080, format: 'png' })
    })

    it('refuses a picture URL on a private address like any other media URL', async () => {
      const error = await provider(false)
        .generate({ prompt: 'p', aspectRatio: '1:1' })
        .catch((e) => e)
      expect(error).toBeInstanceOf(ImageGenerationError)
      expect(error.message).toMatch(/could not be fetched: Refusing to fetch from 127\.0\.0\.1/)
    })
  })
})
