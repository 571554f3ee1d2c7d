import { describe, expect, it } from 'vitest'
import { findingInWords } from '../../src/core/finding-words.js'

/** A request field, a network's id or a code, as the API spells them. */
const API_WORDS =
  /\b(?:twitter|googlebusiness|linkedin|youtube|tiktok|pinterest|mastodon|bluesky|instagram|facebook) @|\b[a-z]+[A-Z][a-z]+|\b[A-Z]+_[A-Z_]+\b|^\S+\.\S+: /

describe('a preflight finding in words', () => {
  // Each finding is one preflight writes, in its own templates (src/core/post-plan.ts and the networks' rules).
  it.each([
    [
      'twitter @acme: the copy is 300 characters; twitter allows 280',
      'X @acme: the copy is 300 characters; X allows 280',
    ],
    [
      'targetAccounts[].thread: linkedin @acme-li: linkedin takes no threads (only twitter, bluesky, threads, mastodon)',
      'LinkedIn @acme-li: LinkedIn takes no threads (only X, Bluesky, Threads, Mastodon)',
    ],
    [
      'youtube @acme: the video needs a title (give youtube.title or a first line of copy)',
      'YouTube @acme: the video needs a title (give a YouTube title or a first line of copy)',
    ],
    [
      'tiktok @lemonCake: tiktok.privacyLevel SELF_ONLY is not offered to this creator; they allow Everyone',
      'TikTok @lemonCake: the “Who can watch” setting “Only me” is not offered to this creator; they allow Everyone',
    ],
    [
      'googlebusiness.event.startDate: googlebusiness @cake-shop: the start date is in the past',
      'Google Business Profile @cake-shop: the start date is in the past',
    ],
    [
      'mediaAltTexts: https://cdn.example.com/coverImage.mp4 is a video; alt text goes with images',
      'The alt text: https://cdn.example.com/coverImage.mp4 is a video; alt text goes with images',
    ],
    [
      'pinterest.coverImageUrl: pinterest @bakery: a cover image is for a video pin (one video)',
      'Pinterest @bakery: a cover image is for a video pin (one video)',
    ],
    [
      'Name at least one profile in targetAccounts or one network in platforms',
      'Choose at least one profile',
    ],
    ['threads @acme: threads allows 500', 'Threads @acme: Threads allows 500'],
    [
      'The copy holds a link: a one-off surcharge of 50 credits applies',
      'The copy holds a link: a one-off surcharge of 50 credits applies',
    ],
  ])('says %j as %j', (finding, words) => {
    expect(findingInWords(finding)).toBe(words)
    expect(API_WORDS.exec(findingInWords(finding).replace(/https?:\/\/\S+|@\S+/g, ''))?.[0]).toBe(undefined)
  })

  it('never rewrites a handle, an address, a file name or quoted copy', () => {
    expect(
      findingInWords(
        'tiktok @LEMON_CAKE: tiktok.privacyLevel SELF_ONLY is not offered; @LEMON_CAKE may choose SELF_ONLY',
      ),
    ).toBe(
      'TikTok @LEMON_CAKE: the “Who can watch” setting “Only me” is not offered; @LEMON_CAKE may choose “Only me”',
    )
    const fetched =
      'twitter @LemonCake: https://cdn.example.com/img?assetId=42&sizeHint=large could not be fetched now'
    expect(findingInWords(fetched)).toBe(
      'X @LemonCake: https://cdn.example.com/img?assetId=42&sizeHint=large could not be fetched now',
    )
    expect(findingInWords('bluesky @a.bsky.social: the alt text of image summerMenu (1).jpg is long')).toBe(
      'Bluesky @a.bsky.social: the alt text of image summerMenu (1).jpg is long',
    )
  })

  it('says the request’s names in words, but leaves the plain word “thread” as it is', () => {
    expect(
      findingInWords('googlebusiness.event.endTime: googlebusiness @shop: give both startTime and endTime'),
    ).toBe('Google Business Profile @shop: give both the start time and the end time')
    expect(
      findingInWords('thread: none of the profiles takes a thread; threads go to twitter, bluesky, threads'),
    ).toBe('The thread: none of the profiles takes a thread; threads go to X, Bluesky, Threads')
  })

  it('leaves the word “threads” alone where it is not the network', () => {
    expect(findingInWords('facebook @acme: facebook takes no threads; the thread is left out there')).toBe(
      'Facebook @acme: Facebook takes no threads; the thread is left out there',
    )
  })
})
