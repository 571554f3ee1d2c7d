import type { MediaItem } from './media-port.js'
import { looksLikeVideoUrl } from './media-url.js'
import type { Network } from './networks.js'
import { codePointCount, graphemeCount } from './text-length.js'

/**
 * Alt text per image: a map from an image's URL to the words a screen reader says for it, given once for the
 * whole post (docs/adr/0049-alt-text-keyed-by-media-url.md). Keyed by URL, so the same words follow the image
 * into the shared set, a profile's own set and a thread item, whatever their order. Pure.
 */

export type AltTexts = Record<string, string>

/** The most any network takes in one alt text (LinkedIn's 4,086), rounded up: longer is refused outright. */
export const MAX_ALT_TEXT = 5000

interface AltTextRule {
  /** Whether the network shows an image's alt text at all. */
  takes: boolean
  /** The network's documented ceiling, where it documents one. */
  max?: number
  /** How the ceiling is counted. */
  unit?: 'characters' | 'graphemes' | 'utf16'
}

/**
 * What each network does with alt text: X's media metadata takes 1,000 characters, Bluesky's app 2,000
 * graphemes, LinkedIn 4,086 (counted as UTF-16 units, as its API does), Instagram 1,000, Pinterest 500 (a pin's
 * one alt text, the first image's); Facebook's photos
 * (`alt_text_custom`) and Threads' `alt_text` name no ceiling. YouTube takes videos only; a Google Business
 * Profile post's media item has no field for one, nor has TikTok's photo post.
 */
export const altTextRules: Record<Network, AltTextRule> = {
  linkedin: { takes: true, max: 4086, unit: 'utf16' },
  twitter: { takes: true, max: 1000, unit: 'characters' },
  facebook: { takes: true },
  instagram: { takes: true, max: 1000, unit: 'characters' },
  threads: { takes: true },
  bluesky: { takes: true, max: 2000, unit: 'graphemes' },
  youtube: { takes: false },
  googlebusiness: { takes: false },
  tiktok: { takes: false },
  pinterest: { takes: true, max: 500, unit: 'characters' },
  // Each instance sets its own (`description_limit`); Mastodon's default is 1,500.
  mastodon: { takes: true, max: 1500, unit: 'characters' },
}

/** An alt text's length as `network` counts it. */
export function altTextLength(network: Network, text: string): number {
  const unit = altTextRules[network].unit
  if (unit === 'graphemes') return graphemeCount(text)
  if (unit === 'utf16') return text.length
  return codePointCount(text)
}

/** The alt texts that apply to `urls`: the given ones, blank entries left out. */
export function altTextsFor(urls: readonly string[], altTexts: AltTexts | undefined): AltTexts {
  const own: AltTexts = {}
  if (!altTexts) return own
  for (const url of urls) {
    const text = altTexts[url]
    if (text !== undefined && text.trim() !== '') own[url] = text
  }
  return own
}

/** The attachments as adapters receive them: each URL, in order, with its alt text when it has one. */
export function mediaItems(urls: readonly string[], altTexts: AltTexts | undefined): MediaItem[] {
  return urls.map((url) => {
    const text = altTexts?.[url]
    return text !== undefined && text.trim() !== '' ? { url, altText: text } : { url }
  })
}

/** Reads the stored JSON (null: none). */
export const readAltTexts = (raw: string | null | undefined): AltTexts =>
  raw ? (JSON.parse(raw) as AltTexts) : {}

/** The stored JSON of a map, null when it is empty. */
export const storedAltTexts = (altTexts: AltTexts): string | null =>
  Object.keys(altTexts).length > 0 ? JSON.stringify(altTexts) : null

const nameOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

/**
 * What stops a post's alt texts: one naming no image of the post, one given for a video, and one longer than
 * a network it goes to takes. `targets` are the post's profiles with every URL each sends (its set and its
 * thread items').
 */
export function altTextBlockers(
  altTexts: AltTexts | undefined,
  targets: ReadonlyArray<{ who: string; platform: Network; urls: readonly string[] }>,
): string[] {
  if (!altTexts || Object.keys(altTexts).length === 0 || targets.length === 0) return []
  const blockers: string[] = []
  const used = new Set(targets.flatMap((t) => t.urls))
  for (const url of Object.keys(altTexts)) {
    if (!used.has(url)) blockers.push(`mediaAltTexts: ${url} is not one of the post's media`)
    else if (looksLikeVideoUrl(url))
      blockers.push(`mediaAltTexts: ${url} is a video; alt text goes with images`)
  }
  for (const { who, platform, urls } of targets) {
    const rule = altTextRules[platform]
    if (rule.max === undefined) continue
    for (const url of new Set(urls)) {
      const text = altTexts[url]
      if (text === undefined) continue
      const length = altTextLength(platform, text)
      if (length > rule.max)
        blockers.push(
          `${who}: the alt text of image ${nameOf(url)} is ${length} ${rule.unit === 'graphemes' ? 'graphemes' : 'characters'}; ${platform} allows ${rule.max}`,
        )
    }
  }
  return blockers
}
