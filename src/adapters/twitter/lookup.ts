import { z } from 'zod'
import { type ItemLookupRequest, type LookupAnswer, type LookupRequest, PublishFailure } from '../adapter.js'
import { lookUpRecent, toLookupAnswer } from '../lookup-scan.js'
import { API_TIMEOUT_MS, expectOk, sendToTwitter, type TwitterContext, tweetUrl } from './client.js'
import { copyTokens, hasWords, sameCopy, type TimelinePost } from './post-text.js'

const urlEntities = z.object({ urls: z.array(z.object({}).passthrough()).optional() }).optional()
const note = z.object({ text: z.string(), entities: urlEntities }).optional()
const timeline = z.object({
  data: z
    .array(
      z.object({
        id: z.string(),
        text: z.string(),
        created_at: z.string().optional(),
        entities: urlEntities,
        note_post: note,
        note_tweet: note,
        attachments: z.object({ media_keys: z.array(z.string()).optional() }).optional(),
        conversation_id: z.string().optional(),
      }),
    )
    .optional(),
  meta: z.object({ next_token: z.string().optional() }).optional(),
})

/** X's clocks and Herald's may disagree a little: look a minute before the attempt began. */
const CLOCK_SLACK_MS = 60_000

/** X serves at most 100 posts a page. */
const PAGE_SIZE = 100

/**
 * Looks for the post an unanswered `POST /2/tweets` may have made among the profile's posts (`GET
 * /2/users/:id/tweets`, newest first) created since the attempt began (`start_time`), page after page
 * (`pagination_token`). The strongest key decides: the media the attempt uploaded (recorded as progress
 * `media` before the post was sent) in the post's `attachments.media_keys`; without media, the copy as X
 * gives it back (see `post-text.ts`: the whole text of a long post, links expanded, entities decoded, NFC).
 * Copy of links alone, several matches, or a profile too busy to read back is `ambiguous`; posts other
 * targets hold never match.
 */
export async function findTweet(
  ctx: TwitterContext,
  request: LookupRequest,
  /** Only replies in this conversation (the thread's first post) match. */
  conversationId?: string,
): Promise<LookupAnswer> {
  const startTime = new Date(request.since - CLOCK_SLACK_MS).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const mediaIds = (request.progress?.media ?? '').split(',').filter(Boolean)
  const urlOf = (id: string) => tweetUrl(ctx, request.profile.username, id)
  const answer = await lookUpRecent<TimelinePost & { conversation_id?: string }>({
    where: `@${request.profile.username}'s posts on X`,
    readPage: async (cursor) => {
      const answer = await sendToTwitter(ctx, {
        method: 'GET',
        path: `/2/users/${encodeURIComponent(request.profile.profileId)}/tweets`,
        query: {
          max_results: String(PAGE_SIZE),
          start_time: startTime,
          // The whole text of a long post is only in note_post; links only in entities.
          'post.fields': `created_at,entities,note_post,attachments${conversationId ? ',conversation_id' : ''}`,
          ...(cursor ? { pagination_token: cursor } : {}),
        },
        bearer: request.credentials.accessToken,
        signal: request.signal,
        timeoutMs: API_TIMEOUT_MS,
        what: 'the recent posts',
      })
      const body = timeline.safeParse(expectOk(ctx, answer, 'read', [request.credentials.accessToken]))
      // An answer Herald cannot read is no proof the post is absent: the lookup could not ask.
      if (!body.success)
        throw new PublishFailure(
          'unknown_outcome',
          "X answered the profile's recent posts in a form Herald could not read",
        )
      // Every row goes to the scan, posts of other conversations too: a page of them alone is not the last.
      return { rows: body.data.data ?? [], next: body.data.meta?.next_token }
    },
    idOf: (tweet) => tweet.id,
    urlOf: (tweet) => urlOf(tweet.id),
    isMatch: (tweet) =>
      (conversationId === undefined || tweet.conversation_id === conversationId) &&
      (mediaIds.length > 0
        ? (tweet.attachments?.media_keys ?? []).some((key) => mediaIds.includes(key.split('_').at(-1) ?? ''))
        : sameCopy(tweet, request.content, request.mediaUrls)),
    distinctive: mediaIds.length > 0 || hasWords(copyTokens(request.content)),
    exclude: request.excludeRemoteIds,
    // start_time already leaves the older posts out.
    isOlder: () => false,
  })
  return toLookupAnswer(answer, (tweet) => ({ remoteId: tweet.id, url: urlOf(tweet.id) }))
}

/**
 * An unanswered reply (a thread item, a first comment) is looked for among the profile's posts
 * since the call, in the conversation of the thread's first post (`conversation_id`), by its copy.
 */
export function findReply(ctx: TwitterContext, request: ItemLookupRequest): Promise<LookupAnswer> {
  return findTweet(
    ctx,
    {
      targetId: request.targetId,
      profile: request.profile,
      credentials: request.credentials,
      content: request.content,
      mediaUrls: request.mediaUrls,
      since: request.since,
      excludeRemoteIds: [request.root.remoteId, ...request.excludeRemoteIds],
      signal: request.signal,
    },
    request.root.remoteId,
  )
}
