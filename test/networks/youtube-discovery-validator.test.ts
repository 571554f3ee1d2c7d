import { describe, expect, it } from 'vitest'
import { buildVideoInsertBody } from '../../src/adapters/youtube/metadata.js'
import {
  createValidatingFetch,
  DiscoveryRequestValidator,
  loadDiscovery,
  YOUTUBE_DISCOVERY_PATH,
} from '../helpers/discovery-request-validator.js'

/**
 * The discovery-document validator the YouTube suites route every adapter request through: it must accept
 * what the adapter sends and refuse what the document does not allow.
 */

const doc = loadDiscovery()
const API = 'http://127.0.0.1:1/google'

if (!doc) {
  it(`has nothing to check: ${YOUTUBE_DISCOVERY_PATH} is absent`, () => {
    process.stderr.write(`${YOUTUBE_DISCOVERY_PATH} is absent; the discovery validator tests did not run.\n`)
  })
} else {
  const validator = new DiscoveryRequestValidator(doc, { apiUrl: API })
  const check = (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ) =>
    validator.check({
      method,
      url: new URL(`${API}${path}`),
      headers: new Headers(options.headers),
      body: options.body,
    })
  const insertHeaders = {
    'content-type': 'application/json; charset=UTF-8',
    'x-upload-content-length': '1000',
    'x-upload-content-type': 'video/mp4',
  }
  const metadata = buildVideoInsertBody('Title\n#tag', { privacyStatus: 'unlisted' })

  describe(`discovery validator (revision ${doc.revision})`, () => {
    it('accepts the requests the YouTube adapter sends', () => {
      expect(check('GET', '/youtube/v3/channels?part=snippet&mine=true')).toEqual({
        methodId: 'youtube.channels.list',
        problems: [],
      })
      expect(check('GET', '/youtube/v3/channels?part=statistics&mine=true').problems).toEqual([])
      expect(check('GET', '/youtube/v3/videos?part=statistics&id=abc123')).toEqual({
        methodId: 'youtube.videos.list',
        problems: [],
      })
      expect(
        check('POST', '/upload/youtube/v3/videos?uploadType=resumable&part=snippet%2Cstatus', {
          headers: insertHeaders,
          body: metadata,
        }),
      ).toEqual({ methodId: 'youtube.videos.insert', problems: [] })
      expect(
        check('PUT', '/upload/youtube/v3/videos?uploadType=resumable&upload_id=xyz', {
          headers: { 'content-type': 'video/mp4', 'content-length': '1000' },
          body: 'stream',
        }),
      ).toEqual({ methodId: 'youtube.videos.insert (resumable session)', problems: [] })
      expect(
        check('PUT', '/upload/youtube/v3/videos?uploadType=resumable&upload_id=xyz', {
          headers: { 'content-length': '0', 'content-range': 'bytes */1000' },
        }).problems,
      ).toEqual([])
    })

    it('accepts the discovery document’s own resumable path too', () => {
      expect(
        check('POST', '/resumable/upload/youtube/v3/videos?uploadType=resumable&part=snippet', {
          headers: insertHeaders,
          body: { snippet: { title: 't' } },
        }).problems,
      ).toEqual([])
    })

    it.each([
      ['GET', '/youtube/v3/channels?mine=true', 'required parameter part is missing'],
      ['GET', '/youtube/v3/channels?part=snippet&mine=yes', 'mine=yes is not a boolean'],
      ['GET', '/youtube/v3/channels?part=snippet&mine=true&colour=red', 'unknown query parameter colour'],
      ['GET', '/youtube/v3/channels?part=snippet,statz&mine=true', 'part statz is not a property of Channel'],
      ['GET', '/youtube/v3/videos?part=id&chart=hottest', 'chart=hottest is not one of'],
      ['GET', '/youtube/v3/videos?part=id&maxResults=51', 'maxResults=51 is above 50'],
      ['GET', '/youtube/v3/videos?part=id&maxResults=ten', 'maxResults=ten is not an integer'],
      ['GET', '/youtube/v3/videos?part=id&locale=en', 'locale is deprecated'],
      ['GET', '/youtube/v3/videos?part=id&mine=true&mine=false', 'unknown query parameter mine'],
      ['GET', '/youtube/v3/nothing?part=id', 'matches no method'],
      ['DELETE', '/youtube/v3/channels?part=id', 'not DELETE'],
    ])('refuses %s %s', (method, path, problem) => {
      expect(check(method, path).problems.join('\n')).toContain(problem)
    })

    it('refuses a path outside the API base', () => {
      const result = validator.check({
        method: 'GET',
        url: new URL('http://127.0.0.1:1/other/youtube/v3/channels?part=id&mine=true'),
        headers: new Headers(),
        body: undefined,
      })
      expect(result.problems.join()).toContain('outside the API at /google')
    })

    it('refuses a repeated parameter that is not repeatable', () => {
      expect(check('GET', '/youtube/v3/channels?part=id&mine=true&mine=true').problems.join()).toContain(
        'mine is not repeatable',
      )
    })

    it.each([
      [{ snippet: { titel: 'typo' } }, 'Video/snippet must NOT have additional properties (titel)'],
      [
        { snippet: { title: 't' }, status: { privacyStatus: 'secret' } },
        'must be equal to one of the allowed values',
      ],
      [{ snippet: { title: 't' }, status: { selfDeclaredMadeForKids: 'no' } }, 'must be boolean'],
      [{ snippet: { title: 't', tags: 'a,b' } }, 'must be array'],
      [{ snippet: { title: 't' }, extra: true }, '(extra)'],
      [{ status: { publishAt: 'tomorrow' } }, 'must match format "date-time"'],
    ])('refuses an insert body %o', (body, problem) => {
      const result = check('POST', '/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status', {
        headers: insertHeaders,
        body,
      })
      expect(result.problems.join('\n')).toContain(problem)
    })

    it('refuses uploads without uploadType, a non-video media type, a size over maxSize, a session without upload_id', () => {
      expect(
        check('POST', '/upload/youtube/v3/videos?part=snippet', {
          headers: insertHeaders,
          body: metadata,
        }).problems.join(),
      ).toContain('uploadType')
      expect(
        check('POST', '/upload/youtube/v3/videos?uploadType=resumable&part=snippet', {
          headers: { ...insertHeaders, 'x-upload-content-type': 'image/png' },
          body: metadata,
        }).problems.join(),
      ).toContain('X-Upload-Content-Type image/png')
      expect(
        check('POST', '/upload/youtube/v3/videos?uploadType=resumable&part=snippet', {
          headers: { ...insertHeaders, 'x-upload-content-length': '274877906945' },
          body: metadata,
        }).problems.join(),
      ).toContain('X-Upload-Content-Length')
      expect(
        check('PUT', '/upload/youtube/v3/videos?uploadType=resumable', {
          headers: { 'content-type': 'video/mp4' },
          body: 'stream',
        }).problems.join(),
      ).toContain('youtube.videos.insert')
      expect(
        check('PUT', '/upload/youtube/v3/videos?uploadType=resumable&upload_id=x', {
          headers: { 'content-type': 'text/plain' },
          body: 'stream',
        }).problems.join(),
      ).toContain('upload Content-Type text/plain')
    })

    it('validates answers against the response schemas', () => {
      expect(
        validator.validateSchema('ChannelListResponse', { kind: 'youtube#channelListResponse', items: [] }),
      ).toEqual([])
      expect(
        validator.validateSchema('ChannelListResponse', { items: [{ snippet: { handle: '@x' } }] }).join(),
      ).toContain('handle')
    })

    it('wraps fetch: checks API requests, lets the token endpoint through, flags other hosts', async () => {
      const sent: string[] = []
      const inner = (async (input: string | URL | Request) => {
        sent.push(String(input))
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } })
      }) as typeof fetch
      const wrapped = createValidatingFetch({
        validator,
        apiUrl: API,
        exempt: ['http://127.0.0.1:1/google/token'],
        inner,
      })
      await wrapped.fetch(`${API}/token`, { method: 'POST', body: 'grant_type=refresh_token' })
      await wrapped.fetch(`${API}/youtube/v3/channels?part=snippet&mine=true`)
      await wrapped.fetch(`${API}/youtube/v3/channels?mine=true`)
      await wrapped.fetch('http://other.example/x')
      expect(sent).toHaveLength(4)
      expect(wrapped.exempted).toEqual(['POST http://127.0.0.1:1/google/token'])
      expect(wrapped.checked.map((c) => c.methodId)).toEqual([
        'youtube.channels.list',
        'youtube.channels.list',
      ])
      expect(wrapped.problems).toHaveLength(2)
      expect(wrapped.problems[0]).toContain('required parameter part is missing')
      expect(wrapped.problems[1]).toContain('outside the YouTube API')
    })
  })
}
