import { MediaError, type MediaKind } from '../../core/media-port.js'
import { isShortEligible } from '../../core/youtube-rules.js'
import { type DetectedType, detectType } from './detect-type.js'
import { type ImageProbe, probeImage } from './probe-image.js'
import { probeVideo, type VideoProbe } from './probe-video.js'

/** What Herald knows about one media file after fetching and probing it. */
export interface MediaInfo {
  kind: MediaKind
  contentType: string
  /** Bytes. */
  size: number
  width: number | undefined
  height: number | undefined
  /** Videos only, when the container states it. */
  durationMs: number | undefined
  /** Spec §1 YouTube rule 3: a video that is vertical or square and at most 3 minutes long. */
  isShortEligible: boolean
  /** `jpeg`, `png`, `gif`, `webp`... or `mp4`, `mov`, `webm`. */
  format: DetectedType['format']
  /** Videos only: the codec the container declares. */
  codec?: string | undefined
  /** Videos only (MP4/MOV): the audio codec, when there is an audio track. */
  audioCodec?: string | undefined
  /** Videos only (MP4/MOV): frames per second, when the sample table says. */
  frameRate?: number | undefined
  /** Images only. */
  animated?: boolean
  hasAlpha?: boolean
}

/** The {@link MediaInfo} of a probed video of `size` bytes. */
export function videoInfo(detected: DetectedType, size: number, video: VideoProbe): MediaInfo {
  return {
    kind: 'video',
    contentType: detected.contentType,
    size,
    format: detected.format,
    codec: video.codec,
    audioCodec: video.audioCodec,
    frameRate: video.frameRate,
    width: video.width,
    height: video.height,
    durationMs: video.durationMs,
    isShortEligible: isShortEligible(video),
  }
}

/**
 * Detects the type from the file's first bytes (the URL extension only breaks ties) and probes it.
 * @throws {MediaError} `unsupported_type` for content that is not an image or video Herald handles.
 */
export async function probeFile(input: {
  path: string
  head: Buffer
  size: number
  extension: string
}): Promise<MediaInfo> {
  const detected = detectType(input.head, input.extension)
  if (!detected) {
    const hint = input.extension ? ` (the URL says ${input.extension})` : ''
    throw new MediaError('unsupported_type', `The content is not a supported image or video${hint}`)
  }
  if (detected.kind === 'video')
    return videoInfo(
      detected,
      input.size,
      await probeVideo(input.path, detected.format as VideoProbe['container']),
    )
  const image: ImageProbe = await probeImage(input.path)
  return {
    kind: image.format === 'gif' ? 'gif' : 'image',
    contentType: detected.contentType,
    size: input.size,
    format: image.format,
    width: image.width,
    height: image.height,
    durationMs: undefined,
    isShortEligible: false,
    animated: image.animated,
    hasAlpha: image.hasAlpha,
  }
}
