import { MediaError } from '../../core/media-port.js'
import type { NetworkMediaRules } from '../../core/network-rules.js'
import type { MediaInfo } from './probe.js'
import { planVideo, type VideoPlan } from './video-plan.js'

/**
 * Decides, without touching a file, what a probed media file needs before a network takes it: nothing,
 * a re-encode (format, size, padding; for video see video-plan.ts), or a refusal with a reason a person
 * can act on. Pure.
 */

export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'gif'

export type MediaPlan = ImagePlan | VideoPlan

export type ImagePlan =
  | { action: 'keep' }
  | {
      action: 'convert'
      kind: 'image'
      /**
       * Format to write first: the source's when the network takes it and the scaled file should fit,
       * else the network's lossy format. The converter may still fall back to `fallback` to meet `maxBytes`.
       */
      format: OutputFormat
      fallback: OutputFormat
      /** Size of the image content after scaling. */
      width: number
      height: number
      /** The canvas: larger than the content when the image is letterboxed into an aspect range. */
      canvasWidth: number
      canvasHeight: number
      maxBytes: number
      /** Why it is converted, for logs. */
      reasons: string[]
    }

const ratioLabel = (width: number, height: number) => `${Math.round((width / height) * 100) / 100}:1`
const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`

/** @throws {MediaError} when the network cannot take this media in any form Herald can make. */
export function planMedia(info: MediaInfo, rules: NetworkMediaRules): MediaPlan {
  if (info.kind !== 'video') return planImage(info, rules)
  if (!rules.video) throw new MediaError('unsupported_type', `${rules.label} does not take video`)
  return planVideo(info, rules.video, rules.label)
}

function planImage(info: MediaInfo, rules: NetworkMediaRules): ImagePlan {
  const image = rules.image
  if (!image)
    throw new MediaError(
      'unsupported_type',
      `${rules.label} needs a video; this is an image (${info.contentType})`,
    )
  const width = info.width ?? 0
  const height = info.height ?? 0
  if (!width || !height) throw new MediaError('unsupported_type', 'The image has no dimensions')
  const reasons: string[] = []

  // Animated GIFs stay animated where the network takes them and they fit; otherwise they become stills.
  if (info.kind === 'gif' && info.animated) {
    const fits = width <= image.maxWidth && height <= image.maxHeight
    if (image.gifMaxBytes && info.size <= image.gifMaxBytes && fits) return { action: 'keep' }
    reasons.push('animated GIF flattened to its first frame')
  }

  let canvasWidth = width
  let canvasHeight = height
  const aspect = image.aspect
  if (aspect) {
    const ratio = width / height
    if (ratio < aspect.min || ratio > aspect.max) {
      if (aspect.outside === 'refuse')
        throw new MediaError(
          'unsupported_type',
          `${rules.label} takes images between ${aspect.label}; this one is ${ratioLabel(width, height)}`,
        )
      if (ratio < aspect.min) canvasWidth = Math.ceil(height * aspect.min)
      else canvasHeight = Math.ceil(width / aspect.max)
      reasons.push(`padded from ${ratioLabel(width, height)} into ${aspect.label}`)
    }
  }

  const scale = Math.min(1, image.maxWidth / canvasWidth, image.maxHeight / canvasHeight)
  if (scale < 1) reasons.push(`scaled down to fit ${image.maxWidth}x${image.maxHeight}`)
  const [scaledCanvasWidth, scaledCanvasHeight] = keepInRange(
    Math.max(1, Math.floor(canvasWidth * scale)),
    Math.max(1, Math.floor(canvasHeight * scale)),
    image.aspect,
  )

  const sourceFormat = info.format as OutputFormat
  const keepsFormat =
    (image.accepts as readonly string[]).includes(info.format) &&
    !reasons.some((r) => r.startsWith('animated'))
  if (!keepsFormat) reasons.push(`${info.format} is not accepted`)
  if (info.size > image.maxBytes) reasons.push(`${mb(info.size)} is over ${mb(image.maxBytes)}`)
  if (reasons.length === 0) return { action: 'keep' }

  return {
    action: 'convert',
    kind: 'image',
    format: keepsFormat && info.size * scale * scale <= image.maxBytes * 0.8 ? sourceFormat : image.convertTo,
    fallback: image.convertTo,
    width: Math.max(1, Math.min(scaledCanvasWidth, Math.round(width * scale))),
    height: Math.max(1, Math.min(scaledCanvasHeight, Math.round(height * scale))),
    canvasWidth: scaledCanvasWidth,
    canvasHeight: scaledCanvasHeight,
    maxBytes: image.maxBytes,
    reasons,
  }
}

/** Rounding a scaled canvas can nudge it a hair outside the range; nudge it back by shrinking one side. */
function keepInRange(
  width: number,
  height: number,
  aspect: { min: number; max: number } | undefined,
): [number, number] {
  if (!aspect) return [width, height]
  if (width / height < aspect.min) return [width, Math.max(1, Math.floor(width / aspect.min))]
  if (width / height > aspect.max) return [Math.max(1, Math.floor(height * aspect.max)), height]
  return [width, height]
}
