import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { selectTwitterMedia, twitterMediaType } from '../../src/adapters/twitter/index.js'
import {
  type Connection,
  failureOf,
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

describe('the media type of a URL (spec §1 twitter rule 2)', () => {
  it.each([
    ['https://cdn.example/a/photo.png', 'image/png', 'tweet_image'],
    ['https://cdn.example/a/anim.gif', 'image/gif', 'tweet_gif'],
    ['https://cdn.example/a/pic.webp', 'image/webp', 'tweet_image'],
    ['https://cdn.example/a/clip.mp4', 'video/mp4', 'tweet_video'],
    ['https://cdn.example/a/CLIP.MP4?sig=abc#t=1', 'video/mp4', 'tweet_video'],
    ['https://cdn.example/a/photo.jpg', 'image/jpeg', 'tweet_image'],
    ['https://cdn.example/a/photo.jpeg', 'image/jpeg', 'tweet_image'],
    ['https://cdn.example/a/photo.heic', 'image/jpeg', 'tweet_image'],
    ['https://cdn.example/a/movie.mov', 'image/jpeg', 'tweet_image'],
    ['https://cdn.example/a/no-extension', 'image/jpeg', 'tweet_image'],
    ['https://cdn.example/a.png/file?format=png', 'image/jpeg', 'tweet_image'],
  ])('types %s as %s (%s)', (url, mediaType, category) => {
    expect(twitterMediaType(url)).toMatchObject({ mediaType, category })
  })
})

describe('which media a post carries (spec §8: up to 4 images, or 1 video or GIF)', () => {
  const u = (name: string) => `https://cdn.example/${name}`
  it('keeps four images and skips the fifth', () => {
    const result = selectTwitterMedia(['1.png', '2.jpg', '3.webp', '4.png', '5.png'].map(u))
    expect(result.selected.map((item) => item.url)).toEqual(['1.png', '2.jpg', '3.webp', '4.png'].map(u))
    expect(result.skipped).toEqual([{ url: u('5.png'), reason: 'X takes at most 4 images per post' }])
  })
  it('posts a video alone when it comes first', () => {
    const result = selectTwitterMedia(['v.mp4', '1.png'].map(u))
    expect(result.selected.map((item) => item.url)).toEqual([u('v.mp4')])
    expect(result.skipped[0]?.reason).toMatch(/one video per post/)
  })
  it('passes over a GIF that follows images', () => {
    const result = selectTwitterMedia(['1.png', 'a.gif', '2.png'].map(u))
    expect(result.selected.map((item) => item.url)).toEqual([u('1.png'), u('2.png')])
    expect(result.skipped[0]?.reason).toMatch(/does not mix a gif with images/)
  })
})

reportSkippedWithoutOpenApi('publishing to X (adapter against the sandbox)')

describe.runIf(xOpenApiAvailable)('publishing to X (adapter against the sandbox)', () => {
  let fx: TwitterFixture
  let alice: Connection
  let bob: Connection
  beforeAll(async () => {
    fx = await startTwitterFixture()
    alice = await fx.connect('alice')
    bob = await fx.connect('bob')
  })
  afterAll(() => fx.close())
  beforeEach(() => {
    fx.sleeps.length = 0
    fx.validation.reset()
  })
  afterEach(() => {
    expect(fx.validation.problems).toEqual([])
  })

  const tweet = (id: string) => fx.sandbox.tweets().find((item) => item.id === id)!
  const operations = () => fx.validation.requests.map((request) => request.operationId)

  it('publishes a text post as the connected handle (rule 1)', async () => {
    const result = await fx.publish(alice, 'Hello from Herald')
    const created = tweet(result.remoteId)
    expect(created).toMatchObject({
      text: 'Hello from Herald',
      username: 'alice',
      authorId: alice.profile.profileId,
    })
    expect(result.url).toBe(`https://x.com/alice/status/${result.remoteId}`)
    expect(result.uploadError).toBeUndefined()

    const other = await fx.publish(bob, 'Hello from Herald')
    expect(tweet(other.remoteId)).toMatchObject({ username: 'bob', authorId: bob.profile.profileId })
    expect(operations()).toEqual(['createPosts', 'createPosts'])
  })

  it.each([
    ['photo.png', 'image/png', 'tweet_image'],
    ['pic.webp', 'image/webp', 'tweet_image'],
    ['anim.gif', 'image/gif', 'tweet_gif'],
    ['clip.mp4', 'video/mp4', 'tweet_video'],
    ['photo.jpg', 'image/jpeg', 'tweet_image'],
    ['photo.heic', 'image/jpeg', 'tweet_image'],
    ['photo', 'image/jpeg', 'tweet_image'],
  ])('uploads %s as %s in category %s (rule 2)', async (file, mediaType, category) => {
    const result = await fx.publish(alice, `typed ${file}`, [fx.fileUrl(file)])
    expect(result.uploadError).toBeUndefined()
    const [mediaId] = tweet(result.remoteId).mediaIds
    expect(fx.sandbox.media().find((item) => item.id === mediaId)).toMatchObject({
      mediaType,
      category,
      processing: 'succeeded',
    })
  })

  it('uploads a video in three steps, in 1 MiB segments, and polls processing as X asks (rule 3)', async () => {
    const result = await fx.publish(alice, 'a video', [fx.fileUrl('clip.mp4')])
    expect(operations()).toEqual([
      'initializeMediaUpload',
      'appendMediaUpload',
      'appendMediaUpload',
      'appendMediaUpload',
      'finalizeMediaUpload',
      'getMediaUploadStatus',
      'getMediaUploadStatus',
      'getMediaUploadStatus',
      'createPosts',
    ])
    // The sandbox processes for 3 s and says check_after_secs: 1 (pending → in_progress → succeeded).
    expect(fx.sleeps).toEqual([1000, 1000, 1000])
    const [mediaId] = tweet(result.remoteId).mediaIds
    expect(fx.sandbox.media().find((item) => item.id === mediaId)).toMatchObject({
      totalBytes: 2.5 * 1024 * 1024,
      receivedBytes: 2.5 * 1024 * 1024,
      segments: 3,
      processing: 'succeeded',
    })
  })

  it('waits about 2 seconds after an image upload that reports no processing, then posts (rule 3)', async () => {
    const result = await fx.publish(alice, 'an image', [fx.fileUrl('photo.png')])
    expect(operations()).toEqual([
      'initializeMediaUpload',
      'appendMediaUpload',
      'finalizeMediaUpload',
      'createPosts',
    ])
    expect(fx.sleeps).toEqual([2000])
    expect(tweet(result.remoteId).mediaIds).toHaveLength(1)
  })

  it('attaches up to four images in order and records the ones it left out', async () => {
    const urls = ['photo.png', 'photo.jpg', 'pic.webp', 'photo.jpeg', 'photo.heic'].map(fx.fileUrl)
    const result = await fx.publish(alice, 'four images', urls)
    const created = tweet(result.remoteId)
    expect(created.mediaIds).toHaveLength(4)
    expect(created.text).toBe('four images')
    expect(fx.sleeps).toEqual([2000])
    expect(result.uploadError).toBe(`Not attached: ${urls[4]} (X takes at most 4 images per post)`)
  })

  it('posts with the media URL appended and records the error when the media cannot be fetched (rule 4)', async () => {
    const url = fx.fileUrl('missing.png')
    const result = await fx.publish(alice, 'media gone', [url])
    const created = tweet(result.remoteId)
    expect(created.text).toBe(`media gone\n${url}`)
    expect(created.mediaIds).toEqual([])
    expect(result.uploadError).toMatch(/^Twitter Media Upload Initialization failed: /)
    expect(result.uploadError).toContain(url)
    expect(operations()).toEqual(['createPosts'])
  })

  it('drops only the failed item: other images stay attached and only its URL is appended (rule 4)', async () => {
    const broken = fx.fileUrl('missing.png')
    const result = await fx.publish(alice, 'one of two', [fx.fileUrl('photo.png'), broken])
    const created = tweet(result.remoteId)
    expect(created.mediaIds).toHaveLength(1)
    expect(created.text).toBe(`one of two\n${broken}`)
    expect(result.uploadError).toContain(broken)
  })

  it('posts with the URL appended when X fails the video while processing it (rule 4)', async () => {
    fx.sandbox.failNextProcessing(1)
    const url = fx.fileUrl('clip.mp4')
    const result = await fx.publish(alice, 'processing fails', [url])
    expect(tweet(result.remoteId)).toMatchObject({ text: `processing fails\n${url}`, mediaIds: [] })
    expect(result.uploadError).toBe(`Twitter Media Upload Initialization failed: ${url} (processing failed)`)
  })

  it('posts with the URL appended when an APPEND answers 503 (rule 4)', async () => {
    fx.sandbox.injectFailure('appendMediaUpload', { status: 503 })
    const url = fx.fileUrl('photo.png')
    const result = await fx.publish(alice, 'append fails', [url])
    expect(tweet(result.remoteId).text).toBe(`append fails\n${url}`)
    expect(result.uploadError).toMatch(/append of segment 0 answered 503/)
    expect(fx.sleeps).toEqual([])
  })

  it('posts the URL alone when the copy is empty and the only media failed (rule 4)', async () => {
    const url = fx.fileUrl('missing.gif')
    const result = await fx.publish(alice, '', [url])
    expect(tweet(result.remoteId).text).toBe(url)
  })

  it('forwards a 300-character copy unchanged for a premium account (rule 5)', async () => {
    const premium = await fx.connect('premium_pat', { tier: 'premium' })
    const copy = `  ${'long copy '.repeat(29)}the end\n`
    expect(copy).toHaveLength(300)
    const result = await fx.publish(premium, copy)
    expect(tweet(result.remoteId).text).toBe(copy)
  })

  it('lets X refuse a 300-character copy on a standard account, without trimming it (rule 5, spec §8)', async () => {
    const copy = 'x'.repeat(300)
    const failure = await failureOf(() => fx.publish(alice, copy))
    expect(failure).toBeInstanceOf(PublishFailure)
    expect(failure.kind).toBe('invalid_content')
    expect(failure.options.status).toBe(400)
    expect(failure.message).toMatch(/^Twitter API v2 posting failed: Your Tweet text is too long/)
    expect(fx.sandbox.tweets().some((item) => item.text.startsWith('xxx'))).toBe(false)
    // The request carried the whole copy.
    expect(fx.validation.requests.at(-1)).toMatchObject({ operationId: 'createPosts' })
  })

  it('counts weighted characters as X does: 140 emoji fit a standard account, 141 do not', async () => {
    const emoji = '\u{1F600}'
    await expect(fx.publish(alice, emoji.repeat(140))).resolves.toMatchObject({
      remoteId: expect.any(String),
    })
    const failure = await failureOf(() => fx.publish(alice, emoji.repeat(141)))
    expect(failure.kind).toBe('invalid_content')
  })

  it('does not send the post when the caller cancels during the media upload', async () => {
    const controller = new AbortController()
    const before = fx.sandbox.tweets().length
    const pending = fx.publish(alice, 'cancelled', [fx.fileUrl('clip.mp4')], controller.signal)
    controller.abort()
    const failure = await failureOf(() => pending)
    expect(failure.kind).toBe('transient')
    expect(fx.sandbox.tweets()).toHaveLength(before)
  })
})
