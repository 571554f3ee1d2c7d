import sharp from 'sharp'

/** How generate_image makes pictures: one interface, an HTTP image API or the offline card renderer. */

export const aspectRatios = ['1:1', '4:5', '9:16', '16:9'] as const
export type AspectRatio = (typeof aspectRatios)[number]

/** Pixel size of the delivered image for each aspect ratio (sizes every network takes as they are). */
export const imageSizes: Readonly<Record<AspectRatio, { width: number; height: number }>> = {
  '1:1': { width: 1080, height: 1080 },
  '4:5': { width: 1080, height: 1350 },
  '9:16': { width: 1080, height: 1920 },
  '16:9': { width: 1920, height: 1080 },
}

export interface GeneratedImage {
  /** PNG bytes at exactly the size of {@link imageSizes} for the requested ratio. */
  bytes: Buffer
  width: number
  height: number
  contentType: 'image/png'
}

export interface ImageProvider {
  /** `image-api` or `offline-card`, for logs. */
  readonly name: string
  /** @throws {ImageGenerationError} when no image could be made; nothing was stored or charged. */
  generate(input: { prompt: string; aspectRatio: AspectRatio; signal?: AbortSignal }): Promise<GeneratedImage>
}

/** A generation that failed. `refused`: the provider rejected the prompt (the caller can change it). */
export class ImageGenerationError extends Error {
  override name = 'ImageGenerationError'
  constructor(
    readonly refused: boolean,
    message: string,
  ) {
    super(message)
  }
}

/** Crops and scales any image to the exact size for `aspectRatio`, as PNG. */
export async function toDeliveredPng(input: Buffer, aspectRatio: AspectRatio): Promise<GeneratedImage> {
  const { width, height } = imageSizes[aspectRatio]
  try {
    const bytes = await sharp(input, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize(width, height, { fit: 'cover', position: 'attention' })
      .png()
      .toBuffer()
    return { bytes, width, height, contentType: 'image/png' }
  } catch (error) {
    throw new ImageGenerationError(
      false,
      `The generated image could not be read: ${(error as Error).message}`,
    )
  }
}
