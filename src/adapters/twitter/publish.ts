import { z } from 'zod'
import { MediaError } from '../../core/media-port.js'
import { altTextOf, PublishFailure, type PublishRequest, type PublishResult } from '../adapter.js'
import { API_TIMEOUT_MS, expectOk, sendToTwitter, type TwitterContext, tweetUrl } from './client.js'
import {
  describeTwitterMedia,
  formatUploadError,
  selectTwitterMedia,
  TwitterMediaError,
  uploadTwitterMedia,
} from './media.js'

/** Spec §1 rule 3's "wait of about 2 seconds" when X did not report processing for the media. */
export const MEDIA_SETTLE_MS = 2000

const createResponse = z.object({ data: z.object({ id: z.string().regex(/^[0-9]{1,19}$/) }) })

/**
 * Publishes one target to X following spec §1's twitter rules:
 * 1. POST /2/tweets with the connected user's token, so the post is the connected handle's.
 * 2–3. Each media URL is typed by extension, fetched through the media port, uploaded in three steps and,
 *    when X processes it, waited for; otherwise a single ~2 s wait follows the uploads.
 * 4. A media item whose upload fails at any step is dropped; its URL is appended to the text on a new
 *    line and the failure is returned as `uploadError`.
 * 5. The copy is sent unchanged: no trimming or truncation; X enforces the length for the account.
 */
export async function publishTweet(
  ctx: TwitterContext,
  request: Pick<PublishRequest, 'targetId' | 'profile' | 'credentials' | 'content' | 'mediaUrls' | 'signal'> &
    Partial<Pick<PublishRequest, 'progress' | 'saveProgress' | 'media'>>,
  /** The post this one replies to (`reply.in_reply_to_tweet_id`), for thread items and first comments. */
  inReplyTo?: string,
): Promise<PublishResult> {
  const { credentials, signal } = request
  const secrets = [credentials.accessToken, credentials.refreshToken]
  const log = ctx.logger.child({ targetId: request.targetId })
  const { selected, skipped } = selectTwitterMedia(request.mediaUrls)
  if (skipped.length > 0) {
    log.warn({ skipped: skipped.length }, 'media items X cannot carry in one post were left out')
  }

  const { mediaIds, failed, unlabelled } = await uploadAll(ctx, request, selected, log)

  const text = [request.content, ...failed.map((item) => item.url)].filter((part) => part !== '').join('\n')
  const body: {
    text: string
    media?: { media_ids: string[] }
    reply?: { in_reply_to_tweet_id: string }
  } = { text }
  if (mediaIds.length > 0) body.media = { media_ids: mediaIds }
  if (inReplyTo) body.reply = { in_reply_to_tweet_id: inReplyTo }

  if (signal.aborted) throw cancelledBeforeSend()
  // The media ids are the lookup's key if the answer is lost: recorded before the post is sent (and
  // cleared when this attempt carries none, so an earlier attempt's ids cannot stand for it).
  if (mediaIds.length > 0 || request.progress?.media)
    await request.saveProgress?.({ media: mediaIds.join(',') })
  const answer = await sendToTwitter(ctx, {
    method: 'POST',
    path: '/2/tweets',
    json: body,
    bearer: credentials.accessToken,
    signal,
    timeoutMs: API_TIMEOUT_MS,
    what: 'the post',
    mayHaveTakenEffect: true,
  })
  const created = createResponse.safeParse(expectOk(ctx, answer, 'publish', secrets))
  if (!created.success) {
    // X accepted the request but the answer carries no id: the post probably exists; do not resend.
    throw new PublishFailure('unknown_outcome', 'X accepted the post but its answer carried no post id', {
      status: answer.status,
    })
  }
  const remoteId = created.data.data.id
  log.info({ remoteId, media: mediaIds.length, uploadFailures: failed.length }, 'published to X')
  const result: PublishResult = {
    remoteId,
    url: tweetUrl(ctx, request.profile.username, remoteId),
  }
  const uploadError = formatUploadError(failed, skipped, unlabelled)
  if (uploadError) result.uploadError = uploadError
  return result
}

type TweetRequest = Parameters<typeof publishTweet>[1]

/**
 * Uploads the selected media one after another (each with its alt text where it has one), then waits the
 * ~2 s of spec §1 rule 3 when X did not report processing. A failed item is dropped and named in `failed`.
 */
async function uploadAll(
  ctx: TwitterContext,
  request: TweetRequest,
  selected: ReturnType<typeof selectTwitterMedia>['selected'],
  log: TwitterContext['logger'],
) {
  const { credentials, signal } = request
  const secrets = [credentials.accessToken, credentials.refreshToken]
  const mediaIds: string[] = []
  const failed: { url: string; detail: string }[] = []
  // Alt text X did not take: the image still goes out, and the target records which one has none.
  const unlabelled: { url: string; detail: string }[] = []
  const upload = { accessToken: credentials.accessToken, secrets, signal }
  let settle = false
  for (const [index, { url, type }] of selected.entries()) {
    if (signal.aborted) throw cancelledBeforeSend()
    try {
      const file = await ctx.deps.media.prepare(url, { network: 'twitter', signal })
      try {
        const uploaded = await uploadTwitterMedia(ctx, { file, type, ...upload })
        mediaIds.push(uploaded.mediaId)
        if (!uploaded.processed) settle = true
        const altText = altTextOf(request, url)
        if (altText && type.kind !== 'video') {
          const refused = await labelMedia(ctx, { mediaId: uploaded.mediaId, altText, ...upload })
          if (refused) unlabelled.push({ url, detail: refused })
        }
      } finally {
        await file.dispose()
      }
    } catch (error) {
      if (error instanceof PublishFailure) throw error
      if (signal.aborted) throw cancelledBeforeSend()
      const detail =
        error instanceof TwitterMediaError
          ? error.message
          : error instanceof MediaError
            ? `could not fetch the media: ${error.message}`
            : `upload failed: ${(error as Error).message}`
      failed.push({ url, detail })
      log.warn({ item: index, mediaType: type.mediaType }, 'media upload to X failed')
    }
  }
  if (settle) {
    try {
      await ctx.deps.sleep(MEDIA_SETTLE_MS, signal)
    } catch {
      throw cancelledBeforeSend()
    }
  }
  return { mediaIds, failed, unlabelled }
}

/** Sets an image's alt text; what X answered when it refused (the image still goes out), else undefined. */
async function labelMedia(
  ctx: TwitterContext,
  input: Parameters<typeof describeTwitterMedia>[1],
): Promise<string | undefined> {
  try {
    await describeTwitterMedia(ctx, input)
    return undefined
  } catch (error) {
    if (!(error instanceof TwitterMediaError)) throw error
    ctx.logger.warn({ mediaId: input.mediaId }, 'X did not take the alt text of an image')
    return error.message
  }
}

function cancelledBeforeSend() {
  return new PublishFailure('transient', 'Publishing to X was cancelled before the post was sent')
}
