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
    default:
      return codePointCount(text)
  }
}

/** Links as X detects them (with or without a scheme); a copy holding one carries the link surcharge. */
export const containsLink = (text: string) => twitterText.extractUrls(text).length > 0
