import { createWriteStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { createTempDir } from '../../platform/temp-files.js'
import { type Demuxer, demuxerFor, runFfmpeg } from './convert-video.js'
import { frameArguments } from './first-frame.js'
import type { MediaService } from './media-service.js'

/**
 * A poster frame for a video Herald hosts: a small JPEG of a representative picture near its start (ffmpeg's
 * `thumbnail` filter over the first frames, so a black first frame is passed over), for Compose's media tray
 * and previews. Made on first request from the stored file, under the same limits as a conversion (local
 * files only, the one demuxer the bytes name, a CPU, memory and wall-clock limit), and kept in memory for the
 * most recent videos. Never fetches anything: only files Herald already holds.
 */

/** Longest side of a poster, in pixels: a tray thumbnail and a preview card need no more. */
export const POSTER_SIZE = 480
const KEPT_POSTERS = 64
const TIMEOUT_MS = 15_000

export interface PosterFrames {
  /** The poster of the hosted video `id`/`name` when `workspaceId` may see it; undefined otherwise. */
  posterOf(id: string, name: string, workspaceId: string): Promise<Buffer | undefined>
}

/** ffmpeg's arguments for one JPEG poster of `source` (read with `demuxer`) written to `target`. */
export const posterArguments = (source: string, target: string, demuxer: Demuxer) =>
  frameArguments(source, target, demuxer, {
    filter: `thumbnail=24,scale='min(${POSTER_SIZE},iw)':'min(${POSTER_SIZE},ih)':force_original_aspect_ratio=decrease`,
    quality: 5,
  })

export function createPosterFrames(media: MediaService): PosterFrames {
  const kept = new Map<string, Buffer>()
  const keep = (key: string, poster: Buffer) => {
    kept.set(key, poster)
    if (kept.size > KEPT_POSTERS) kept.delete(kept.keys().next().value as string)
  }
  return {
    async posterOf(id, name, workspaceId) {
      const hosted = await media.findHosted(id, name)
      const { record } = hosted ?? {}
      if (!hosted || !record?.contentType.startsWith('video/')) return undefined
      if (record.workspaceId !== null && record.workspaceId !== workspaceId) return undefined
      const key = `${id}/${name}`
      const known = kept.get(key)
      if (known) return known
      const ffmpeg = await media.ffmpeg()
      if (!ffmpeg) return undefined
      const dir = await createTempDir()
      try {
        const source = dir.file('source')
        await pipeline(await hosted.open(), createWriteStream(source))
        const demuxer = await demuxerFor(source)
        if (!demuxer) return undefined
        const target = dir.file('poster.jpg')
        await runFfmpeg(ffmpeg.path, posterArguments(source, target, demuxer), {
          ffmpeg: ffmpeg.path,
          timeoutMs: TIMEOUT_MS,
        })
        const poster = await readFile(target)
        if (poster.length === 0) return undefined
        keep(key, poster)
        return poster
      } catch {
        // A frame that cannot be made (a file ffmpeg cannot read, a timeout) is none: the tray names the video.
        return undefined
      } finally {
        await dir.dispose()
      }
    },
  }
}
