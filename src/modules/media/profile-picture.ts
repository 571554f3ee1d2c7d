import { open } from 'node:fs/promises'
import sharp from 'sharp'
import { MediaError } from '../../core/media-port.js'
import type { SafeFetcher } from '../../platform/egress/safe-fetch.js'
import { detectType } from './detect-type.js'
import type { MediaLibrary, StagedMedia } from './media-library.js'

/**
 * A profile's picture as Herald keeps it (docs/adr/0050-profile-pictures-kept-by-herald.md): fetched once
 * through the guarded fetcher, checked to be a PNG, JPEG, GIF or WebP by its bytes, re-encoded to a small
 * square JPEG (so nothing of the original file but its picture is served again), and staged as hosted media
 * the dashboard shows from Herald's own origin.
 */

/** Side of the kept square, in pixels: twice the largest avatar the dashboard draws. */
export const PICTURE_SIZE = 160
/** The most a network's picture may weigh before it is refused unread. */
const MAX_PICTURE_BYTES = 5 * 1024 * 1024
const FETCH_TIMEOUT_MS = 10_000

export async function hostProfilePicture(
  deps: { fetcher: SafeFetcher; library: MediaLibrary },
  url: string,
  options: { workspaceId: string; signal?: AbortSignal },
): Promise<StagedMedia> {
  const signal = options.signal ?? AbortSignal.timeout(FETCH_TIMEOUT_MS)
  const fetched = await deps.fetcher.fetchToFile(url, { maxBytes: MAX_PICTURE_BYTES, signal })
  try {
    const handle = await open(fetched.path, 'r')
    const head = Buffer.alloc(64)
    try {
      await handle.read(head, 0, head.length, 0)
    } finally {
      await handle.close()
    }
    if (detectType(head)?.kind !== 'image')
      throw new MediaError('unsupported_type', 'The profile picture is not a PNG, JPEG, GIF or WebP image')
    const bytes = await sharp(fetched.path, { limitInputPixels: 40_000_000 })
      .rotate()
      .resize(PICTURE_SIZE, PICTURE_SIZE, { fit: 'cover' })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82 })
      .toBuffer()
      .catch(() => {
        throw new MediaError('conversion_failed', 'The profile picture could not be read')
      })
    return await deps.library.stage({
      bytes,
      contentType: 'image/jpeg',
      name: 'avatar.jpg',
      width: PICTURE_SIZE,
      height: PICTURE_SIZE,
      workspaceId: options.workspaceId,
    })
  } finally {
    await fetched.dispose()
  }
}
