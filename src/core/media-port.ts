import type { Network } from './networks.js'

/** The media pipeline as adapters see it: a URL in, a local file ready for one network out. */

export type MediaKind = 'image' | 'gif' | 'video'

/**
 * One attachment as an adapter receives it: its URL and, for an image, the words a screen reader says for it
 * (absent when none was given). Adapters send `altText` where their network takes one.
 */
export interface MediaItem {
  url: string
  altText?: string
}

/** The image formats Herald recognises, and the video containers. */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'heif' | 'tiff'
export type VideoContainer = 'mp4' | 'mov' | 'webm'

export interface PreparedMedia {
  /** A local temporary file holding the bytes, converted to the network's formats and limits. */
  path: string
  contentType: string
  size: number
  kind: MediaKind
  width?: number
  height?: number
  durationMs?: number
  /** The file name to present to the network (derived from the URL). */
  name: string
  /**
   * A URL serving exactly these bytes without credentials, for networks that fetch media by URL (Instagram,
   * Threads, Facebook): `{PUBLIC_BASE_URL}/media/...`, or a presigned GET of the object when storage is S3.
   */
  publicUrl?: string
  /** Removes the temporary file. Safe to call twice. */
  dispose(): Promise<void>
}

export const mediaErrorReasons = [
  'blocked_address',
  'bad_url',
  'too_large',
  'unsupported_type',
  'fetch_failed',
  'timeout',
  'conversion_failed',
] as const

export type MediaErrorReason = (typeof mediaErrorReasons)[number]

/** A media URL that cannot be used, with a reason a person can act on. */
export class MediaError extends Error {
  override name = 'MediaError'
  constructor(
    readonly reason: MediaErrorReason,
    message: string,
  ) {
    super(message)
  }
}

export interface MediaPort {
  /**
   * Fetches `url` safely, probes it and converts it for `network`. Throws {@link MediaError}. A hosted copy
   * made for `targetId` stays hosted while that target is pending (the network may fetch it later).
   */
  prepare(
    url: string,
    options: { network: Network; signal?: AbortSignal; targetId?: string },
  ): Promise<PreparedMedia>
  /**
   * The title, description and image of a web page, read through the guarded client (LinkedIn article
   * cards). Absent where the pipeline offers no page reading.
   */
  linkPreview?(url: string, options: { signal?: AbortSignal }): Promise<LinkPreview>
  /**
   * A JPEG of a prepared video's first frame (a video pin's cover), beside the video's file; its `dispose`
   * removes only the frame. Absent where the pipeline has no ffmpeg seam. Throws {@link MediaError}.
   */
  firstFrame?(video: PreparedMedia, options: { signal?: AbortSignal }): Promise<PreparedMedia>
}

export interface LinkPreview {
  title?: string
  description?: string
  imageUrl?: string
}
