import sharp, { type Metadata } from 'sharp'
import type { ImageFormat } from '../../core/media-port.js'
import { MediaError } from '../../core/media-port.js'

/** Image facts read from the file's header by libvips; the pixels are not decoded. */
export interface ImageProbe {
  format: ImageFormat
  /** Width as displayed, after the EXIF orientation is applied. */
  width: number
  height: number
  /** True for an animated GIF or WebP (more than one frame). */
  animated: boolean
  hasAlpha: boolean
}

/** Largest image Herald decodes (a decompression bomb stops here): 100 megapixels. */
export const MAX_INPUT_PIXELS = 100_000_000

const formats: Record<string, ImageFormat> = {
  jpeg: 'jpeg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  heif: 'heif',
  avif: 'avif',
  tiff: 'tiff',
}

export async function probeImage(path: string): Promise<ImageProbe> {
  let metadata: Metadata
  try {
    metadata = await sharp(path, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()
  } catch (error) {
    throw new MediaError('unsupported_type', `The image could not be read: ${(error as Error).message}`)
  }
  const format = formats[metadata.format ?? '']
  if (!format || !metadata.width || !metadata.height)
    throw new MediaError('unsupported_type', `Unsupported image format: ${metadata.format ?? 'unknown'}`)
  if (metadata.width * metadata.height > MAX_INPUT_PIXELS)
    throw new MediaError(
      'too_large',
      `The image is ${metadata.width}x${metadata.height}, over ${MAX_INPUT_PIXELS / 1e6} megapixels`,
    )
  // EXIF orientations 5-8 rotate by 90 degrees: the displayed image is the stored one turned sideways.
  const sideways = (metadata.orientation ?? 1) >= 5
  return {
    format: metadata.format === 'heif' && metadata.compression === 'av1' ? 'avif' : format,
    width: sideways ? metadata.height : metadata.width,
    height: sideways ? metadata.width : metadata.height,
    animated: (metadata.pages ?? 1) > 1,
    hasAlpha: metadata.hasAlpha ?? false,
  }
}
