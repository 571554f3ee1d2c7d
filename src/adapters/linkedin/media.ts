import { open, readFile } from 'node:fs/promises'
import type { PreparedMedia } from '../../core/media-port.js'
import { PublishFailure } from '../adapter.js'
import { enc, type LinkedInContext, linkedinCall } from './client.js'
import { classifyLinkedInError } from './errors.js'

/**
 * LinkedIn takes media only as bytes (reference §1, A.6, A.7): the Images API (initialize, one PUT of the
 * whole file, wait for AVAILABLE) and the Videos API (initialize with the size, PUT every byte range of
 * `uploadInstructions`, finalize with the ETags in order, wait for AVAILABLE).
 */

const POLL_MS = 2_000
const MAX_POLLS = 450
/**
 * A member's `w_member_social` token may not read `/rest/images/{urn}` (write-only, reference A.6), so
 * for a personal profile Herald waits this long once instead of polling, as Postiz does.
 */
export const PERSONAL_IMAGE_GRACE_MS = 20_000

type Upload = { token: string; owner: string; signal: AbortSignal }

/**
 * Whether an upload URL LinkedIn gave may receive the bearer token: https on a linkedin.com host, or the
 * configured API origin itself (the simulator).
 */
function trustedUploadUrl(ctx: LinkedInContext, url: string): boolean {
  try {
    const target = new URL(url)
    if (target.origin === new URL(ctx.settings.apiUrl).origin) return true
    return target.protocol === 'https:' && /(^|\.)linkedin\.com$/.test(target.hostname)
  } catch {
    return false
  }
}

async function put(
  ctx: LinkedInContext,
  url: string,
  token: string,
  body: Buffer,
  signal: AbortSignal,
  what: string,
) {
  if (!trustedUploadUrl(ctx, url))
    throw new PublishFailure('transient', `LinkedIn gave an upload URL outside linkedin.com for ${what}`)
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(300_000)]),
      redirect: 'error',
    })
  } catch (error) {
    if (signal.aborted) throw error
    throw new PublishFailure('transient', `LinkedIn could not be reached while uploading ${what}`)
  }
  const text = await response.text().catch(() => '')
  if (!response.ok) {
    let parsed: Record<string, unknown> = {}
    try {
      parsed = JSON.parse(text) as Record<string, unknown>
    } catch {}
    throw classifyLinkedInError({
      status: response.status,
      body: parsed,
      what: `the upload of ${what}`,
      version: ctx.settings.version,
      sentIsCreate: false,
      now: ctx.deps.now(),
      secrets: [token],
    })
  }
  return response
}

/** Waits until an image or video is AVAILABLE; PROCESSING_FAILED is invalid content. */
async function waitAvailable(ctx: LinkedInContext, kind: 'images' | 'videos', urn: string, upload: Upload) {
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    const { body } = await linkedinCall(ctx, {
      method: 'GET',
      path: `/rest/${kind}/${enc(urn)}`,
      token: upload.token,
      what: `the ${kind === 'images' ? 'image' : 'video'} status`,
      signal: upload.signal,
    })
    const status = body.status
    if (status === 'AVAILABLE') return
    if (status === 'PROCESSING_FAILED')
      throw new PublishFailure(
        'invalid_content',
        `LinkedIn could not process the ${kind === 'images' ? 'image' : 'video'}${typeof body.processingFailureReason === 'string' ? `: ${body.processingFailureReason}` : ''}`,
        { code: 'PROCESSING_FAILED' },
      )
    await ctx.deps.sleep(POLL_MS, upload.signal)
  }
  throw new PublishFailure(
    'transient',
    `LinkedIn was still processing the ${kind === 'images' ? 'image' : 'video'}`,
  )
}

/** One image → `urn:li:image:…`, AVAILABLE (or, for a member, after the grace wait). */
export async function uploadImage(
  ctx: LinkedInContext,
  file: PreparedMedia,
  upload: Upload & { personalGraceMs: number },
) {
  const { body } = await linkedinCall(ctx, {
    method: 'POST',
    path: '/rest/images',
    query: [['action', 'initializeUpload']],
    json: { initializeUploadRequest: { owner: upload.owner } },
    token: upload.token,
    what: 'the image upload',
    signal: upload.signal,
  })
  const value = (body.value ?? {}) as Record<string, unknown>
  const uploadUrl = typeof value.uploadUrl === 'string' ? value.uploadUrl : undefined
  const image = typeof value.image === 'string' ? value.image : undefined
  if (!uploadUrl || !image) throw new PublishFailure('transient', 'LinkedIn gave no upload URL for the image')
  // One PUT of the whole file: chunked PUTs to the one URL overwrite each other (reference A.6).
  await put(ctx, uploadUrl, upload.token, await readFile(file.path), upload.signal, 'the image')
  return image
}

/** Waits for uploaded images: polled for a page, one grace wait for a member (whose token cannot read them). */
export async function waitForImages(
  ctx: LinkedInContext,
  images: string[],
  upload: Upload & { personalGraceMs: number },
) {
  if (images.length === 0) return
  if (upload.owner.startsWith('urn:li:person:')) {
    await ctx.deps.sleep(upload.personalGraceMs, upload.signal)
    return
  }
  for (const image of images) await waitAvailable(ctx, 'images', image, upload)
}

/** One video → `urn:li:video:…`, AVAILABLE. */
export async function uploadVideo(ctx: LinkedInContext, file: PreparedMedia, upload: Upload) {
  const { body } = await linkedinCall(ctx, {
    method: 'POST',
    path: '/rest/videos',
    query: [['action', 'initializeUpload']],
    json: {
      initializeUploadRequest: {
        owner: upload.owner,
        fileSizeBytes: file.size,
        uploadCaptions: false,
        uploadThumbnail: false,
      },
    },
    token: upload.token,
    what: 'the video upload',
    signal: upload.signal,
  })
  const value = (body.value ?? {}) as Record<string, unknown>
  const video = typeof value.video === 'string' ? value.video : undefined
  const instructions = Array.isArray(value.uploadInstructions)
    ? (value.uploadInstructions as { uploadUrl?: unknown; firstByte?: unknown; lastByte?: unknown }[])
    : []
  if (!video || instructions.length === 0)
    throw new PublishFailure('transient', 'LinkedIn gave no upload instructions for the video')
  const etags: string[] = []
  const handle = await open(file.path, 'r')
  try {
    for (const part of instructions) {
      const first = Number(part.firstByte)
      const last = Number(part.lastByte)
      if (
        typeof part.uploadUrl !== 'string' ||
        !Number.isInteger(first) ||
        !Number.isInteger(last) ||
        last < first
      )
        throw new PublishFailure('transient', 'LinkedIn gave an unreadable video upload instruction')
      const bytes = Buffer.alloc(last - first + 1)
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, first)
      const response = await put(
        ctx,
        part.uploadUrl,
        upload.token,
        bytes.subarray(0, bytesRead),
        upload.signal,
        'the video',
      )
      const etag = response.headers.get('etag')
      if (!etag) throw new PublishFailure('transient', 'LinkedIn answered a video part without an ETag')
      etags.push(etag.replace(/^W\//, '').replace(/"/g, ''))
    }
  } finally {
    await handle.close()
  }
  await linkedinCall(ctx, {
    method: 'POST',
    path: '/rest/videos',
    query: [['action', 'finalizeUpload']],
    json: {
      finalizeUploadRequest: {
        video,
        uploadToken: typeof value.uploadToken === 'string' ? value.uploadToken : '',
        uploadedPartIds: etags,
      },
    },
    token: upload.token,
    what: 'the video finalize',
    signal: upload.signal,
  })
  await waitAvailable(ctx, 'videos', video, upload)
  return video
}
