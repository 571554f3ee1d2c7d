import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { tagListLength } from '../../core/youtube-rules.js'
import { KEPT_MEDIA_MAX_BYTES } from '../web/kept-media.js'
import { authorize, checkParts } from './api-routes.js'
import {
  applySimpleFault,
  bearerToken,
  dropConnection,
  partsOf,
  queryOf,
  requestOrigin,
  sendGoogleError,
} from './http.js'
import type { FaultOp, UploadSession } from './model.js'
import type { YouTubeSandbox } from './state.js'

/**
 * videos.insert as a resumable upload: `POST /upload/youtube/v3/videos?uploadType=resumable&part=...`
 * checks the token, the quota, the channel's daily ceiling and the metadata, charges `uploadUnits` and
 * opens a session; `PUT` on the session URI streams the bytes (counted and hashed as they arrive, and
 * held only for a file small enough for the web pages to play), answers a status query (`Content-Range: bytes *\/N`) with 308 and the Range held, and completes the
 * video once the declared length has arrived.
 */

const INSERT_PARTS = new Set(['snippet', 'status', 'recordingDetails', 'localizations'])
/** Categories a video may be assigned to in the US (videoCategories.list, assignable ones). */
const ASSIGNABLE_CATEGORIES = new Set([
  '1',
  '2',
  '10',
  '15',
  '17',
  '19',
  '20',
  '22',
  '23',
  '24',
  '25',
  '26',
  '27',
  '28',
  '29',
])
const SNIPPET_KEYS = new Set([
  'title',
  'description',
  'tags',
  'categoryId',
  'defaultLanguage',
  'defaultAudioLanguage',
])
const STATUS_KEYS = new Set([
  'privacyStatus',
  'selfDeclaredMadeForKids',
  'embeddable',
  'license',
  'publicStatsViewable',
  'publishAt',
  'containsSyntheticMedia',
])
const TOP_KEYS = new Set(['kind', 'snippet', 'status', 'recordingDetails', 'localizations'])

/** What is wrong with a videos.insert body, as the Google reason to answer; undefined when fine. */
function metadataProblem(
  body: unknown,
): { reason: Parameters<typeof sendGoogleError>[1]; message?: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { reason: 'invalidVideoMetadata' }
  const record = body as Record<string, unknown>
  const unknownIn = (object: unknown, allowed: Set<string>, path: string) => {
    if (typeof object !== 'object' || object === null) return undefined
    const key = Object.keys(object).find((name) => !allowed.has(name))
    return key
      ? `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`
      : undefined
  }
  const unknown =
    unknownIn(record, TOP_KEYS, 'video') ??
    unknownIn(record.snippet, SNIPPET_KEYS, 'video.snippet') ??
    unknownIn(record.status, STATUS_KEYS, 'video.status')
  if (unknown) return { reason: 'invalidVideoMetadata', message: unknown }
  const snippet = (record.snippet ?? {}) as Record<string, unknown>
  const status = (record.status ?? {}) as Record<string, unknown>
  const title = snippet.title
  if (typeof title !== 'string' || title.trim() === '' || [...title].length > 100 || /[<>]/.test(title))
    return { reason: 'invalidTitle' }
  const description = snippet.description
  if (
    description !== undefined &&
    (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description))
  )
    return { reason: 'invalidDescription' }
  const tags = snippet.tags
  if (
    tags !== undefined &&
    (!Array.isArray(tags) ||
      tags.some((tag) => typeof tag !== 'string' || /[<>]/.test(tag)) ||
      tagListLength(tags as string[]) > 500)
  )
    return { reason: 'invalidTags' }
  if (snippet.categoryId !== undefined && !ASSIGNABLE_CATEGORIES.has(String(snippet.categoryId)))
    return { reason: 'invalidCategoryId' }
  if (
    status.privacyStatus !== undefined &&
    !['public', 'unlisted', 'private'].includes(String(status.privacyStatus))
  )
    return { reason: 'invalidPrivacyStatus' }
  if (status.selfDeclaredMadeForKids !== undefined && typeof status.selfDeclaredMadeForKids !== 'boolean')
    return { reason: 'invalidVideoMetadata', message: 'status.selfDeclaredMadeForKids must be a boolean.' }
  return undefined
}

/** How long an upload session URI stays usable (Google: "about a week"). */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000

/** `Range` header value for what a session holds (`bytes=0-N`), or undefined when it holds nothing. */
const rangeOf = (session: UploadSession) =>
  session.received > 0 ? `bytes=0-${session.received - 1}` : undefined

export function registerUploadRoutes(app: FastifyInstance, sandbox: YouTubeSandbox): void {
  const fault = (request: FastifyRequest, reply: FastifyReply, op: FaultOp) =>
    applySimpleFault(request, reply, sandbox.takeFault(op))

  // videos.insert, step 1: open a resumable session.
  app.post('/upload/youtube/v3/videos', async (request, reply) => {
    sandbox.record({ op: 'videos.insert', method: 'POST', path: '/upload/youtube/v3/videos' })
    if (fault(request, reply, 'videos.insert')) return reply
    const grant = authorize(sandbox, request, reply, 'videos.insert')
    if (!grant) return reply
    const query = queryOf(request)
    if (query.get('uploadType') !== 'resumable') return sendGoogleError(reply, 'invalidUploadType')
    const parts = partsOf(query)
    if (!checkParts(reply, parts, INSERT_PARTS)) return reply
    const channel = sandbox.accounts.get(grant.email)?.channel
    if (!channel) return sendGoogleError(reply, 'youtubeSignupRequired')
    if (sandbox.quotaUsed() + sandbox.uploadUnits > sandbox.dailyQuota)
      return sendGoogleError(reply, 'quotaExceeded')
    if (sandbox.uploadsToday(channel.id) >= sandbox.uploadLimitPerDay) {
      sandbox.chargeQuota(1)
      return sendGoogleError(reply, 'uploadLimitExceeded')
    }
    const problem = metadataProblem(request.body)
    if (problem) {
      sandbox.chargeQuota(1)
      return sendGoogleError(reply, problem.reason, problem.message ? { message: problem.message } : {})
    }
    const lengthHeader = request.headers['x-upload-content-length']
    let declaredLength: number | null = null
    if (lengthHeader !== undefined) {
      if (
        typeof lengthHeader !== 'string' ||
        !/^\d+$/.test(lengthHeader) ||
        Number(lengthHeader) > sandbox.maxUploadBytes
      )
        return sendGoogleError(reply, 'badContent', {
          message: 'X-Upload-Content-Length is not a size the upload accepts.',
        })
      declaredLength = Number(lengthHeader)
    }
    const typeHeader = request.headers['x-upload-content-type']
    const contentType = typeof typeHeader === 'string' ? typeHeader.split(';')[0]!.trim().toLowerCase() : null
    if (
      contentType !== null &&
      !contentType.startsWith('video/') &&
      contentType !== 'application/octet-stream'
    )
      return sendGoogleError(reply, 'badContent', {
        message: `Media type '${contentType}' is not supported.`,
      })
    sandbox.chargeQuota(sandbox.uploadUnits)
    const session = sandbox.openSession({
      email: grant.email,
      channelId: channel.id,
      metadata: request.body as Record<string, unknown>,
      part: parts,
      declaredLength,
      contentType,
    })
    const location = `${requestOrigin(request, sandbox.options.publicOrigin)}${sandbox.prefix}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${encodeURIComponent(session.id)}`
    return reply.code(200).header('location', location).header('x-guploader-uploadid', session.id).send('')
  })

  // videos.insert, step 2: the bytes (or a status query), on the session URI.
  app.put('/upload/youtube/v3/videos', async (request, reply) => {
    const query = queryOf(request)
    const session = sandbox.sessions.get(query.get('upload_id') ?? '')
    const contentRange = request.headers['content-range']
    const isStatusQuery = typeof contentRange === 'string' && /^bytes \*\/\d+$/.test(contentRange.trim())
    const op: FaultOp = isStatusQuery ? 'upload.status' : 'upload'
    sandbox.record({ op, method: 'PUT', path: '/upload/youtube/v3/videos' })
    // Google keeps a resumable session for about a week; after that its URI answers 404.
    if (!session || sandbox.clock.now() - session.createdAt > SESSION_LIFETIME_MS)
      return sendGoogleError(reply, 'notFound')
    // The session URI is the credential Google checks; a token, when sent, must still be valid.
    const token = bearerToken(request)
    if (token !== undefined && sandbox.authenticate(token)?.email !== session.email)
      return sendGoogleError(reply, 'authError')
    const injected = sandbox.takeFault(op)
    if (
      injected &&
      injected.action !== 'drop_after_complete' &&
      !(op === 'upload' && injected.action === 'drop' && injected.afterBytes)
    ) {
      applySimpleFault(request, reply, injected)
      return reply
    }
    if (isStatusQuery) return answerSession(sandbox, session, reply)
    if (session.videoId) return answerSession(sandbox, session, reply)
    return receiveBytes(sandbox, session, request, reply, injected)
  })
}

function answerSession(sandbox: YouTubeSandbox, session: UploadSession, reply: FastifyReply) {
  if (session.videoId) {
    const video = sandbox.videos.get(session.videoId)!
    return reply.code(200).send(video.resource)
  }
  const range = rangeOf(session)
  if (range) reply.header('range', range)
  return reply.code(308).send('')
}

/** Counts the body as it streams in (never buffering it) and completes the session when it holds every byte. */
async function receiveBytes(
  sandbox: YouTubeSandbox,
  session: UploadSession,
  request: FastifyRequest,
  reply: FastifyReply,
  fault: ReturnType<YouTubeSandbox['takeFault']>,
) {
  const contentRange = request.headers['content-range']
  const total = session.declaredLength
  let start = 0
  if (typeof contentRange === 'string') {
    const match = contentRange.trim().match(/^bytes (\d+)-(\d+)\/(\d+|\*)$/)
    if (!match) return sendGoogleError(reply, 'badContent', { message: 'Content-Range is malformed.' })
    start = Number(match[1])
  }
  // A chunk that does not continue where the session stopped is not taken; the answer says where it is.
  if (start !== session.received) {
    request.raw.resume()
    return answerSession(sandbox, session, reply)
  }
  const lengthHeader = request.headers['content-length']
  if (total !== null && lengthHeader !== undefined && start + Number(lengthHeader) > total)
    return sendGoogleError(reply, 'badContent', {
      message: `The request declares ${lengthHeader} bytes from offset ${start}, beyond the session's ${total}.`,
    })
  session.transfers++
  let overflow = false
  try {
    for await (const chunk of request.raw as AsyncIterable<Buffer>) {
      if (total !== null && session.received + chunk.length > total) {
        overflow = true
        continue
      }
      session.received += chunk.length
      session.hash.update(chunk)
      session.chunks?.push(chunk)
      if (session.received > KEPT_MEDIA_MAX_BYTES) delete session.chunks
      if (
        fault?.action === 'drop' &&
        fault.afterBytes !== undefined &&
        session.received >= fault.afterBytes
      ) {
        dropConnection(request, reply)
        return
      }
    }
  } catch {
    // The client went away mid-upload; the session keeps what arrived and a status query reports it.
    return
  }
  if (overflow)
    return sendGoogleError(reply, 'badContent', { message: 'More bytes arrived than the session declared.' })
  if (total === null || session.received === total) {
    if (session.received === 0) return sendGoogleError(reply, 'mediaBodyRequired')
    const video = sandbox.completeSession(session)
    if (fault?.action === 'drop_after_complete') {
      dropConnection(request, reply)
      return
    }
    return reply.code(201).send(video.resource)
  }
  const range = rangeOf(session)
  if (range) reply.header('range', range)
  return reply.code(308).send('')
}
