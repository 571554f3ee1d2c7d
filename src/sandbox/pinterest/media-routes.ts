import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { inspectReceivedVideo, isH264, isHevc } from '../video-check.js'
import { authorize, pinterestError, publicBase, withinAllowance } from './http.js'
import type { PinterestSandboxState, SandboxMedia } from './state.js'

/**
 * Pinterest's video upload (reference B.6): `POST /v5/media` registers an upload and answers the address
 * and the signed form fields to POST the file with; the address (S3 on Pinterest, `/upload` here) takes a
 * multipart form with exactly those fields and the file last, answers 204 as S3 does (its refusals are S3's
 * XML), and the media then reads `processing` for a poll or more before `succeeded`, or `failed` when the
 * file is no H.264 or HEVC video. `GET /v5/media/{id}` reads it.
 */

const SIGNING_KEY = randomBytes(32)
const signatureOf = (key: string) => createHmac('sha256', SIGNING_KEY).update(key).digest('hex')

/** The form fields an upload of `media` must carry, in the order Pinterest gives them. */
export function uploadParameters(media: SandboxMedia, now: number): Record<string, string> {
  const stamp = new Date(now).toISOString().replace(/[-:]|\.\d{3}/g, '')
  return {
    'x-amz-date': stamp,
    'x-amz-signature': signatureOf(media.key),
    'x-amz-security-token': `sandbox-${media.id}`,
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    key: media.key,
    policy: Buffer.from(JSON.stringify({ key: media.key })).toString('base64'),
    'x-amz-credential': `SANDBOX/${stamp.slice(0, 8)}/us-east-1/s3/aws4_request`,
    'Content-Type': 'multipart/form-data',
  }
}

const s3Error = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply
    .code(status)
    .type('application/xml')
    .send(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    )

export function registerMediaRoutes(app: FastifyInstance, state: PinterestSandboxState): void {
  app.post('/v5/media', async (request, reply) => {
    const grant = authorize(state, request, reply, ['pins:read', 'pins:write'])
    if (!grant || !withinAllowance(state, reply, grant, 'org_write')) return reply
    const id = state.nextId()
    const media: SandboxMedia = {
      id,
      accountId: grant.accountId,
      status: 'registered',
      key: `uploads/${randomBytes(2).toString('hex')}/${randomBytes(2).toString('hex')}/${id}:video:${grant.accountId}`,
      uploads: 0,
      bytes: 0,
      pollsLeft: 0,
      createdAt: state.now(),
    }
    state.media.set(id, media)
    return reply.code(201).send({
      media_id: id,
      media_type: 'video',
      upload_url: `${publicBase(state, request)}/upload/`,
      upload_parameters: uploadParameters(media, state.now()),
    })
  })

  app.get<{ Params: { id: string } }>('/v5/media/:id', async (request, reply) => {
    const grant = authorize(state, request, reply, ['pins:read'])
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const media = state.media.get(request.params.id)
    if (!media || media.accountId !== grant.accountId)
      return pinterestError(reply, 404, 404, 'Media upload not found.')
    return { media_id: media.id, media_type: 'video', status: state.readMedia(media) }
  })

  app.post('/upload/', async (request, reply) => {
    const type = String(request.headers['content-type'] ?? '')
    if (!type.startsWith('multipart/form-data') || !Buffer.isBuffer(request.body))
      return s3Error(
        reply,
        412,
        'PreconditionFailed',
        'Bucket POST must be of the enclosure-type multipart/form-data',
      )
    const form = await new Request('http://upload.invalid/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: new Uint8Array(request.body),
    }).formData()
    const entries = [...form.entries()]
    const key = form.get('key')
    const media = [...state.media.values()].find((m) => m.key === key)
    if (!media)
      return s3Error(reply, 403, 'AccessDenied', 'Invalid according to Policy: the key was not issued')
    const expected = uploadParameters(media, state.now())
    const fields = entries.filter(([, value]) => typeof value === 'string')
    const problem =
      fields.some(
        ([name, value]) => name !== 'x-amz-date' && name !== 'x-amz-credential' && expected[name] !== value,
      ) || Object.keys(expected).some((name) => !form.has(name))
        ? 'Invalid according to Policy: the form fields are not the ones issued'
        : entries.at(-1)?.[0] !== 'file' || entries.filter(([name]) => name === 'file').length !== 1
          ? 'The file must be the last field of the form, and the only file'
          : undefined
    if (problem) return s3Error(reply, 403, 'AccessDenied', problem)
    await receive(state, media, form.get('file') as File)
    return reply.code(204).send()
  })
}

/** The uploaded file: counted, kept for the pin pages, and checked as Pinterest's processing would. */
async function receive(state: PinterestSandboxState, media: SandboxMedia, file: File) {
  const bytes = Buffer.from(await file.arrayBuffer())
  media.uploads += 1
  media.bytes = bytes.length
  const video = inspectReceivedVideo(bytes)
  if (video.ok && (isH264(video.codec) || isHevc(video.codec))) {
    media.videoCodec = video.codec
    delete media.problem
  } else media.problem = video.ok ? `codec ${video.codec} is not H.264 or HEVC` : video.problem
  media.status = 'processing'
  media.pollsLeft = state.options.mediaPolls ?? 1
  state.kept.keep(`media-${media.id}`, file.type || 'video/mp4', bytes)
}
