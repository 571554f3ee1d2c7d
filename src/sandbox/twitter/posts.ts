import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import { avatarUrlUnder } from '../web/avatar-png.js'
import { defineEndpoint } from './endpoint.js'
import { ProblemReply, problems } from './problems.js'
import { type SandboxAccount, type SandboxTweet, type TwitterSandboxState, textLimits } from './state.js'
import { renderPost } from './text.js'

/**
 * twitter-text 3.1.0 is CommonJS without types; loading it through `require` gives the same object under
 * Node and under the test runner (whose default-import interop differs for its `__esModule` flag).
 */
const twitterText = createRequire(import.meta.url)('twitter-text') as {
  parseTweet(text: string): { weightedLength: number; valid: boolean }
}

/** `user.fields` values the OpenAPI (v2.167) allows. */
const userFields = new Set([
  'confirmed_email',
  'connection_status',
  'created_at',
  'description',
  'entities',
  'id',
  'is_identity_verified',
  'location',
  'name',
  'parody',
  'profile_banner_url',
  'profile_image_url',
  'protected',
  'public_metrics',
  'receives_your_dm',
  'subscribes_to_you',
  'subscription',
  'subscription_type',
  'url',
  'username',
  'verified',
  'verified_followers_count',
  'verified_type',
  'withheld',
])

/** `post.fields` values the OpenAPI (v2.167) allows. */
const postFields = new Set([
  'article',
  'article_title',
  'attachments',
  'card_uri',
  'community_id',
  'context_annotations',
  'conversation_id',
  'created_at',
  'display_text_range',
  'edit_controls',
  'entities',
  'geo',
  'id',
  'lang',
  'matched_media_notes',
  'media_metadata',
  'non_public_metrics',
  'note_post',
  'note_request_suggestions',
  'organic_metrics',
  'paid_partnership',
  'possibly_sensitive',
  'promoted_metrics',
  'public_metrics',
  'reply_settings',
  'scopes',
  'source',
  'suggested_source_links',
  'suggested_source_links_with_counts',
  'text',
  'withheld',
])

/** Top-level properties of `CreatePostsRequest`; X refuses any other (additionalProperties: false). */
const createPostProperties = new Set([
  'card_uri',
  'community_id',
  'direct_message_deep_link',
  'edit_options',
  'for_super_followers_only',
  'geo',
  'made_with_ai',
  'media',
  'nullcast',
  'paid_partnership',
  'poll',
  'quote_tweet_id',
  'reply',
  'reply_settings',
  'share_with_followers',
  'text',
])

/** Private metric groups: own posts only, and only for 30 days after posting. */
const privateGroups = ['non_public_metrics', 'organic_metrics', 'promoted_metrics'] as const
const PRIVATE_METRICS_DAYS = 30

/**
 * Validates the query string as X does: an unknown parameter, or a field value outside the allowed
 * list, is a 400 naming it. Returns the requested field lists by parameter.
 */
export function readQuery(
  query: unknown,
  allowed: Record<string, Set<string> | 'any'>,
): Record<string, string[]> {
  const errors: { parameters: Record<string, string[]>; message: string }[] = []
  const out: Record<string, string[]> = {}
  for (const [name, raw] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const value = Array.isArray(raw) ? raw.join(',') : String(raw)
    const rule = allowed[name]
    if (!rule) {
      errors.push({
        parameters: { [name]: [value] },
        message: `The query parameter [${name}] is not one of [${Object.keys(allowed).join(',')}]`,
      })
      continue
    }
    const values = value.split(',').filter(Boolean)
    const bad = rule === 'any' ? [] : values.filter((item) => !rule.has(item))
    if (bad.length > 0) {
      errors.push({
        parameters: { [name]: [value] },
        message: `The \`${name}\` query parameter value [${bad.join(',')}] is not one of [${[...(rule as Set<string>)].join(',')}]`,
      })
    }
    out[name] = values
  }
  if (errors.length > 0) throw new ProblemReply(400, problems.invalidParameters(errors))
  return out
}

function userData(state: TwitterSandboxState, account: SandboxAccount, fields: string[]) {
  const data: Record<string, unknown> = { id: account.id, name: account.name, username: account.username }
  if (fields.includes('profile_image_url'))
    data.profile_image_url = state.options.publicUrl
      ? avatarUrlUnder(`${state.options.publicUrl}/web`, account.id)
      : account.profileImageUrl
  if (fields.includes('created_at')) data.created_at = new Date(account.createdAt).toISOString()
  if (fields.includes('protected')) data.protected = false
  if (fields.includes('verified')) data.verified = account.tier === 'premium'
  if (fields.includes('description')) data.description = ''
  if (fields.includes('public_metrics')) {
    const posts = state.postCount(account.id)
    data.public_metrics = {
      followers_count: account.followersCount,
      following_count: account.followingCount,
      ...(state.options.legacyFieldNames ? { tweet_count: posts } : { post_count: posts, media_count: 0 }),
      listed_count: account.listedCount,
      like_count: account.likeCount,
    }
  }
  return data
}

function tweetData(state: TwitterSandboxState, tweet: SandboxTweet, fields: string[]) {
  const history = state.options.legacyFieldNames ? 'edit_history_tweet_ids' : 'edit_history_post_ids'
  const { rendered } = tweet
  const data: Record<string, unknown> = { id: tweet.id, text: rendered.text, [history]: [tweet.id] }
  if (fields.includes('created_at')) data.created_at = new Date(tweet.createdAt).toISOString()
  if (fields.includes('conversation_id')) data.conversation_id = tweet.conversationId
  if (fields.includes('entities') && rendered.urls.length > 0) data.entities = { urls: rendered.urls }
  if (fields.includes('note_post') && rendered.note) {
    const note = { text: rendered.note.text, entities: { urls: rendered.note.urls } }
    data[state.options.legacyFieldNames ? 'note_tweet' : 'note_post'] = note
  }
  if (fields.includes('attachments') && tweet.mediaIds.length > 0) {
    data.attachments = { media_keys: tweet.mediaIds.map((id) => state.media.get(id)?.mediaKey ?? id) }
  }
  const metrics = state.tweetMetrics(tweet)
  if (fields.includes('public_metrics')) data.public_metrics = metrics.public_metrics
  if (fields.includes('non_public_metrics')) data.non_public_metrics = metrics.non_public_metrics
  if (fields.includes('organic_metrics')) data.organic_metrics = metrics.organic_metrics
  return data
}

function checkMedia(state: TwitterSandboxState, ownerId: string, ids: unknown): string[] {
  const invalid = () => new ProblemReply(400, problems.invalid('Your media IDs are invalid.'))
  if (typeof ids !== 'object' || ids === null || !Array.isArray((ids as { media_ids?: unknown }).media_ids)) {
    throw invalid()
  }
  const list = (ids as { media_ids: unknown[] }).media_ids
  if (list.length < 1 || list.length > 4) throw invalid()
  const media = list.map((id) => (typeof id === 'string' ? state.media.get(id) : undefined))
  for (const item of media) {
    if (!item || item.ownerId !== ownerId || item.finalizedAt === undefined) throw invalid()
    if (state.processingInfo(item)?.state !== 'succeeded') throw invalid()
  }
  // Up to 4 images, or exactly one video or GIF.
  const single = media.filter((item) => item?.kind !== 'image')
  if (single.length > 0 && media.length > 1) throw invalid()
  return list as string[]
}

/**
 * `reply` as `CreatePostsReply` declares it (`in_reply_to_tweet_id` required, `^[0-9]{1,19}$`, no other
 * properties than `exclude_reply_user_ids` and `auto_populate_reply_metadata`); a post that does not exist
 * is X's 403 for a reply to a post "deleted or not visible to you".
 */
function checkReply(state: TwitterSandboxState, reply: unknown): SandboxTweet {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply))
    throw new ProblemReply(400, problems.invalid('$.reply: must be an object.'))
  const allowed = new Set(['in_reply_to_tweet_id', 'exclude_reply_user_ids', 'auto_populate_reply_metadata'])
  const unknown = Object.keys(reply).filter((key) => !allowed.has(key))
  if (unknown.length > 0)
    throw new ProblemReply(
      400,
      problems.invalid(
        `$.reply.${unknown[0]}: is not defined in the schema and the schema does not allow additional properties`,
      ),
    )
  const id = (reply as { in_reply_to_tweet_id?: unknown }).in_reply_to_tweet_id
  if (typeof id !== 'string' || !/^[0-9]{1,19}$/.test(id))
    throw new ProblemReply(
      400,
      problems.invalid('$.reply.in_reply_to_tweet_id: does not match the regex pattern ^[0-9]{1,19}$'),
    )
  const parent = state.tweets.get(id)
  if (!parent)
    throw new ProblemReply(
      403,
      problems.forbidden('You attempted to reply to a Tweet that is deleted or not visible to you.'),
    )
  return parent
}

/** Stores a post (or a reply to `parent`) as X keeps it, with the next id and the clock's time. */
export function saveTweet(
  state: TwitterSandboxState,
  input: {
    account: SandboxAccount
    text: string
    mediaIds: string[]
    clientId: string
    parent?: SandboxTweet
  },
): SandboxTweet {
  const { account, text, mediaIds, parent } = input
  const id = state.nextId()
  const mediaKeys = mediaIds.map((mediaId) => state.media.get(mediaId)?.mediaKey ?? mediaId)
  const firstKind = mediaIds.length > 0 ? state.media.get(mediaIds[0]!)?.kind : undefined
  const tweet: SandboxTweet = {
    id,
    text,
    rendered: renderPost({
      text,
      mediaKeys,
      mediaPath: `${account.username}/status/${id}/${firstKind === 'image' ? 'photo' : 'video'}/1`,
      newTco: () => state.nextTco(),
    }),
    authorId: account.id,
    username: account.username,
    mediaIds,
    clientId: input.clientId,
    createdAt: state.now(),
    conversationId: parent ? parent.conversationId : id,
    ...(parent ? { inReplyToId: parent.id } : {}),
  }
  state.tweets.set(tweet.id, tweet)
  return tweet
}

/** GET /2/users/me, POST /2/tweets and GET /2/tweets/{id}, mounted under `${prefix}/api`. */
export function registerPostRoutes(app: FastifyInstance, state: TwitterSandboxState) {
  defineEndpoint(
    app,
    state,
    {
      method: 'GET',
      url: '/2/users/me',
      endpoint: 'getUsersMe',
      auth: 'bearer',
      scopes: ['tweet.read', 'users.read'],
    },
    ({ request, auth }) => {
      const query = readQuery(request.query, {
        'user.fields': userFields,
        expansions: 'any',
        'post.fields': postFields,
        'tweet.fields': postFields,
      })
      return { status: 200, body: { data: userData(state, auth!.account, query['user.fields'] ?? []) } }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'POST',
      url: '/2/tweets',
      endpoint: 'createPosts',
      auth: 'bearer',
      scopes: ['tweet.read', 'tweet.write', 'users.read'],
      write: true,
    },
    ({ request, auth }) => {
      const account = auth!.account
      const body = request.body
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ProblemReply(400, problems.invalid('The request body must be a JSON object.'))
      }
      const unknown = Object.keys(body).filter((key) => !createPostProperties.has(key))
      if (unknown.length > 0) {
        throw new ProblemReply(
          400,
          problems.invalidParameters(
            unknown.map((key) => ({
              parameters: { [key]: [] },
              message: `$.${key}: is not defined in the schema and the schema does not allow additional properties`,
            })),
          ),
        )
      }
      const {
        text: rawText = '',
        media,
        reply,
      } = body as { text?: unknown; media?: unknown; reply?: unknown }
      const parent = reply === undefined ? undefined : checkReply(state, reply)
      if (typeof rawText !== 'string')
        throw new ProblemReply(400, problems.invalid('$.text: must be a string.'))
      const text = rawText
      const mediaIds = media === undefined ? [] : checkMedia(state, account.id, media)
      if (text === '' && mediaIds.length === 0) {
        throw new ProblemReply(400, problems.invalid('Post text is required unless media is provided.'))
      }
      const limit = textLimits[account.tier]
      if (twitterText.parseTweet(text).weightedLength > limit) {
        throw new ProblemReply(
          400,
          problems.invalid(
            'Your Tweet text is too long. For more information on how X determines text length see https://github.com/twitter/twitter-text.',
          ),
        )
      }
      if (text !== '' && state.refusesDuplicates()) {
        for (const tweet of state.tweets.values()) {
          if (tweet.authorId === account.id && tweet.text.normalize('NFC') === text.normalize('NFC'))
            throw new ProblemReply(403, problems.duplicate())
        }
      }
      const tweet = saveTweet(state, {
        account,
        text,
        mediaIds,
        clientId: auth!.grant.clientId,
        ...(parent ? { parent } : {}),
      })
      const history = state.options.legacyFieldNames ? 'edit_history_tweet_ids' : 'edit_history_post_ids'
      return {
        status: 201,
        body: { data: { id: tweet.id, text: tweet.rendered.text, [history]: [tweet.id] } },
      }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'GET',
      url: '/2/tweets/:id',
      endpoint: 'getPostsById',
      auth: 'bearer',
      scopes: ['tweet.read', 'users.read'],
    },
    ({ request, auth }) => {
      const { id } = request.params as { id: string }
      if (!/^[0-9]{1,19}$/.test(id)) {
        throw new ProblemReply(
          400,
          problems.invalidParameters([
            { parameters: { id: [id] }, message: `The \`id\` query parameter value [${id}] is not valid` },
          ]),
        )
      }
      // The sandbox also takes `tweet.fields`, the name X's prose docs use for this parameter.
      const query = readQuery(request.query, {
        'post.fields': postFields,
        'tweet.fields': postFields,
        expansions: 'any',
        'user.fields': userFields,
        'media.fields': 'any',
        'poll.fields': 'any',
        'place.fields': 'any',
      })
      const fields = [...(query['post.fields'] ?? []), ...(query['tweet.fields'] ?? [])]
      const tweet = state.tweets.get(id)
      if (!tweet) {
        return {
          status: 200,
          body: {
            errors: [
              {
                value: id,
                detail: `Could not find post with id: [${id}].`,
                title: 'Not Found Error',
                resource_type: 'post',
                parameter: 'id',
                resource_id: id,
                type: 'https://api.x.com/2/problems/resource-not-found',
              },
            ],
          },
        }
      }
      const ownRecent =
        tweet.authorId === auth!.account.id &&
        state.now() - tweet.createdAt <= PRIVATE_METRICS_DAYS * 24 * 60 * 60 * 1000
      const refused = privateGroups.filter((group) => fields.includes(group) && !ownRecent)
      if (refused.length > 0) {
        // X answers 200 with a field-authorization problem per refused group, and no data.
        return {
          status: 200,
          body: {
            errors: refused.map((field) => ({
              value: field,
              detail: `Sorry, you are not authorized to access '${field}' on this post.`,
              title: 'Field Authorization Error',
              resource_type: 'post',
              parameter: 'post.fields',
              resource_id: id,
              field,
              section: 'data',
              type: 'https://api.x.com/2/problems/not-authorized-for-field',
            })),
          },
        }
      }
      return { status: 200, body: { data: tweetData(state, tweet, fields) } }
    },
  )

  defineEndpoint(
    app,
    state,
    {
      method: 'GET',
      url: '/2/users/:id/tweets',
      endpoint: 'getUsersPosts',
      auth: 'bearer',
      scopes: ['tweet.read', 'users.read'],
    },
    ({ request }) => {
      const { id } = request.params as { id: string }
      const query = readQuery(request.query, {
        max_results: 'any',
        start_time: 'any',
        end_time: 'any',
        since_id: 'any',
        until_id: 'any',
        pagination_token: 'any',
        exclude: new Set(['retweets', 'replies']),
        'post.fields': postFields,
        'tweet.fields': postFields,
        expansions: 'any',
        'user.fields': userFields,
        'media.fields': 'any',
        'poll.fields': 'any',
        'place.fields': 'any',
      })
      const max = Number(query.max_results?.[0] ?? 10)
      if (!Number.isInteger(max) || max < 5 || max > 100) {
        throw new ProblemReply(
          400,
          problems.invalidParameters([
            {
              parameters: { max_results: [String(query.max_results?.[0])] },
              message: `The \`max_results\` query parameter value [${query.max_results?.[0]}] is not between 5 and 100`,
            },
          ]),
        )
      }
      const start = query.start_time?.[0] ? Date.parse(query.start_time[0]) : Number.NEGATIVE_INFINITY
      const fields = [...(query['post.fields'] ?? []), ...(query['tweet.fields'] ?? [])]
      // A post shows in the timeline once X has caught up with it (`timelineLagMs` after it was made).
      const lag = state.options.timelineLagMs
      const shown = (tweet: SandboxTweet) => lag === 0 || tweet.createdAt <= state.now() - lag
      const timeline = [...state.tweets.values()]
        .filter(
          (tweet) =>
            tweet.authorId === id &&
            tweet.createdAt >= start &&
            shown(tweet) &&
            state.listed(tweet.createdAt),
        )
        .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
      // X's next_token is opaque; here it names the last post of the page before, so a page starts after it
      // (the token of no post, after an empty first page, starts at the top).
      const token = query.pagination_token?.[0]
      let from = 0
      if (token !== undefined && token !== paginationToken('')) {
        const after = timeline.findIndex((tweet) => paginationToken(tweet.id) === token)
        if (after < 0) {
          throw new ProblemReply(
            400,
            problems.invalidParameters([
              {
                parameters: { pagination_token: [token] },
                message: `The \`pagination_token\` query parameter value [${token}] is not valid`,
              },
            ]),
          )
        }
        from = after + 1
      }
      // A page may hold fewer posts than asked, even none, with a next_token to the rest (X filters a page
      // after reading it); the fault injector asks for such pages.
      const size = Math.min(max, servedRows(request) ?? max)
      const recent = timeline.slice(from, from + size)
      const more = from + size < timeline.length
      const next = more
        ? { next_token: paginationToken(recent.at(-1)?.id ?? timeline[from - 1]?.id ?? '') }
        : {}
      if (recent.length === 0) return { status: 200, body: { meta: { result_count: 0, ...next } } }
      return {
        status: 200,
        body: {
          data: recent.map((tweet) => tweetData(state, tweet, fields)),
          meta: {
            result_count: recent.length,
            newest_id: recent[0]!.id,
            oldest_id: recent.at(-1)!.id,
            ...next,
          },
        },
      }
    },
  )
}

/** An opaque-looking page token for the timeline page that follows the post `id` (the top for `''`). */
function paginationToken(id: string): string {
  return Buffer.from(`after:${id}`).toString('base64url')
}
