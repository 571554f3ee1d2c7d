import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { parseRange } from '../../modules/media/http-range.js'
import { StorageNotFoundError } from '../../modules/media/storage.js'
import { AppError } from '../../platform/errors.js'
import type { SecurityHeaders } from './security-headers.js'

/** A year: hosted files never change under their URL, so clients and CDNs may keep them. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable'

/**
 * A hosted file is never run as a page (CSP `sandbox`, nothing loaded) nor sniffed into one; the baseline's
 * frame and referrer headers are left off, as they say nothing of a file another site shows.
 */
const HOSTED_FILE_HEADERS: SecurityHeaders = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], sandbox: [] } },
  referrerPolicy: false,
  xFrameOptions: false,
}

/**
 * `GET|HEAD {PUBLIC_BASE_URL}/media/<id>/<name>`: the files Herald hosts, public (networks such as
 * Instagram fetch them without credentials) but unguessable (the id is 128 random bits). Answers with
 * the stored content type and length, a strong ETag (the SHA-256 of the bytes), single byte ranges
 * (206, or 416 when unsatisfiable) and immutable caching.
 */
export function registerMediaRoutes(server: FastifyInstance, app: AppContext): void {
  server.route<{ Params: { id: string; name: string } }>({
    method: ['GET', 'HEAD'],
    url: '/media/:id/:name',
    exposeHeadRoute: false,
    config: { helmet: HOSTED_FILE_HEADERS },
    async handler(request, reply) {
      const { id, name } = request.params
      const hosted = await app.media.findHosted(id, name)
      if (!hosted) throw new AppError('not_found', 'No such media')
      const { record } = hosted
      const etag = `"${record.sha256}"`
      reply
        .header('content-type', record.contentType)
        .header('accept-ranges', 'bytes')
        .header('cache-control', CACHE_CONTROL)
        .header('etag', etag)
        .header('last-modified', new Date(record.createdAt).toUTCString())
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send()

      const ifRange = request.headers['if-range']
      const range =
        ifRange && ifRange !== etag
          ? { kind: 'full' as const }
          : parseRange(request.headers.range, record.size)
      if (range.kind === 'unsatisfiable')
        return reply
          .code(416)
          .header('content-range', `bytes */${record.size}`)
          .header('content-length', '0')
          .send()
      const span = range.kind === 'partial' ? range : { start: 0, end: record.size - 1 }
      if (range.kind === 'partial')
        reply.code(206).header('content-range', `bytes ${span.start}-${span.end}/${record.size}`)
      reply.header('content-length', String(Math.max(0, span.end - span.start + 1)))
      if (request.method === 'HEAD' || record.size === 0) return reply.send()
      try {
        return reply.send(await hosted.open(range.kind === 'partial' ? span : undefined))
      } catch (error) {
        // A row whose file is gone (removed by hand from the bucket or folder) is simply not there.
        if (error instanceof StorageNotFoundError) throw new AppError('not_found', 'No such media')
        throw error
      }
    },
  })
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)
}
