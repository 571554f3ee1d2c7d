import type { FastifyInstance, FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import { authorize, badParam, envelope, onlyKnown, TikTokApiError } from './errors.js'
import type { TikTokPost } from './model.js'
import { RATE_LIMITS, type TikTokSandboxState } from './state.js'

/**
 * The Display API (reference A.3, A.10): `GET /v2/user/info/`, and `POST /v2/video/list/` and
 * `POST /v2/video/query/` over the creator's public posts. `fields` is the only query parameter; each field
 * needs its scope, an unknown one is `invalid_params`. The list pages newest first by `create_time`, its
 * `cursor` an epoch in ms, `has_more` saying whether there is more; a page may be cut short by the fault
 * injector with its cursor kept.
 */

const USER_FIELDS: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
}

const VIDEO_FIELDS = [
  'id',
  'create_time',
  'cover_image_url',
  'share_url',
  'video_description',
  'duration',
  'height',
  'width',
  'title',
  'embed_html',
  'embed_link',
  'like_count',
  'comment_count',
  'share_count',
  'view_count',
  'is_aigc',
] as const

function fieldsOf(
  state: TikTokSandboxState,
  request: FastifyRequest,
  where: string,
  known: readonly string[],
) {
  const query = new URL(request.url, 'http://sandbox.invalid').searchParams
  const extra = [...query.keys()].filter((key) => key !== 'fields')
  if (extra.length > 0) throw badParam(state, where, `unknown query parameter ${extra.join(', ')}`)
  const fields = (query.get('fields') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
  if (fields.length === 0) throw badParam(state, where, 'fields is required')
  const unknown = fields.filter((field) => !known.includes(field))
  if (unknown.length > 0) throw badParam(state, where, `unknown field ${unknown.join(', ')}`)
  return fields
}

function userInfo(state: TikTokSandboxState, request: FastifyRequest) {
  const token = authorize(state, request, ['user.info.basic'])
  if (!state.allow(`display:${token.clientKey}:user`, RATE_LIMITS.display))
    throw new TikTokApiError(
      429,
      'rate_limit_exceeded',
      'Your request is blocked due to exceeding the API rate limit.',
    )
  const fields = fieldsOf(state, request, 'user/info', Object.keys(USER_FIELDS))
  const missing = fields.filter((field) => !token.scopes.includes(USER_FIELDS[field] as string))
  if (missing.length > 0)
    throw new TikTokApiError(
      401,
      'scope_permission_missed',
      `The fields ${missing.join(', ')} need more scopes.`,
    )
  const user = state.users.get(token.openId)!
  const all: Record<string, unknown> = {
    open_id: user.openId,
    union_id: user.unionId,
    avatar_url: user.avatarUrl,
    avatar_url_100: user.avatarUrl,
    avatar_large_url: user.avatarUrl,
    display_name: user.displayName,
    bio_description: '',
    profile_deep_link: `${state.webUrl()}/@${user.username}`,
    is_verified: false,
    username: user.username,
    follower_count: user.followers,
    following_count: user.following,
    likes_count: user.likes,
    video_count: state.listed(user.openId).length,
  }
  return envelope({ user: Object.fromEntries(fields.map((field) => [field, all[field]])) })
}

/** A post as the Display API's video object, with the fields asked for. */
function videoObject(state: TikTokSandboxState, post: TikTokPost, fields: readonly string[]) {
  const all: Record<string, unknown> = {
    id: post.id,
    create_time: Math.floor(post.createdAt / 1000),
    cover_image_url: `https://p16-sign.tiktokcdn.example/obj/${post.id}~tplv-noop.image`,
    share_url: state.shareUrl(post),
    video_description: post.kind === 'photo' ? post.description : post.title,
    duration: post.durationSeconds,
    height: 1920,
    width: 1080,
    title: post.title,
    embed_html: `<blockquote class="tiktok-embed" cite="${state.shareUrl(post)}"></blockquote>`,
    embed_link: `https://www.tiktok.com/player/v1/${post.id}`,
    like_count: post.counts.likes,
    comment_count: post.counts.comments,
    share_count: post.counts.shares,
    view_count: post.counts.views,
    is_aigc: false,
  }
  return Object.fromEntries(fields.map((field) => [field, all[field]]))
}

function displayCaller(state: TikTokSandboxState, request: FastifyRequest, what: string) {
  const token = authorize(state, request, ['video.list'])
  if (!state.allow(`display:${token.clientKey}:${what}`, RATE_LIMITS.display))
    throw new TikTokApiError(
      429,
      'rate_limit_exceeded',
      'Your request is blocked due to exceeding the API rate limit.',
    )
  return token
}

function videoList(state: TikTokSandboxState, request: FastifyRequest) {
  const token = displayCaller(state, request, 'list')
  const fields = fieldsOf(state, request, 'video/list', VIDEO_FIELDS)
  const body = onlyKnown(state, 'video/list body', request.body, ['cursor', 'max_count'])
  const max = body.max_count === undefined ? 10 : Number(body.max_count)
  if (!Number.isInteger(max) || max < 1 || max > 20)
    throw badParam(state, 'video/list', 'max_count is 1 to 20')
  const cursor = body.cursor === undefined ? undefined : Number(body.cursor)
  if (cursor !== undefined && !Number.isFinite(cursor))
    throw badParam(state, 'video/list', 'cursor is an epoch in ms')
  const older = state.listed(token.openId).filter((post) => cursor === undefined || post.createdAt < cursor)
  const served = Math.min(max, servedRows(request) ?? max)
  const page = older.slice(0, served)
  const last = page.at(-1)
  const hasMore = older.length > page.length
  return envelope({
    videos: page.map((post) => videoObject(state, post, fields)),
    // A page cut short before its first row still moves on from where it was asked.
    cursor: last ? last.createdAt : (cursor ?? state.now()),
    has_more: hasMore,
  })
}

function videoQuery(state: TikTokSandboxState, request: FastifyRequest) {
  const token = displayCaller(state, request, 'query')
  const fields = fieldsOf(state, request, 'video/query', VIDEO_FIELDS)
  const body = onlyKnown(state, 'video/query body', request.body, ['filters'])
  const filters = onlyKnown(state, 'video/query filters', body.filters, ['video_ids'])
  const ids = filters.video_ids
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > 20 ||
    !ids.every((id) => typeof id === 'string')
  )
    throw badParam(state, 'video/query', 'filters.video_ids takes 1 to 20 ids as strings')
  const listed = new Map(state.listed(token.openId).map((post) => [post.id, post]))
  const videos = (ids as string[]).flatMap((id) => {
    const post = listed.get(id)
    return post ? [videoObject(state, post, fields)] : []
  })
  return envelope({ videos })
}

export function registerDisplayRoutes(app: FastifyInstance, state: TikTokSandboxState): void {
  app.get('/v2/user/info/', async (request) => userInfo(state, request))
  app.post('/v2/video/list/', async (request) => videoList(state, request))
  app.post('/v2/video/query/', async (request) => videoQuery(state, request))
}
