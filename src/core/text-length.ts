import twitterText from 'twitter-text'
import type { Network } from './networks.js'

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

export const graphemeCount = (text: string) => {
  let n = 0
  for (const _ of segmenter.segment(text)) n += 1
  return n
}

export const codePointCount = (text: string) => [...text].length

/** X's weighted length: links count 23, CJK and emoji weigh 2 (twitter-text's v3 configuration). */
export const twitterWeightedLength = (text: string) => twitterText.parseTweet(text).weightedLength

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Modifier}|\u200d|\ufe0f/u

/**
 * Threads' length: "Emojis are counted as the number of UTF-8 bytes" (reference D.2), every other
 * character (code point) as one. A family emoji joined with ZWJs costs every byte of its sequence.
 */
export function threadsLength(text: string): number {
  let length = 0
  for (const char of text) length += EMOJI.test(char) ? Buffer.byteLength(char, 'utf8') : 1
  return length
}

/** What every link weighs on Mastodon unless the instance says otherwise (`characters_reserved_per_url`). */
export const MASTODON_URL_WEIGHT = 23

/** `@user` or `@user@domain`, not inside a word or a path (Mastodon's own mention pattern). */
const MASTODON_MENTION = /(?<=^|[^/\w])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@[\w.-]+\w+)?/gi

/**
 * Mastodon's length (its StatusLengthValidator): grapheme clusters of the content warning followed by the
 * text, in which every link with a scheme weighs `urlWeight` and a mention of a remote account counts only
 * its `@user` part.
 */
export function mastodonLength(text: string, contentWarning = '', urlWeight = MASTODON_URL_WEIGHT): number {
  const spans: { start: number; end: number; replacement: string }[] = []
  for (const { indices } of twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false }))
    spans.push({ start: indices[0], end: indices[1], replacement: 'x'.repeat(urlWeight) })
  for (const match of text.matchAll(MASTODON_MENTION)) {
    const start = match.index
    const end = start + match[0].length
    if (spans.some((span) => start < span.end && end > span.start)) continue
    spans.push({ start, end, replacement: `@${match[1]}` })
  }
  spans.sort((a, b) => a.start - b.start)
  let countable = ''
  let at = 0
  for (const span of spans) {
    countable += text.slice(at, span.start) + span.replacement
    at = span.end
  }
  countable += text.slice(at)
  return graphemeCount(contentWarning + countable)
}

/** Length of a copy as the destination network counts it. */
export function lengthOn(network: Network, text: string): number {
  switch (network) {
    case 'twitter':
      return twitterWeightedLength(text)
    case 'bluesky':
      return graphemeCount(text)
    case 'linkedin':
      // LinkedIn counts commentary in UTF-16 code units [3p]; an emoji outside the BMP weighs 2.
      return text.length
    case 'threads':
      return threadsLength(text)
    case 'tiktok':
      // TikTok counts captions, titles and descriptions in UTF-16 code units (reference A.6).
      return text.length
    case 'mastodon':
      return mastodonLength(text)
    default:
      return codePointCount(text)
  }
}

/** Links as X detects them (with or without a scheme); a copy holding one carries the link surcharge. */
export const containsLink = (text: string) => twitterText.extractUrls(text).length > 0
