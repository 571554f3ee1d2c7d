import type { Network } from '../domain/networks.js'
import type { ImageFormat, VideoContainer } from './detect-type.js'

/**
 * What each network accepts, as data: shared code reads this table and never asks which network it is
 * talking to. Sources are `reference/*.md` (official docs where they exist, the most conservative
 * third-party figure otherwise). Videos are never transcoded, only checked; images are re-encoded.
 */

const MB = 1024 * 1024

export interface AspectRange {
  /** Narrowest width:height allowed (0.8 is 4:5). */
  min: number
  /** Widest width:height allowed (1.91 is 1.91:1). */
  max: number
  /** How a person would say the range. */
  label: string
  /** Images outside the range: letterbox them on a white background, or refuse them. Videos are always refused. */
  outside: 'pad' | 'refuse'
}

export interface ImageRules {
  /** Formats the network takes unchanged. */
  accepts: readonly ImageFormat[]
  /** What any other format (or an over-size file) is re-encoded to. */
  convertTo: 'jpeg' | 'png'
  /** Bytes per image the network accepts. */
  maxBytes: number
  maxWidth: number
  maxHeight: number
  aspect?: AspectRange
  /** Animated GIFs are kept (not flattened to a still) up to this size; absent: GIFs become stills. */
  gifMaxBytes?: number
}

export interface VideoRules {
  containers: readonly VideoContainer[]
  maxBytes: number
  maxDurationMs?: number
  aspect?: Omit<AspectRange, 'outside'>
  /** Codecs taken, by RFC 6381 prefix (`avc1` is H.264); absent: any. A file whose codec is unknown passes. */
  codecs?: { prefixes: readonly string[]; label: string }
}

export interface NetworkMediaRules {
  /** The network's name in messages. */
  label: string
  /** `upload`: Herald sends the bytes. `url`: the network fetches a public URL, so Herald hosts the file. */
  delivery: 'upload' | 'url'
  /** The largest source image Herald fetches before re-encoding it to fit. */
  imageFetchCap: number
  /** Absent: the network takes no still images. */
  image?: ImageRules
  /** Absent: the network takes no video. */
  video?: VideoRules
}

export const networkMediaRules: Readonly<Record<Network, NetworkMediaRules>> = {
  linkedin: {
    label: 'LinkedIn',
    delivery: 'upload',
    imageFetchCap: 36 * MB,
    // Images API: JPG, PNG, GIF under 36,152,320 pixels (6000x6000 fits); 5 MB per image [3p].
    image: {
      accepts: ['jpeg', 'png', 'gif'],
      convertTo: 'jpeg',
      maxBytes: 5 * MB,
      maxWidth: 6000,
      maxHeight: 6000,
      gifMaxBytes: 5 * MB,
    },
    video: { containers: ['mp4'], maxBytes: 500 * MB, maxDurationMs: 30 * 60_000 },
  },
  twitter: {
    label: 'X',
    delivery: 'upload',
    imageFetchCap: 20 * MB,
    // Spec §8: JPEG, PNG, GIF, WebP; docs.x.com: images 5 MB, GIF 15 MB.
    image: {
      accepts: ['jpeg', 'png', 'gif', 'webp'],
      convertTo: 'jpeg',
      maxBytes: 5 * MB,
      maxWidth: 4096,
      maxHeight: 4096,
      gifMaxBytes: 15 * MB,
    },
    // Video 512 MB, aspect 1:3 to 3:1. Length (140 s standard) is left to the network: premium accounts post longer.
    video: { containers: ['mp4'], maxBytes: 512 * MB, aspect: { min: 1 / 3, max: 3, label: '1:3 to 3:1' } },
  },
  facebook: {
    label: 'Facebook',
    delivery: 'url',
    imageFetchCap: 20 * MB,
    // Error subcode 1366046: "Photos should be smaller than 4 MB and saved as JPG, PNG".
    image: { accepts: ['jpeg', 'png'], convertTo: 'jpeg', maxBytes: 4 * MB, maxWidth: 4096, maxHeight: 4096 },
    video: { containers: ['mp4', 'mov'], maxBytes: 1024 * MB },
  },
  instagram: {
    label: 'Instagram',
    delivery: 'url',
    imageFetchCap: 20 * MB,
    // JPEG only, under 8 MiB (error 2207004), 4:5 to 1.91:1 (2207009), width up to 1440.
    image: {
      accepts: ['jpeg'],
      convertTo: 'jpeg',
      maxBytes: 8 * MB,
      maxWidth: 1440,
      maxHeight: 1800,
      aspect: { min: 4 / 5, max: 1.91, label: '4:5 to 1.91:1', outside: 'pad' },
    },
    // Reels: MOV/MP4, 3 s to 15 min, 300 MB is the most conservative published ceiling.
    video: { containers: ['mp4', 'mov'], maxBytes: 300 * MB, maxDurationMs: 15 * 60_000 },
  },
  threads: {
    label: 'Threads',
    delivery: 'url',
    imageFetchCap: 20 * MB,
    // JPEG/PNG up to 8 MB, width up to 1440, aspect ratio at most 10:1.
    image: {
      accepts: ['jpeg', 'png'],
      convertTo: 'jpeg',
      maxBytes: 8 * MB,
      maxWidth: 1440,
      maxHeight: 4096,
      aspect: { min: 1 / 10, max: 10, label: '1:10 to 10:1', outside: 'pad' },
    },
    // MOV/MP4, H.264 or HEVC, up to 5 minutes and 1 GB.
    video: {
      containers: ['mp4', 'mov'],
      maxBytes: 1024 * MB,
      maxDurationMs: 5 * 60_000,
      codecs: { prefixes: ['avc1', 'avc3', 'hvc1', 'hev1'], label: 'H.264 or HEVC' },
    },
  },
  bluesky: {
    label: 'Bluesky',
    delivery: 'upload',
    imageFetchCap: 20 * MB,
    // 1,000,000 bytes per image: the lexicon allows 2 MB since 2026-04, but not every PDS/AppView does yet.
    image: {
      accepts: ['jpeg', 'png', 'webp'],
      convertTo: 'jpeg',
      maxBytes: 1_000_000,
      maxWidth: 2000,
      maxHeight: 2000,
    },
    video: { containers: ['mp4'], maxBytes: 100 * MB },
  },
  youtube: {
    label: 'YouTube',
    delivery: 'upload',
    imageFetchCap: 20 * MB,
    // Spec §1 rule 2 and §8: a video of at most 256 MB; no still images.
    video: { containers: ['mp4', 'mov', 'webm'], maxBytes: 256 * MB },
  },
}

/** The largest download any use on this network may make (the Content-Length ceiling). */
export function fetchCeiling(rules: NetworkMediaRules): number {
  return Math.max(rules.image ? rules.imageFetchCap : 0, rules.video?.maxBytes ?? 0)
}
