import { createHash } from 'node:crypto'
import type { MastodonOptions } from '../../core/mastodon-options.js'
import {
  type AdapterDeps,
  altTextOf,
  type Credentials,
  type ItemRequest,
  type Profile,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { type AccountSession, sessionOf } from './account.js'
import type { MastodonClient } from './client.js'
import { attachMedia, type MediaContext, recordedMedia } from './media.js'
import { IDEMPOTENCY_MARGIN_MS } from './settings.js'

/**
 * Statuses (methods/statuses): a target's post, and each item of its thread as a reply to the one before
 * (`in_reply_to_id`), with its attachments, visibility, content warning and language. Every status call
 * carries an `Idempotency-Key` derived from the target (and the item), the same on every attempt: an
 * instance that remembers keys answers a repeat with the status the first call made. So when a status
 * call's answer is lost (a 5xx, a reset, no answer in time), it is sent again with its key right away, while
 * the first call is well inside the instance's window; outside it, or on a server that does not remember
 * keys, the outcome stays unknown and the account's statuses decide (lookup.ts).
 */

export interface StatusContext extends MediaContext {
  deps: Pick<AdapterDeps, 'now' | 'sleep' | 'logger'>
  client: MastodonClient
}

/** Waits before each repeat of a status call whose answer was lost. */
const REPEAT_WAITS_MS = [1_000, 5_000]

/** The key of a target's status (`item` absent) or of one of its items, the same on every attempt. */
export function idempotencyKey(targetId: string, item?: number): string {
  const seed = item === undefined ? `herald:${targetId}` : `herald:${targetId}:item:${item}`
  return `herald-${createHash('sha256').update(seed).digest('base64url').slice(0, 32)}`
}

/** The alt text of each attachment, from the request's media items, matched by URL. */
export const altTextsOf = (request: Pick<PublishRequest, 'mediaUrls' | 'media'>): (string | undefined)[] =>
  request.mediaUrls.map((url) => altTextOf(request, url)?.trim() || undefined)

/** The status body: text, attachments, the reply it is, and the Mastodon options. */
function statusBody(
  content: string,
  mediaIds: string[],
  inReplyTo: string | undefined,
  options?: MastodonOptions,
) {
  return {
    ...(content !== '' ? { status: content } : {}),
    ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}),
    ...(inReplyTo ? { in_reply_to_id: inReplyTo } : {}),
    ...(options?.visibility ? { visibility: options.visibility } : {}),
    ...(options?.contentWarning ? { spoiler_text: options.contentWarning } : {}),
    ...(options?.language ? { language: options.language } : {}),
  }
}

interface Status {
  id?: unknown
  url?: unknown
  uri?: unknown
}

/** A published status as Herald records it; an answer without an id leaves the outcome unknown. */
function resultOf(ctx: StatusContext, session: AccountSession, status: Status | undefined): PublishResult {
  if (typeof status?.id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(status.id))
    throw new PublishFailure('unknown_outcome', `${session.host} answered the status without its id`, {
      code: 'NoStatusId',
    })
  const url =
    typeof status.url === 'string' && /^https?:\/\//.test(status.url)
      ? status.url
      : `${ctx.client.baseUrl(session.host)}/statuses/${status.id}`
  return { remoteId: status.id, url }
}

/**
 * `POST /api/v1/statuses` with its key; when the answer is lost, the same request again (up to twice) while
 * the first call is inside the instance's window less {@link IDEMPOTENCY_MARGIN_MS}. Only a status in an
 * answer decides: a repeat that fails in any way leaves the first call's outcome unknown.
 */
async function createStatus(
  ctx: StatusContext,
  session: AccountSession,
  input: { key: string; body: Record<string, unknown>; signal: AbortSignal },
): Promise<PublishResult> {
  const send = () =>
    ctx.client.call<Status>({
      host: session.host,
      method: 'POST',
      path: '/api/v1/statuses',
      json: input.body,
      token: session.token,
      idempotencyKey: input.key,
      signal: input.signal,
      effectful: true,
      what: 'posting the status',
    })
  const firstSentAt = ctx.deps.now()
  let lost: PublishFailure
  try {
    return resultOf(ctx, session, (await send()).body)
  } catch (error) {
    if (!(error instanceof PublishFailure) || error.kind !== 'unknown_outcome') throw error
    lost = error
  }
  const inWindow = () => ctx.deps.now() - firstSentAt < session.idempotencyWindowMs - IDEMPOTENCY_MARGIN_MS
  for (const wait of REPEAT_WAITS_MS) {
    if (!inWindow() || input.signal.aborted) break
    await ctx.deps.sleep(wait, input.signal).catch(() => undefined)
    if (!inWindow() || input.signal.aborted) break
    try {
      const repeated = resultOf(ctx, session, (await send()).body)
      ctx.deps.logger.info(
        { host: session.host, statusId: repeated.remoteId },
        'mastodon status answered on its key',
      )
      return repeated
    } catch (error) {
      if (!(error instanceof PublishFailure)) throw error
      ctx.deps.logger.debug({ host: session.host, kind: error.kind }, 'mastodon status repeat got no status')
    }
  }
  throw lost
}

interface StatusRequest {
  targetId: string
  item?: number
  profile: Profile
  credentials: Credentials
  content: string
  mediaUrls: string[]
  inReplyTo?: string
  mastodon?: MastodonOptions
  progress?: Record<string, string>
  saveProgress?(progress: Record<string, string>): Promise<void>
  signal: AbortSignal
}

async function publishStatus(ctx: StatusContext, request: StatusRequest): Promise<PublishResult> {
  const session = sessionOf(request.credentials, request.profile)
  if (request.content.trim() === '' && request.mediaUrls.length === 0)
    throw new PublishFailure('invalid_content', 'A Mastodon status needs text or media', {
      code: 'EmptyStatus',
    })
  const mediaIds = await attachMedia(ctx, session, {
    mediaUrls: request.mediaUrls,
    altTexts: altTextsOf(request),
    recorded: recordedMedia(request.progress),
    targetId: request.targetId,
    signal: request.signal,
    record: async (ids) => request.saveProgress?.({ media: ids.join(',') }),
  })
  return createStatus(ctx, session, {
    key: idempotencyKey(request.targetId, request.item),
    body: statusBody(request.content, mediaIds, request.inReplyTo, request.mastodon),
    signal: request.signal,
  })
}

export function publishPost(ctx: StatusContext, request: PublishRequest): Promise<PublishResult> {
  return publishStatus(ctx, request)
}

/** A thread item or first comment: a reply to the status before it (the post, for a first comment). */
export function publishReply(ctx: StatusContext, request: ItemRequest): Promise<PublishResult> {
  return publishStatus(ctx, { ...request, item: request.index, inReplyTo: request.parent.remoteId })
}
