import type { ItemLookupRequest, ItemRequest, LookupAnswer, PublishResult } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { findAmongReplies } from '../lookup-scan.js'
import { type ApiContext, getJson } from './api.js'
import { withTimeout, YOUTUBE_WEB_URL } from './auth.js'
import { classifyGoogleError } from './errors.js'

/**
 * A first comment on a YouTube video is a comment thread, `commentThreads.insert?part=snippet`
 * with `snippet.videoId` and `snippet.topLevelComment.snippet.textOriginal` (50 quota units). Google lists
 * only `youtube.force-ssl` for it, so the connect flow asks for that scope too; a channel connected before
 * is told to reconnect when Google refuses the scope.
 */

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

const commentUrl = (ctx: ApiContext, videoId: string, commentId: string) =>
  `${ctx.settings.webUrl ?? YOUTUBE_WEB_URL}/watch?v=${encodeURIComponent(videoId)}&lc=${encodeURIComponent(commentId)}`

export async function publishComment(ctx: ApiContext, request: ItemRequest): Promise<PublishResult> {
  if (request.content.trim() === '')
    throw new PublishFailure('invalid_content', 'A YouTube comment needs text')
  if (request.mediaUrls.length > 0)
    throw new PublishFailure('invalid_content', 'YouTube comments take text only')
  const videoId = request.root.remoteId
  const url = new URL(`${ctx.settings.apiUrl}/youtube/v3/commentThreads`)
  url.searchParams.set('part', 'snippet')
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${request.credentials.accessToken}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        snippet: { videoId, topLevelComment: { snippet: { textOriginal: request.content } } },
      }),
      signal: withTimeout(request.signal, 30_000),
    })
  } catch (error) {
    // The request may have reached Google: the comment may exist.
    throw new PublishFailure(
      'unknown_outcome',
      `YouTube did not answer the comment: ${(error as Error).message}`,
    )
  }
  const body = await response.json().catch(() => undefined)
  if (!response.ok) {
    const failure = classifyGoogleError(response.status, body, {
      now: ctx.deps.now(),
      retryAfter: response.headers.get('retry-after'),
    })
    // A 5xx after the request arrived may have made the comment.
    if (response.status >= 500 && failure.kind === 'transient')
      throw new PublishFailure('unknown_outcome', failure.message, { status: response.status })
    if (failure.kind === 'auth_expired' && response.status === 403)
      throw new PublishFailure(
        'auth_expired',
        'YouTube refused the comment: the channel was connected without the comment permission (youtube.force-ssl, "See, edit, and permanently delete your YouTube videos, ratings, comments and captions"); reconnect it',
        { status: 403 },
      )
    throw failure
  }
  const id = record(body).id
  if (typeof id !== 'string')
    throw new PublishFailure('unknown_outcome', 'YouTube accepted the comment but answered no comment id')
  return { remoteId: id, url: commentUrl(ctx, videoId, id) }
}

/**
 * An unanswered comment is looked for among the video's comment threads by its copy, newest first
 * (`order=time`, 100 a page, `pageToken`), page after page until one ends before the attempt.
 */
export async function findComment(ctx: ApiContext, request: ItemLookupRequest): Promise<LookupAnswer> {
  const videoId = request.root.remoteId
  const top = (item: unknown) => record(record(record(item).snippet).topLevelComment)
  return findAmongReplies<unknown>({
    readPage: async (pageToken) => {
      const body = await getJson(
        ctx,
        'commentThreads',
        {
          part: 'snippet',
          videoId: request.root.remoteId,
          maxResults: '100',
          order: 'time',
          ...(pageToken === undefined ? {} : { pageToken }),
        },
        request.credentials.accessToken,
        request.signal,
      )
      const rows = Array.isArray(body.items) ? (body.items as unknown[]) : []
      return typeof body.nextPageToken === 'string' ? { rows, next: body.nextPageToken } : { rows }
    },
    newestFirst: true,
    where: `the comments on ${request.root.url}`,
    content: request.content,
    since: request.since,
    exclude: request.excludeRemoteIds,
    idOf: (item) => {
      const id = record(item).id
      return typeof id === 'string' ? id : undefined
    },
    textOf: (item) => String(record(top(item).snippet).textOriginal ?? ''),
    timeOf: (item) => Date.parse(String(record(top(item).snippet).publishedAt ?? '')),
    result: (item) => ({
      remoteId: String(record(item).id),
      url: commentUrl(ctx, videoId, String(record(item).id)),
    }),
  })
}
