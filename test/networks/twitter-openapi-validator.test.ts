import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createValidatingFetch, type OpenApiRequestValidator } from '../helpers/openapi-request-validator.js'
import { reportSkippedWithoutOpenApi, xOpenApi, xOpenApiAvailable } from './twitter-fixture.js'

const headers = (entries: Record<string, string> = {}) =>
  new Headers({ authorization: 'Bearer t', ...entries })
const query = (text = '') => new URLSearchParams(text)

reportSkippedWithoutOpenApi('the OpenAPI request validator on the X document')

describe.runIf(xOpenApiAvailable)('the OpenAPI request validator on the X document', () => {
  let validator: OpenApiRequestValidator
  beforeAll(() => {
    validator = xOpenApi()
  })

  const json = (body: unknown) => ({ contentType: 'application/json', text: JSON.stringify(body) })

  it('accepts the requests the X adapter sends', () => {
    const valid = [
      { method: 'GET', path: '/2/users/me', query: query('user.fields=profile_image_url,public_metrics') },
      {
        method: 'POST',
        path: '/2/tweets',
        body: json({ text: 'hi', media: { media_ids: ['1880028106020515840'] } }),
      },
      {
        method: 'POST',
        path: '/2/media/upload/initialize',
        body: json({ media_type: 'video/mp4', total_bytes: 10, media_category: 'tweet_video' }),
      },
      {
        method: 'POST',
        path: '/2/media/upload/123/append',
        body: {
          contentType: 'multipart/form-data; boundary=x',
          form: [
            ['media', new Blob(['ab'])],
            ['segment_index', '0'],
          ] as [string, string | Blob][],
        },
      },
      { method: 'POST', path: '/2/media/upload/123/finalize' },
      { method: 'GET', path: '/2/media/upload', query: query('command=STATUS&media_id=123') },
      {
        method: 'GET',
        path: '/2/tweets/123',
        query: query('post.fields=public_metrics,non_public_metrics,organic_metrics'),
      },
    ]
    for (const request of valid) {
      const outcome = validator.validate({ query: query(), headers: headers(), ...request })
      expect(outcome.problems, `${request.method} ${request.path}`).toEqual([])
    }
  })

  it.each([
    ['an unknown path', { method: 'GET', path: '/2/nothing/here' }, /no such path/],
    ['a method the path does not have', { method: 'PUT', path: '/2/tweets' }, /method not allowed/],
    [
      'a path parameter breaking its pattern',
      { method: 'POST', path: '/2/media/upload/abc/finalize' },
      /path parameter id/,
    ],
    [
      'an undeclared query parameter',
      { method: 'GET', path: '/2/users/me', query: query('tweet.fields=id') },
      /tweet\.fields is not declared/,
    ],
    [
      'a query value outside the enum',
      { method: 'GET', path: '/2/users/me', query: query('user.fields=shoe_size') },
      /user\.fields/,
    ],
    [
      'a missing required query parameter',
      { method: 'GET', path: '/2/media/upload', query: query('command=STATUS') },
      /media_id is missing/,
    ],
    [
      'a JSON property the schema forbids',
      { method: 'POST', path: '/2/tweets', body: json({ text: 'x', status: 'x' }) },
      /additional properties/,
    ],
    [
      'a JSON value of the wrong type',
      { method: 'POST', path: '/2/media/upload/initialize', body: json({ total_bytes: '10' }) },
      /total_bytes/,
    ],
    [
      'an enum value the schema lacks',
      { method: 'POST', path: '/2/media/upload/initialize', body: json({ media_type: 'image/heic' }) },
      /media_type/,
    ],
    [
      'more than four media ids',
      {
        method: 'POST',
        path: '/2/tweets',
        body: json({ text: 'x', media: { media_ids: ['1', '2', '3', '4', '5'] } }),
      },
      /media_ids/,
    ],
    ['a missing required body', { method: 'POST', path: '/2/tweets' }, /required request body is missing/],
    [
      'a body where none is declared',
      { method: 'POST', path: '/2/media/upload/1/finalize', body: json({}) },
      /declares none/,
    ],
    [
      'a content type the operation does not take',
      { method: 'POST', path: '/2/tweets', body: { contentType: 'text/plain', text: 'x' } },
      /content type text\/plain/,
    ],
    [
      'a multipart field the schema lacks',
      {
        method: 'POST',
        path: '/2/media/upload/1/append',
        body: {
          contentType: 'multipart/form-data',
          form: [
            ['media', 'x'],
            ['segment_index', '0'],
            ['command', 'APPEND'],
          ],
        },
      },
      /form field command is not in the schema/,
    ],
    [
      'a multipart body without a required field',
      {
        method: 'POST',
        path: '/2/media/upload/1/append',
        body: { contentType: 'multipart/form-data', form: [['media', 'x']] },
      },
      /required form field segment_index is missing/,
    ],
    [
      'a segment index over 999',
      {
        method: 'POST',
        path: '/2/media/upload/1/append',
        body: {
          contentType: 'multipart/form-data',
          form: [
            ['media', 'x'],
            ['segment_index', '1000'],
          ],
        },
      },
      /segment_index/,
    ],
  ] as const)('reports %s', (_name, request, expected) => {
    const outcome = validator.validate({ query: query(), headers: headers(), ...(request as any) })
    expect(outcome.problems.join('\n')).toMatch(expected)
  })

  it('reports a secured operation called without an Authorization header', () => {
    const outcome = validator.validate({
      method: 'GET',
      path: '/2/users/me',
      query: query(),
      headers: new Headers(),
    })
    expect(outcome.problems.join('\n')).toMatch(/no Authorization header/)
  })

  it('refuses to exempt a path the document defines', () => {
    expect(() =>
      createValidatingFetch(validator, 'http://127.0.0.1:1/api', {
        exempt: [{ method: 'POST', path: '/2/tweets', reason: 'none' }],
      }),
    ).toThrow(/validate it instead/)
  })

  describe('as a fetch wrapper', () => {
    let server: FastifyInstance
    let base: string
    beforeAll(async () => {
      server = Fastify()
      server.all('/*', async () => ({ ok: true }))
      base = `${await server.listen({ host: '127.0.0.1', port: 0 })}/api`
    })
    afterAll(() => server.close())

    it('records problems of the requests it forwards, including ones outside the base URL', async () => {
      const wrapper = createValidatingFetch(validator, base)
      await wrapper.fetch(`${base}/2/tweets`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'ok' }),
      })
      expect(wrapper.problems).toEqual([])
      expect(wrapper.requests).toEqual([{ method: 'POST', path: '/2/tweets', operationId: 'createPosts' }])
      await wrapper.fetch(`${base}/2/tweets`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ txt: 'typo' }),
      })
      await wrapper.fetch(`${base.replace('/api', '/elsewhere')}/x`)
      expect(wrapper.problems).toHaveLength(2)
      expect(wrapper.problems[0]).toMatch(/additional properties/)
      expect(wrapper.problems[1]).toMatch(/outside the API base/)
    })
  })
})
