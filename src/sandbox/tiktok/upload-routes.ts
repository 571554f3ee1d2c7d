import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { envelope } from './errors.js'
import type { PublishJob, UploadTask } from './model.js'
import type { TikTokSandboxState } from './state.js'

/**
 * The upload URL a FILE_UPLOAD init answers (`open-upload.tiktokapis.com/video/?upload_id=..&upload_token=..`
 * on TikTok, `${prefix}/upload/video/` here), with TikTok's chunk rules (reference A.4.5): the chunks in
 * order, each `PUT` carrying `Content-Type` (video/mp4, video/quicktime or video/webm), `Content-Length`
 * and `Content-Range: bytes first-last/total` of exactly the next chunk. Answers 206 (more expected, with
 * `Content-Range: bytes 0-{received}/{total}`), 201 (every byte received: publishing starts), 400 (bad
 * headers or a body of another length), 403 (the URL's hour is over), 404 (no such upload) or 416 (the
 * range is not the next chunk; the answer says what is held).
 */

const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm'])

/** The chunk the upload expects next: `[first, last]` byte, inclusive. */
export function nextChunk(upload: UploadTask): [number, number] {
  const index = Math.floor(upload.received / upload.chunkSize)
  const first = index * upload.chunkSize
  const last = index === upload.totalChunkCount - 1 ? upload.videoSize - 1 : first + upload.chunkSize - 1
  return [first, last]
}

const held = (upload: UploadTask) =>
  upload.received > 0 ? `bytes 0-${upload.received - 1}/${upload.videoSize}` : `bytes */${upload.videoSize}`

function refuse(reply: FastifyReply, request: FastifyRequest, status: number, code: string, message: string) {
  // The body may not have been read: drain it so the connection stays usable.
  if (!request.raw.readableEnded) request.raw.resume()
  return reply.code(status).send(envelope({}, { code, message }))
}

/** The upload task a PUT names, or why it names none. */
function taskOf(state: TikTokSandboxState, request: FastifyRequest) {
  const query = new URL(request.url, 'http://sandbox.invalid').searchParams
  const job = state.jobOfUpload(query.get('upload_id') ?? '')
  const upload = job?.upload
  if (!job || !upload || upload.uploadToken !== query.get('upload_token')) return { missing: true as const }
  return { job, upload }
}

export function registerUploadRoutes(app: FastifyInstance, state: TikTokSandboxState): void {
  app.put('/upload/video/', async (request, reply) => {
    const task = taskOf(state, request)
    if ('missing' in task) return refuse(reply, request, 404, 'invalid_upload', 'No such upload task.')
    const { job, upload } = task
    upload.puts += 1
    if (state.now() > upload.expiresAt)
      return refuse(reply, request, 403, 'upload_url_expired', 'The upload URL has expired.')
    if (upload.received >= upload.videoSize || job.status !== 'PROCESSING_UPLOAD')
      return refuse(
        reply.header('content-range', held(upload)),
        request,
        416,
        'invalid_range',
        'Every chunk is in.',
      )
    const problem = headerProblem(request, upload)
    if (problem) {
      if (problem.status === 416) reply.header('content-range', held(upload))
      return refuse(reply, request, problem.status, problem.code, problem.message)
    }
    const body = await readBody(request)
    const [first, last] = nextChunk(upload)
    if (!body || body.length !== last - first + 1)
      return reply
        .code(400)
        .send(
          envelope(
            {},
            { code: 'invalid_file_upload', message: 'The chunk is not the length its headers say.' },
          ),
        )
    upload.received += body.length
    upload.chunks?.push(body)
    upload.contentType = String(request.headers['content-type']).split(';')[0]
    if (upload.received < upload.videoSize)
      return reply.code(206).header('content-range', held(upload)).send('')
    complete(state, job)
    return reply.code(201).header('content-range', held(upload)).send('')
  })
}

/** The whole upload is in: the post (or the inbox draft) exists from here on. */
function complete(state: TikTokSandboxState, job: PublishJob) {
  state.finishMedia(job, state.keepUpload(job))
}

function headerProblem(
  request: FastifyRequest,
  upload: UploadTask,
): { status: number; code: string; message: string } | undefined {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  if (!VIDEO_TYPES.has(type))
    return {
      status: 400,
      code: 'invalid_params',
      message: 'Content-Type must be video/mp4, video/quicktime or video/webm.',
    }
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range'] ?? '').trim())
  if (!range)
    return { status: 400, code: 'invalid_params', message: 'Content-Range must be bytes first-last/total.' }
  const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])]
  const length = Number(request.headers['content-length'])
  if (total !== upload.videoSize)
    return {
      status: 400,
      code: 'invalid_params',
      message: 'Content-Range names another total size than video_size.',
    }
  if (!Number.isInteger(length) || length !== last - first + 1)
    return { status: 400, code: 'invalid_params', message: 'Content-Length does not match Content-Range.' }
  const [wantFirst, wantLast] = nextChunk(upload)
  if (first !== wantFirst || last !== wantLast)
    return {
      status: 416,
      code: 'invalid_range',
      message: `The next chunk is bytes ${wantFirst}-${wantLast}.`,
    }
  return undefined
}

/** The request's body; undefined when the client went away before it ended. */
async function readBody(request: FastifyRequest): Promise<Buffer | undefined> {
  const parts: Buffer[] = []
  try {
    for await (const part of request.raw as AsyncIterable<Buffer>) parts.push(part)
  } catch {
    return undefined
  }
  return Buffer.concat(parts)
}
