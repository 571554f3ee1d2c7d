import type { Network } from '../../core/networks.js'
import { lengthOn } from '../../core/text-length.js'

/**
 * How each network shows a post in its feed, as data for Compose's preview: where long copy is cut (counted
 * the way Herald counts length on that network) and the shape images are cropped to. These are display
 * approximations of the feeds, not posting rules: what may be posted is decided by preflight_post alone.
 */
export interface PreviewRule {
  /** The feed shows copy up to `at` characters, then `more` in place of the rest. */
  cut: { at: number; more: string }
  /** One image keeps its own aspect ratio (width / height), held between `min` and `max`. */
  single: { min: number; max: number }
  /** Several items: side by side in a grid, or one at a time in a carousel, each cropped to `aspect`. */
  several: { layout: 'grid' | 'carousel'; aspect: number }
}

export const previewRules: Record<Network, PreviewRule> = {
  // X: 280 weighted on standard access; one image shows 16:9, two to four share a grid.
  twitter: {
    cut: { at: 280, more: 'Show more' },
    single: { min: 16 / 9, max: 16 / 9 },
    several: { layout: 'grid', aspect: 1 },
  },
  // LinkedIn folds the commentary after about 210 characters behind "…see more".
  linkedin: {
    cut: { at: 210, more: '…see more' },
    single: { min: 4 / 5, max: 1.91 },
    several: { layout: 'grid', aspect: 1 },
  },
  facebook: {
    cut: { at: 480, more: '… See more' },
    single: { min: 4 / 5, max: 1.91 },
    several: { layout: 'grid', aspect: 1 },
  },
  // Instagram: about 125 characters before "… more"; feed images from 4:5 to 1.91:1; sets swipe in order.
  instagram: {
    cut: { at: 125, more: '… more' },
    single: { min: 4 / 5, max: 1.91 },
    several: { layout: 'carousel', aspect: 4 / 5 },
  },
  threads: {
    cut: { at: 500, more: '…' },
    single: { min: 3 / 4, max: 1.91 },
    several: { layout: 'carousel', aspect: 3 / 4 },
  },
  bluesky: {
    cut: { at: 300, more: '…' },
    single: { min: 3 / 4, max: 2 },
    several: { layout: 'grid', aspect: 1 },
  },
  // YouTube Shorts: a vertical 9:16 video; the description shows its first line or so behind "…more".
  youtube: {
    cut: { at: 100, more: '…more' },
    single: { min: 9 / 16, max: 9 / 16 },
    several: { layout: 'carousel', aspect: 9 / 16 },
  },
  // A Business Profile post in Search and Maps: the photo on top at 4:3, the summary folded after about
  // 250 characters behind "More", the button under it. One photo only (sets are refused).
  googlebusiness: {
    cut: { at: 250, more: '… More' },
    single: { min: 4 / 3, max: 4 / 3 },
    several: { layout: 'grid', aspect: 4 / 3 },
  },
  // TikTok: a full-screen 9:16 frame, the caption over its foot, cut after a couple of lines behind
  // "more"; photo posts swipe one photo at a time in the same frame.
  tiktok: {
    cut: { at: 80, more: '… more' },
    single: { min: 9 / 16, max: 9 / 16 },
    several: { layout: 'carousel', aspect: 9 / 16 },
  },
  // Pinterest: a pin is its picture (2:3 is the shape Pinterest recommends, long pins are cut near 1:2.1),
  // the title under it and the description folded after a line or two; a carousel swipes in order.
  pinterest: {
    cut: { at: 100, more: '…more' },
    single: { min: 1 / 2.1, max: 1.91 },
    several: { layout: 'carousel', aspect: 2 / 3 },
  },
  // Mastodon's web app shows a toot whole (its instance's limit is the cut); one image between 3:4 and
  // 16:9, two to four in a grid.
  mastodon: {
    cut: { at: 500, more: '…' },
    single: { min: 3 / 4, max: 16 / 9 },
    several: { layout: 'grid', aspect: 16 / 9 },
  },
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/**
 * The part of `copy` the feed shows before its "see more" cut: the longest run of whole graphemes whose
 * length on the network (Herald's own count) stays within the cut, without trailing spaces.
 */
export function cutCopy(network: Network, copy: string): { shown: string; cut: boolean } {
  const { at } = previewRules[network].cut
  if (lengthOn(network, copy) <= at) return { shown: copy, cut: false }
  const ends = [0]
  for (const { index, segment } of segmenter.segment(copy)) ends.push(index + segment.length)
  let low = 0
  let high = ends.length - 1
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (lengthOn(network, copy.slice(0, ends[middle])) <= at) low = middle
    else high = middle - 1
  }
  return { shown: copy.slice(0, ends[low]).trimEnd(), cut: true }
}

/** The crop, as width / height, for one of `count` items: a lone image keeps its own ratio (square when unknown) within the range. */
export function cropAspect(network: Network, count: number, imageAspect?: number): number {
  const rule = previewRules[network]
  if (count > 1) return rule.several.aspect
  const { min, max } = rule.single
  return Math.min(max, Math.max(min, imageAspect ?? 1))
}
