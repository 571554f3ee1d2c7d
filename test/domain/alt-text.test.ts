import { describe, expect, it } from 'vitest'
import { altTextBlockers, altTextLength, altTextsFor, mediaItems } from '../../src/core/alt-text.js'

const cake = 'https://cdn.example.com/cake.jpg'
const shop = 'https://cdn.example.com/shop.png'
const clip = 'https://cdn.example.com/clip.mp4'

describe('alt text per image', () => {
  it('gives each media item its alt text by URL, in the items’ order, and none to a blank one', () => {
    expect(mediaItems([shop, cake], { [cake]: 'A lemon cake', [shop]: '  ' })).toEqual([
      { url: shop },
      { url: cake, altText: 'A lemon cake' },
    ])
    expect(altTextsFor([cake], { [cake]: 'A lemon cake', [shop]: 'The shop' })).toEqual({
      [cake]: 'A lemon cake',
    })
  })

  it('counts as each network counts: graphemes on Bluesky, UTF-16 units on LinkedIn, characters elsewhere', () => {
    const flag = '🇫🇷'
    expect(altTextLength('bluesky', flag)).toBe(1)
    expect(altTextLength('linkedin', flag)).toBe(4)
    expect(altTextLength('twitter', flag)).toBe(2)
  })

  it('blocks a key naming none of the media, a video’s key, and an alt text over a network’s ceiling', () => {
    const targets = [
      { who: 'twitter @acme', platform: 'twitter' as const, urls: [cake, clip] },
      { who: 'facebook @Cafe', platform: 'facebook' as const, urls: [cake] },
    ]
    expect(altTextBlockers({ [cake]: 'a'.repeat(1000) }, targets)).toEqual([])
    expect(altTextBlockers({ [cake]: 'a'.repeat(1001), [shop]: 'x', [clip]: 'y' }, targets)).toEqual([
      `mediaAltTexts: ${shop} is not one of the post's media`,
      `mediaAltTexts: ${clip} is a video; alt text goes with images`,
      'twitter @acme: the alt text of image cake.jpg is 1001 characters; twitter allows 1000',
    ])
    expect(altTextBlockers(undefined, targets)).toEqual([])
  })
})
