import { randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MediaError, type MediaKind, type MediaPort, type PreparedMedia } from '../../src/core/media-port.js'

/**
 * A minimal MediaPort for adapter tests: fetches with plain fetch (loopback allowed), keeps the bytes
 * unchanged and types them from the response header or the extension. The real pipeline (safe fetch,
 * probing, conversion) has its own tests; this keeps adapter tests about the adapter.
 */
export function createTestMediaPort(): MediaPort & { fetched: string[] } {
  const fetched: string[] = []
  return {
    fetched,
    async prepare(url) {
      fetched.push(url)
      let response: Response
      try {
        response = await fetch(url)
      } catch (error) {
        throw new MediaError('fetch_failed', `Could not fetch ${url}: ${(error as Error).message}`)
      }
      if (!response.ok) throw new MediaError('fetch_failed', `Fetching ${url} answered ${response.status}`)
      const bytes = Buffer.from(await response.arrayBuffer())
      const name = path.basename(new URL(url).pathname) || 'media'
      const contentType = (response.headers.get('content-type') ?? guessType(name)).split(';')[0]!.trim()
      const kind: MediaKind =
        contentType === 'image/gif' ? 'gif' : contentType.startsWith('video/') ? 'video' : 'image'
      const file = path.join(tmpdir(), `herald-test-media-${randomBytes(6).toString('hex')}`)
      await writeFile(file, bytes)
      const prepared: PreparedMedia = {
        path: file,
        contentType,
        size: bytes.length,
        kind,
        name,
        dispose: () => rm(file, { force: true }),
      }
      return prepared
    },
  }
}

function guessType(name: string): string {
  const ext = path.extname(name).toLowerCase()
  return (
    {
      '.png': 'image/png',
      '.gif': 'image/gif',
      '.webp': 'image/webp',
      '.mp4': 'video/mp4',
      '.mov': 'video/quicktime',
      '.webm': 'video/webm',
    }[ext] ?? 'image/jpeg'
  )
}
