import type { ImageFormat, VideoContainer } from './media-port.js'
import { looksLikeVideoUrl } from './media-url.js'
import type { Network } from './networks.js'

/** What each network accepts, as data; shared code never asks which network it is talking to. */
export interface NetworkRules {
  /** Characters per post as the network counts them (YouTube: the description). */
  textLimit: number
  /** A softer limit that only warns, with what happens past it. */
  textWarning?: { at: number; message: string }
  /** The item ceiling of an attachment set. */
  maxMedia: number
  /** The item floor of a set of several (Instagram 2, Threads 2); a single item is an ordinary post. */
  minSetMedia: number
  /** Whether video may be mixed into a set of several. */
  mixesVideoInSet: boolean
  requiresMedia: boolean
  requiresVideo: boolean
  /** Credits per post created for one profile. */
  price: number
  /** Hashtags and @mentions one caption may hold (Instagram: 30 and 20). */
  captionLimits?: { hashtags: number; mentions: number }
  /** The network refuses the same copy twice from one profile (X): preflight blocks it instead of warning. */
  refusesDuplicateCopy: boolean
  /** Present where a post carries one attachment at most: why a set of several is refused, for preflight. */
  noSets?: string
  /** Present where a post takes no video at all: why, for preflight. */
  noVideo?: string
  /** A lower limit for the copy of a video post (TikTok: a 2,200 caption, where photo posts take 4,000). */
  videoTextLimit?: number
}

export const networkRules: Record<Network, NetworkRules> = {
  twitter: {
    textLimit: 25_000,
    textWarning: { at: 280, message: 'X allows 280 on standard access (premium accounts up to 25,000)' },
    maxMedia: 4,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 5,
    refusesDuplicateCopy: true,
  },
  linkedin: {
    textLimit: 3_000,
    maxMedia: 20,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  facebook: {
    textLimit: 63_206,
    maxMedia: 10,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  instagram: {
    textLimit: 2_200,
    maxMedia: 10,
    minSetMedia: 2,
    mixesVideoInSet: true,
    requiresMedia: true,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
    captionLimits: { hashtags: 30, mentions: 20 },
  },
  threads: {
    textLimit: 500,
    maxMedia: 20,
    minSetMedia: 2,
    mixesVideoInSet: true,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  bluesky: {
    textLimit: 300,
    maxMedia: 4,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  youtube: {
    // The copy becomes the description, which is capped at 5,000 characters (spec §1 rule 5), never refused.
    textLimit: 100_000,
    textWarning: { at: 5_000, message: 'the video description keeps the first 5,000' },
    maxMedia: 1,
    minSetMedia: 1,
    mixesVideoInSet: false,
    requiresMedia: true,
    requiresVideo: true,
    price: 1,
    refusesDuplicateCopy: false,
  },
  // A local post's summary: 1,500 characters (Postiz's limit; Google's reference names none). Its media
  // items take a photo's URL and nothing else, and Google shows one photo per post.
  googlebusiness: {
    textLimit: 1_500,
    maxMedia: 1,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
    noSets: 'a Google Business Profile post shows one photo; carousels of several are not available there',
    noVideo: 'a Google Business Profile post takes a photo, not a video (Google accepts no video on posts)',
  },
  tiktok: {
    // A photo post's description takes 4,000 UTF-16 units, a video's caption 2,200 (reference A.6).
    textLimit: 4_000,
    videoTextLimit: 2_200,
    // One video, or 1 to 35 photos; never both, and never copy alone.
    maxMedia: 35,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: true,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  pinterest: {
    // The copy is the pin's description, 800 characters [spec: PinCreate]; a pin needs an image or a video,
    // and a carousel takes 2 to 5 images, never a video among them.
    textLimit: 800,
    maxMedia: 5,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: true,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  mastodon: {
    // Mastodon's default; each instance sets its own, read from its configuration and held per profile.
    textLimit: 500,
    maxMedia: 4,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
}

/** The character limits preflight reports in `limits` (X: its standard-access limit). */
export const reportedTextLimits: Record<Network, number> = {
  twitter: 280,
  linkedin: 3_000,
  facebook: 63_206,
  instagram: 2_200,
  threads: 500,
  bluesky: 300,
  youtube: 5_000,
  googlebusiness: 1_500,
  tiktok: 2_200,
  pinterest: 800,
  mastodon: 500,
}

export const LINK_SURCHARGE = 50

/** True when the URL looks like a video by its extension (the media pipeline's rule). */
export const looksLikeVideo = looksLikeVideoUrl

/** Hashtags in a caption as Instagram counts them: `#` then letters, digits or underscores, not inside a word. */
export const countHashtags = (text: string): number =>
  text.match(/(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_]+/gu)?.length ?? 0

/** @mentions in a caption: `@` then a handle (letters, digits, `.` and `_`), not inside a word or an e-mail address. */
export const countMentions = (text: string): number =>
  text.match(/(?<![\p{L}\p{N}_.@])@[A-Za-z0-9._]+/gu)?.length ?? 0

/**
 * What the targets still owe for their creation: a post that waited for approval was not charged when it
 * was created; its targets pay their network price when it is approved (or otherwise queued).
 */
export function unpaidPrice(
  targets: { platform: string; paid?: number | undefined; items?: string | null | undefined }[],
): number {
  return targets
    .filter((t) => t.paid === 0)
    .reduce(
      (sum, t) => sum + networkRules[t.platform as Network].price * (1 + itemsStillToSend(t.items).length),
      0,
    )
}

/**
 * What re-arming targets costs (DESIGN.md "Credits"): each failed target sent again costs its network's
 * price, whichever tool re-arms it (publish_post_now, reschedule_post, update_post back to scheduled); a
 * target already paid and never sent costs nothing more.
 */
export function resendPrice(
  targets: {
    platform: string
    status: string
    remote_id?: string | null
    unknown_outcome_at?: number | null
    items?: string | null | undefined
  }[],
): number {
  // A re-send pays for what is still to go out: the post when it is not live and each item of its thread or
  // first comment not yet live. What may be on the network already (the post of a target whose outcome is
  // unknown, an item whose call may have gone out) is not paid again: it is looked up before anything is
  // sent, and the charge the first attempt paid covers whichever send lands.
  return targets
    .filter((t) => t.status === 'failed')
    .reduce(
      (sum, t) =>
        sum +
        networkRules[t.platform as Network].price *
          ((t.remote_id || t.unknown_outcome_at ? 0 : 1) + itemsStillToSend(t.items).length),
      0,
    )
}

/** The items of a target not yet live on the network and not perhaps on it (a call that may have gone out). */
function itemsStillToSend(raw: string | null | undefined): { status: string }[] {
  if (!raw) return []
  try {
    const items = JSON.parse(raw) as {
      status: string
      startedAt?: number
      remoteId?: string
      releasedAt?: number
    }[]
    if (!Array.isArray(items)) return []
    const inDoubt = (i: (typeof items)[number]) =>
      i.startedAt !== undefined && !i.remoteId && i.releasedAt === undefined
    return items.filter((i) => i.status !== 'published' && !inDoubt(i))
  } catch {
    return []
  }
}

/**
 * What each network accepts of media, as data: the media pipeline reads this table and never asks which
 * network it is talking to. Sources are `reference/*.md` (official docs where they exist, the most conservative
 * third-party figure otherwise). Images are re-encoded with sharp, videos with ffmpeg (src/modules/media/video-plan.ts
 * decides what changes; a video too long for the network is refused, never cut).
 */

const MB = 1024 * 1024
const GB = 1024 * MB
const MBPS = 1_000_000

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
  /** Containers the network takes unchanged; a video in any other becomes MP4. */
  containers: readonly VideoContainer[]
  /** Video codec families taken unchanged (`h264`, `hevc`, `vp9`...); any other is re-encoded to H.264. */
  videoCodecs: readonly string[]
  /** Audio codec families taken unchanged (`aac`, `opus`...); any other is re-encoded to AAC. */
  audioCodecs: readonly string[]
  /** Bytes the network accepts. A larger source whose length is known is re-encoded to fit. */
  maxBytes: number
  /** The largest source Herald downloads to convert (at least `maxBytes`). */
  sourceMaxBytes: number
  /** Longer videos are refused, never cut. */
  maxDurationMs?: number
  /** Shorter videos are refused (Pinterest takes none under 4 seconds). */
  minDurationMs?: number
  /** The picture's longer and shorter side in pixels, whichever way up it is; larger is scaled down. */
  maxLongSide: number
  maxShortSide: number
  /** Frames per second; faster is re-encoded at this rate. */
  maxFrameRate: number
  /** Bits per second over the whole file, picture and sound; more is re-encoded under it. */
  maxBitrate: number
  aspect?: Omit<AspectRange, 'outside'>
  /**
   * For networks whose media type comes from the URL (X, spec §1 rule 2): a video is taken only behind a URL
   * with one of these extensions; behind any other it is refused, never converted and sent as an image.
   */
  onlyFromUrlExtensions?: readonly string[]
}

export interface NetworkMediaRules {
  /** The network's name in messages. */
  label: string
  /**
   * `upload`: Herald sends the bytes. `url`: the network fetches a public URL, so Herald hosts the file.
   * `images-by-url`: videos are uploaded, images fetched from Herald's hosted copy (TikTok's photo posts).
   * `url_or_inline`: the network fetches images from a public URL when Herald's media host is one the
   * internet reaches, and takes their bytes inline otherwise (Pinterest's base64 images); videos are uploaded.
   */
  delivery: 'upload' | 'url' | 'images-by-url' | 'url_or_inline'
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
    // Videos API: MP4, 75 KB to 500 MB, 3 s to 30 min [3p]; 256x144 to 4096x2304, 10 to 60 fps [3p].
    video: {
      containers: ['mp4'],
      videoCodecs: ['h264'],
      audioCodecs: ['aac'],
      maxBytes: 500 * MB,
      sourceMaxBytes: 1 * GB,
      maxDurationMs: 30 * 60_000,
      maxLongSide: 4096,
      maxShortSide: 2304,
      maxFrameRate: 60,
      maxBitrate: 30 * MBPS,
    },
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
    // Video 512 MB, H.264 High + AAC-LC, yuv420p, up to 1280x1024 and 60 fps, aspect 1:3 to 3:1 (docs.x.com).
    // Length (140 s standard) is left to the network: premium accounts post longer. 25 Mbps is X's upload advice [3p].
    video: {
      containers: ['mp4'],
      videoCodecs: ['h264'],
      audioCodecs: ['aac'],
      maxBytes: 512 * MB,
      sourceMaxBytes: 1 * GB,
      maxLongSide: 1280,
      maxShortSide: 1024,
      maxFrameRate: 60,
      maxBitrate: 25 * MBPS,
      aspect: { min: 1 / 3, max: 3, label: '1:3 to 3:1' },
      onlyFromUrlExtensions: ['.mp4'],
    },
  },
  facebook: {
    label: 'Facebook',
    delivery: 'url',
    imageFetchCap: 20 * MB,
    // Error subcode 1366046: "Photos should be smaller than 4 MB and saved as JPG, PNG".
    image: { accepts: ['jpeg', 'png'], convertTo: 'jpeg', maxBytes: 4 * MB, maxWidth: 4096, maxHeight: 4096 },
    // Page videos: MP4 or MOV, H.264/HEVC + AAC, up to 4096 px and 60 fps [3p]; 1 GB is Herald's ceiling.
    video: {
      containers: ['mp4', 'mov'],
      videoCodecs: ['h264', 'hevc'],
      audioCodecs: ['aac'],
      maxBytes: 1 * GB,
      sourceMaxBytes: 1 * GB,
      maxLongSide: 4096,
      maxShortSide: 2304,
      maxFrameRate: 60,
      maxBitrate: 30 * MBPS,
    },
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
    // Reels (and carousel videos, which have no separate published figures): H.264/HEVC + AAC, 23-60 fps,
    // 3 s to 15 min, width up to 1920, 300 MB is the most conservative published ceiling [3p]; 25 Mbps per
    // Meta's Reels spec [3p]. Herald sends MP4 (a MOV is remuxed), the container every Meta surface takes.
    video: {
      containers: ['mp4'],
      videoCodecs: ['h264', 'hevc'],
      audioCodecs: ['aac'],
      maxBytes: 300 * MB,
      sourceMaxBytes: 1 * GB,
      maxDurationMs: 15 * 60_000,
      maxLongSide: 1920,
      maxShortSide: 1080,
      maxFrameRate: 60,
      maxBitrate: 25 * MBPS,
    },
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
    // MOV/MP4 (moov first), H.264/HEVC + AAC, 23-60 fps, up to 1920 px wide, 5 min, 1 GB. Herald sends MP4.
    video: {
      containers: ['mp4'],
      videoCodecs: ['h264', 'hevc'],
      audioCodecs: ['aac'],
      maxBytes: 1 * GB,
      sourceMaxBytes: 1 * GB,
      maxDurationMs: 5 * 60_000,
      maxLongSide: 1920,
      maxShortSide: 1080,
      maxFrameRate: 60,
      maxBitrate: 25 * MBPS,
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
    // Video service: one MP4 up to 100 MB (300 MB per lexicon since 2026-08; not every service yet) and
    // 3 minutes [3p]; the service re-encodes to 1080p at most, so larger pictures are scaled here first.
    video: {
      containers: ['mp4'],
      videoCodecs: ['h264'],
      audioCodecs: ['aac'],
      maxBytes: 100 * MB,
      sourceMaxBytes: 1 * GB,
      maxDurationMs: 3 * 60_000,
      maxLongSide: 1920,
      maxShortSide: 1080,
      maxFrameRate: 60,
      maxBitrate: 25 * MBPS,
    },
  },
  youtube: {
    label: 'YouTube',
    delivery: 'upload',
    imageFetchCap: 20 * MB,
    // Spec §1 rule 2 and §8: a video of at most 256 MB; no still images.
    // YouTube takes MP4, MOV and WebM with H.264, HEVC, VP8/9 or AV1 as they are; 4K at 60 fps.
    video: {
      containers: ['mp4', 'mov', 'webm'],
      videoCodecs: ['h264', 'hevc', 'vp8', 'vp9', 'av1'],
      audioCodecs: ['aac', 'opus', 'vorbis', 'mp3'],
      maxBytes: 256 * MB,
      // Spec §1 YouTube rule 2: the download itself stops at 256 MB.
      sourceMaxBytes: 256 * MB,
      maxLongSide: 3840,
      maxShortSide: 2160,
      maxFrameRate: 60,
      maxBitrate: 85 * MBPS,
    },
  },
  googlebusiness: {
    label: 'Google Business Profile',
    // Google fetches the photo from `media[].sourceUrl`, the only field a post's media item takes.
    delivery: 'url',
    imageFetchCap: 20 * MB,
    // Business Profile photos: JPG or PNG, 10 KB to 5 MB, at least 250 px a side [3p: Google's photo
    // guidelines for profiles; the posts reference names no limits]. No video: a post takes photos only.
    image: { accepts: ['jpeg', 'png'], convertTo: 'jpeg', maxBytes: 5 * MB, maxWidth: 4096, maxHeight: 4096 },
  },
  tiktok: {
    label: 'TikTok',
    // Videos go up in chunks (FILE_UPLOAD); photos only by PULL_FROM_URL from a verified domain.
    delivery: 'images-by-url',
    imageFetchCap: 40 * MB,
    // Photos: JPEG or WebP (PNG is refused), at most 1080p, 20 MB each (reference A.6).
    image: {
      accepts: ['jpeg', 'webp'],
      convertTo: 'jpeg',
      maxBytes: 20 * MB,
      maxWidth: 1080,
      maxHeight: 1920,
    },
    // MP4, MOV or WebM; H.264, H.265, VP8 or VP9; 23 to 60 fps; 360 to 4096 px a side; 4 GB; the API
    // takes at most 10 minutes (the creator's own maximum is checked before the upload).
    video: {
      containers: ['mp4', 'mov', 'webm'],
      videoCodecs: ['h264', 'hevc', 'vp8', 'vp9'],
      audioCodecs: ['aac', 'mp3', 'opus', 'vorbis'],
      maxBytes: 4 * GB,
      sourceMaxBytes: 4 * GB,
      maxDurationMs: 10 * 60_000,
      maxLongSide: 4096,
      maxShortSide: 4096,
      maxFrameRate: 60,
      maxBitrate: 100 * MBPS,
    },
  },
  pinterest: {
    label: 'Pinterest',
    delivery: 'url_or_inline',
    imageFetchCap: 20 * MB,
    // Pins take BMP, JPEG, PNG, TIFF, GIF and WebP up to 20 MB by URL [3p], but inline (base64) only JPEG and
    // PNG [spec: ContentType]: Herald sends those two either way. Pinterest publishes no pixel ceiling;
    // 4096 wide and 8192 tall keeps an inline pin's body small and is past anything a feed shows.
    image: {
      accepts: ['jpeg', 'png'],
      convertTo: 'jpeg',
      maxBytes: 20 * MB,
      maxWidth: 4096,
      maxHeight: 8192,
    },
    // MP4, MOV or M4V up to 2 GB, 4 seconds to 15 minutes, between 1:2 and 1.91:1 [3p]; H.264/HEVC with AAC
    // is what every published guide names. 4K at 60 fps is Herald's ceiling (Pinterest names none).
    video: {
      containers: ['mp4', 'mov'],
      videoCodecs: ['h264', 'hevc'],
      audioCodecs: ['aac'],
      maxBytes: 2 * GB,
      sourceMaxBytes: 2 * GB,
      maxDurationMs: 15 * 60_000,
      minDurationMs: 4_000,
      maxLongSide: 3840,
      maxShortSide: 2160,
      maxFrameRate: 60,
      maxBitrate: 30 * MBPS,
      aspect: { min: 1 / 2, max: 1.91, label: '1:2 to 1.91:1' },
    },
  },
  mastodon: {
    label: 'Mastodon',
    delivery: 'upload',
    imageFetchCap: 20 * MB,
    // Mastodon's defaults (entities/Instance `configuration.media_attachments`): images up to 16 MiB and
    // 33,177,600 pixels, JPEG, PNG, GIF and WebP among the types it keeps; an instance may set less, which
    // the adapter checks against the instance's own figures before uploading.
    image: {
      accepts: ['jpeg', 'png', 'gif', 'webp'],
      convertTo: 'jpeg',
      maxBytes: 16 * MB,
      maxWidth: 4096,
      maxHeight: 4096,
      gifMaxBytes: 16 * MB,
    },
    // Videos up to 103,809,024 bytes (99 MiB), 8,294,400 pixels (3840x2160) and 120 fps; MP4, WebM and
    // QuickTime are taken as they are and transcoded by the instance itself.
    video: {
      containers: ['mp4', 'webm', 'mov'],
      videoCodecs: ['h264', 'hevc', 'vp8', 'vp9'],
      audioCodecs: ['aac', 'opus', 'vorbis', 'mp3'],
      maxBytes: 99 * MB,
      sourceMaxBytes: 1 * GB,
      maxLongSide: 3840,
      maxShortSide: 2160,
      maxFrameRate: 120,
      maxBitrate: 40 * MBPS,
    },
  },
}

/** The largest download any use on this network may make (the Content-Length ceiling). */
export function fetchCeiling(rules: NetworkMediaRules): number {
  return Math.max(rules.image ? rules.imageFetchCap : 0, rules.video?.sourceMaxBytes ?? 0)
}
