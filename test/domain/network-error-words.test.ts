import { describe, expect, it } from 'vitest'
import { networkErrorInWords } from '../../src/core/network-error-words.js'

/** No method name, path, status code or raw instant in what a person reads. */
const API_WORDS =
  /com\.atproto|app\.bsky|\b(?:GET|POST) [/\w]|\/v\d\/|\banswered \d{3}\b|\b\d{4}-\d\d-\d\dT|\(\d{3}\)|InvalidRequest/

describe('a delivery error in words', () => {
  // Each message is one the adapters write, in their own templates (src/adapters/*/errors.ts, xrpc.ts, client.ts).
  it.each([
    [
      'Bluesky com.atproto.repo.createRecord answered 400 InvalidRequest: Record text too long',
      'Bluesky refused the post: Record text too long',
    ],
    [
      'Bluesky com.atproto.repo.uploadBlob answered 413 BlobTooLarge: This file is too large',
      'Bluesky refused the upload of an image as too large: This file is too large',
    ],
    ['Bluesky answered 502', 'Bluesky had a problem on its side'],
    [
      'X answered 503; Herald will look for the post on twitter at 2031-05-01T09:01:00.000Z before sending again',
      'X had a problem on its side. Herald will look for the post on X at 2031-05-01 09:01 UTC before sending again',
    ],
    [
      'X answered 403: You are not allowed to create a Tweet with duplicate content.',
      'X refused the request: You are not allowed to create a Tweet with duplicate content.',
    ],
    [
      'mastodon.social answered 422 to posting the status: Validation failed: Text character limit of 500 exceeded',
      'mastodon.social refused posting the status: Validation failed: Text character limit of 500 exceeded',
    ],
    [
      'TikTok answered 403 (spam_risk_too_many_posts) to the video init: The user has posted too much today',
      'TikTok refused the video init: The user has posted too much today',
    ],
    [
      'Google answered 429 to the post; waiting until 2026-12-03T16:00:00.000Z as googlebusiness asks',
      'Google asked Herald to slow down with the post. Herald waits until 2026-12-03 16:00 UTC, as Google Business Profile asks',
    ],
    [
      'X answered 500 (gave up after 5 attempts)',
      'X had a problem on its side. Herald gave up after 5 tries',
    ],
    ['Instagram refused the request (400)', 'Instagram refused the request'],
    [
      'Pinterest failed while creating the pin (503); it may exist',
      'Pinterest failed while creating the pin; it may exist',
    ],
    ['LinkedIn throttled the post until midnight UTC', 'LinkedIn throttled the post until midnight UTC'],
  ])('says %j as a person reads it', (message, words) => {
    expect(networkErrorInWords(message)).toBe(words)
    expect(API_WORDS.exec(networkErrorInWords(message))?.[0]).toBe(undefined)
  })

  it.each([
    [
      'X answered 400: Your Tweet text "GET READY for our DELETE sale" is not allowed',
      'X refused the request: Your Tweet text "GET READY for our DELETE sale" is not allowed',
    ],
    [
      'Pinterest refused the pin: Invalid link https://cake.shop/menus.list',
      'Pinterest refused the pin: Invalid link https://cake.shop/menus.list',
    ],
    [
      'Vault read failed; nothing was sent (gave up after 5 attempts)',
      'Vault read failed. Nothing was sent. Herald gave up after 5 tries',
    ],
    [
      'X answered 503 after the post was sent; it may or may not have been created: Service Unavailable',
      'X gave no clear answer after the post was sent; it may or may not have been created: Service Unavailable',
    ],
    ['Access token for twitter is missing or invalid', 'X no longer accepts Herald’s sign-in'],
    [
      'Bluesky com.atproto.repo.createRecord timed out after the request was sent: it may or may not have taken effect',
      'Bluesky: the post timed out after the request was sent: it may or may not have taken effect',
    ],
    [
      'Herald could not look for the post on twitter (X answered 503); it looks again at 2026-12-03T16:05:00.000Z',
      'Herald could not look for the post on X (X had a problem on its side); it looks again at 2026-12-03 16:05 UTC',
    ],
    [
      'fosstodon.example.org answered 302 to posting the status',
      'fosstodon.example.org answered posting the status unexpectedly; it may have gone through',
    ],
    [
      'Instagram refused the content (error 100/2207026): The video format is not supported',
      'Instagram refused the content: The video format is not supported',
    ],
  ])('leaves a person’s words and addresses alone: %j', (message, words) => {
    expect(networkErrorInWords(message)).toBe(words)
  })

  it('keeps the network’s own sentence whole', () => {
    const youtube = 'The request cannot be completed because you have exceeded your quota.'
    expect(networkErrorInWords(youtube)).toBe(youtube)
  })

  it('keeps an instance’s host, which is the network a person chose, not an API name', () => {
    expect(
      networkErrorInWords('fosstodon.example.org answered 401 to the post: The access token was revoked'),
    ).toBe(
      'fosstodon.example.org no longer accepts Herald’s sign-in for the post: The access token was revoked',
    )
  })
})
