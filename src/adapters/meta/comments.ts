import type { ItemLookupRequest, ItemRequest, LookupAnswer, PublishResult } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { findAmongReplies } from '../lookup-scan.js'
import { callGraph, type GraphClient } from './graph.js'

/**
 * A first comment on a Facebook post (`POST /{post-id}/comments`, as the Page, with
 * `pages_manage_engagement`) or on Instagram media (`POST /{ig-media-id}/comments`, as the account, with
 * `instagram_manage_comments` / `instagram_business_manage_comments`). The comment is text only
 * (`message`); a lost answer is an unknown outcome, looked up among the object's comments by its copy.
 */

export interface CommentNetwork {
  label: string
  /** The field of a listed comment that holds its text (`message` on Facebook, `text` on Instagram). */
  textField: 'message' | 'text'
  /** The field with its creation time (`created_time` / `timestamp`). */
  timeField: 'created_time' | 'timestamp'
  /** Where a person reads the comment. */
  commentUrl(postUrl: string, commentId: string): string
}

export const FACEBOOK_COMMENTS: CommentNetwork = {
  label: 'Facebook',
  textField: 'message',
  timeField: 'created_time',
  commentUrl: (postUrl, id) => `${postUrl}${postUrl.includes('?') ? '&' : '?'}comment_id=${id}`,
}

export const INSTAGRAM_COMMENTS: CommentNetwork = {
  label: 'Instagram',
  textField: 'text',
  timeField: 'timestamp',
  commentUrl: (postUrl) => postUrl,
}

export async function publishComment(
  net: CommentNetwork,
  graph: GraphClient,
  request: ItemRequest,
): Promise<PublishResult> {
  if (request.content.trim() === '')
    throw new PublishFailure('invalid_content', `A ${net.label} comment needs text`)
  if (request.mediaUrls.length > 0)
    throw new PublishFailure('invalid_content', `Herald posts ${net.label} first comments as text only`)
  const created = await callGraph(graph, {
    method: 'POST',
    path: `/${request.root.remoteId}/comments`,
    params: { message: request.content },
    token: request.credentials.accessToken,
    signal: request.signal,
    what: 'the first comment',
    mayHaveTakenEffect: true,
  })
  const id = typeof created.id === 'string' ? created.id : undefined
  if (!id)
    throw new PublishFailure(
      'unknown_outcome',
      `${net.label} accepted the comment but answered no comment id`,
    )
  return { remoteId: id, url: net.commentUrl(request.root.url, id) }
}

/**
 * Reads every page of the object's comments (Graph's `after` cursors, 25 a page by default) and relies on
 * no order of Graph's. Not `readAllPages`: it stops quietly at its bound, and a lookup must know whether
 * it read everything before it may answer absent.
 */
export async function findComment(
  net: CommentNetwork,
  graph: GraphClient,
  request: ItemLookupRequest,
): Promise<LookupAnswer> {
  const fields = `id,${net.textField},${net.timeField}`
  return findAmongReplies<Record<string, unknown>>({
    readPage: async (after) => {
      const body = await callGraph(graph, {
        method: 'GET',
        path: `/${request.root.remoteId}/comments`,
        params: after === undefined ? { fields } : { fields, after },
        token: request.credentials.accessToken,
        signal: request.signal,
        what: 'the comments',
      })
      const rows = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : []
      const paging = body.paging as { next?: unknown; cursors?: { after?: unknown } } | undefined
      const next = paging?.cursors?.after
      return typeof paging?.next === 'string' && typeof next === 'string' ? { rows, next } : { rows }
    },
    where: `the comments on ${request.root.url}`,
    content: request.content,
    since: request.since,
    exclude: request.excludeRemoteIds,
    idOf: (row) => (typeof row.id === 'string' ? row.id : undefined),
    textOf: (row) => String(row[net.textField] ?? ''),
    timeOf: (row) => {
      const time = row[net.timeField]
      return typeof time === 'string' ? Date.parse(time.replace(/\+0000$/, 'Z')) : Number.NaN
    },
    result: (row) => ({ remoteId: String(row.id), url: net.commentUrl(request.root.url, String(row.id)) }),
  })
}
