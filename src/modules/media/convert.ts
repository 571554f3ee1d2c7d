import { writeFile } from 'node:fs/promises'
import sharp from 'sharp'
import { MediaError } from '../../core/media-port.js'
import type { ImagePlan, OutputFormat } from './conversion-plan.js'
import { MAX_INPUT_PIXELS } from './probe-image.js'

/**
 * Carries out an image conversion plan with sharp: orient, scale, letterbox, re-encode, then step the
 * quality and finally the size down until the file fits the network's byte limit. The source file is
 * only read; the result is a new file.
 */

export interface ConvertedImage {
  path: string
  size: number
  width: number
  height: number
  format: OutputFormat
  contentType: string
  extension: string
}

const contentTypes: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
}
const extensions: Record<OutputFormat, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif' }

const WHITE = { r: 255, g: 255, b: 255, alpha: 1 }
const QUALITIES = [85, 75, 65, 55, 45]
/** Each size step keeps this share of the width and height once quality alone does not fit. */
const SHRINK = 0.8
const MAX_ATTEMPTS = 25

type Plan = Extract<ImagePlan, { action: 'convert' }>

async function encode(source: string, plan: Plan, format: OutputFormat, quality: number, scale: number) {
  const width = Math.max(1, Math.round(plan.canvasWidth * scale))
  const height = Math.max(1, Math.round(plan.canvasHeight * scale))
  let image = sharp(source, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(width, height, { fit: 'contain', background: WHITE, withoutEnlargement: false })
  if (format === 'jpeg') image = image.flatten({ background: WHITE }).jpeg({ quality })
  else if (format === 'png') image = image.png({ compressionLevel: 9, palette: quality < 85, quality })
  else if (format === 'webp') image = image.webp({ quality })
  else image = image.gif()
  const { data, info } = await image.toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

/** @throws {MediaError} `conversion_failed` when the image cannot be decoded or made small enough. */
export async function convertImage(source: string, plan: Plan, target: string): Promise<ConvertedImage> {
  let format = plan.format
  let quality = 0
  let scale = 1
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const result = await encode(source, plan, format, QUALITIES[quality]!, scale)
      if (result.data.length <= plan.maxBytes) {
        await writeFile(target, result.data)
        return {
          path: target,
          size: result.data.length,
          width: result.width,
          height: result.height,
          format,
          contentType: contentTypes[format],
          extension: extensions[format],
        }
      }
      // Lossless formats rarely shrink enough by tuning: switch to the network's lossy format first.
      if (format !== plan.fallback) {
        format = plan.fallback
        continue
      }
      const overshoot = result.data.length / plan.maxBytes
      if (overshoot > 1.5) {
        // Far over: bytes follow pixel count, so jump straight to about the right size.
        scale *= Math.sqrt(1 / overshoot) * 0.95
      } else if (quality < QUALITIES.length - 1 && format !== 'gif') quality++
      else {
        scale *= SHRINK
        quality = 1
      }
    }
  } catch (error) {
    throw new MediaError('conversion_failed', `The image could not be converted: ${(error as Error).message}`)
  }
  throw new MediaError('conversion_failed', `The image could not be made smaller than ${plan.maxBytes} bytes`)
}
