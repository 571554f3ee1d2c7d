import { openAsBlob } from 'node:fs'
import type { MediaPort, PreparedMedia } from '../../core/media-port.js'
import { MediaError } from '../../core/media-port.js'
import { type AdapterDeps, PublishFailure } from '../adapter.js'
import type { AccountSession } from './account.js'
import type { MastodonClient } from './client.js'

/**
 * Attachments (methods/media): each file is uploaded with `POST /api/v2/media` (its alt text as
 * `description`), which answers 200 when the file is ready and 202 while the instance still processes it
 * (video, large images); then `GET /api/v1/media/:id` answers 206 until it is ready (200 with its `url`),
 * as masto waits. A status may only name ready attachments. Ids are recorded before the status is made, so
 * an attempt after a failure reuses the ones the instance still holds unattached, and a lookup can tell
 * a status that carries them as this target's.
 */

/** Uploads get more time than an ordinary call: a 99 MiB video is allowed. */
const UPLOAD_TIMEOUT_MS = 300_000
/** Waits between polls of a processing attachment: short at first, then every 5 s. */
const POLL_WAITS_MS = [500, 1_000, 2_000, 3_000, 5_000]
/** How long an attachment may stay in processing before the attempt gives up (nothing was posted). */
const PROCESSING_LIMIT_MS = 10 * 60_000

interface Attachment {
  id?: unknown
  url?: unknown
}

export interface MediaContext {
  client: MastodonClient
  media: MediaPort
  deps: Pick<AdapterDeps, 'now' | 'sleep'>
}

/** The media ids an earlier attempt recorded (`media`: comma-separated), or none. */
export const recordedMedia = (progress: Record<string, string> | undefined): string[] =>
  (progress?.media ?? '').split(',').filter((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id))

async function prepareAll(ctx: MediaContext, urls: readonly string[], signal: AbortSignal, targetId: string) {
  const prepared: PreparedMedia[] = []
  try {
    for (const url of urls)
      prepared.push(await ctx.media.prepare(url, { network: 'mastodon', signal, targetId }))
  } catch (error) {
    await Promise.all(prepared.map((item) => item.dispose()))
    if (error instanceof MediaError)
      throw new PublishFailure('invalid_content', error.message, { code: `media_${error.reason}` })
    throw error
  }
  if (prepared.length > 1 && prepared.some((item) => item.kind === 'video')) {
    await Promise.all(prepared.map((item) => item.dispose()))
    throw new PublishFailure(
      'invalid_content',
      'A Mastodon status takes up to 4 images or one video, never both',
      {
        code: 'images_and_video',
      },
    )
  }
  return prepared
}

async function upload(
  ctx: MediaContext,
  session: AccountSession,
  item: PreparedMedia,
  altText: string | undefined,
  signal: AbortSignal,
): Promise<{ id: string; ready: boolean }> {
  const form = new FormData()
  form.append('file', await openAsBlob(item.path, { type: item.contentType }), item.name)
  if (altText) form.append('description', altText)
  const { status, body } = await ctx.client.call<Attachment>({
    host: session.host,
    method: 'POST',
    path: '/api/v2/media',
    form,
    token: session.token,
    signal,
    timeoutMs: UPLOAD_TIMEOUT_MS,
    what: `uploading ${item.name}`,
  })
  if (typeof body?.id !== 'string')
    throw new PublishFailure('transient', `${session.host} answered the upload of ${item.name} without an id`)
  return { id: body.id, ready: status === 200 && typeof body.url === 'string' }
}

/** Waits until the instance has processed the attachment (200 with its `url`). */
async function untilReady(ctx: MediaContext, session: AccountSession, id: string, signal: AbortSignal) {
  const started = ctx.deps.now()
  for (let poll = 0; ; poll++) {
    const { status, body } = await ctx.client.call<Attachment>({
      host: session.host,
      method: 'GET',
      path: `/api/v1/media/${id}`,
      token: session.token,
      signal,
      what: 'processing an attachment',
    })
    if (status === 200 && typeof body?.url === 'string') return
    if (ctx.deps.now() - started > PROCESSING_LIMIT_MS)
      throw new PublishFailure(
        'transient',
        `${session.host} was still processing an attachment after 10 minutes`,
        {
          code: 'processing',
        },
      )
    await ctx.deps.sleep(POLL_WAITS_MS[Math.min(poll, POLL_WAITS_MS.length - 1)]!, signal)
  }
}

/** True when every recorded attachment is still the account's and unattached (a 404 means it is not). */
async function stillHeld(ctx: MediaContext, session: AccountSession, ids: string[], signal: AbortSignal) {
  for (const id of ids) {
    try {
      await ctx.client.call({
        host: session.host,
        method: 'GET',
        path: `/api/v1/media/${id}`,
        token: session.token,
        signal,
        what: 'reading an attachment',
      })
    } catch (error) {
      if (error instanceof PublishFailure && error.options.status === 404) return false
      throw error
    }
  }
  return true
}

/**
 * The ready attachments of a status: the ones an earlier attempt uploaded when the instance still holds
 * them, else the media uploaded now (recorded through `record` before anything else is called).
 */
export async function attachMedia(
  ctx: MediaContext,
  session: AccountSession,
  input: {
    mediaUrls: readonly string[]
    altTexts: readonly (string | undefined)[]
    recorded: string[]
    targetId: string
    signal: AbortSignal
    record(ids: string[]): Promise<void>
  },
): Promise<string[]> {
  const { signal } = input
  if (input.mediaUrls.length === 0) return []
  if (
    input.recorded.length === input.mediaUrls.length &&
    (await stillHeld(ctx, session, input.recorded, signal))
  ) {
    for (const id of input.recorded) await untilReady(ctx, session, id, signal)
    return input.recorded
  }
  const prepared = await prepareAll(ctx, input.mediaUrls, signal, input.targetId)
  const uploaded: { id: string; ready: boolean }[] = []
  try {
    for (const [index, item] of prepared.entries())
      uploaded.push(await upload(ctx, session, item, input.altTexts[index], signal))
  } finally {
    await Promise.all(prepared.map((item) => item.dispose()))
  }
  const ids = uploaded.map((entry) => entry.id)
  await input.record(ids)
  for (const entry of uploaded) if (!entry.ready) await untilReady(ctx, session, entry.id, signal)
  return ids
}
