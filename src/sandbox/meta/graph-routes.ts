import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { graphPage, graphTime, type Params, paramsOf } from '../meta-common/graph-params.js'
import { storedCopy } from '../meta-common/text.js'
import { verifierMatches } from './oauth-routes.js'
import { validateGraphCall } from './spec-validator.js'
import type { Fault, FaultOp, IgContainer, MetaSandboxState, SandboxToken } from './state.js'

/**
 * The Graph API of graph.facebook.com (mounted at `${prefix}/graph`) and graph.instagram.com (at
 * `${prefix}/ig`): `/{version}/{id}` and `/{version}/{id}/{edge}` for Pages, Page posts, photos, videos,
 * Instagram users, containers and media; Meta's error envelope; `X-App-Usage` and
 * `X-Business-Use-Case-Usage` on every answer; and every call checked against Meta's spec files.
 */

type Host = 'facebook' | 'instagram'

class GraphFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly extra: {
      subcode?: number
      userMessage?: string
      userTitle?: string
      type?: string
      transient?: boolean
      regainMinutes?: number
    } = {},
  ) {
    super(message)
  }
}

const fail = (status: number, code: number, message: string, extra: GraphFailure['extra'] = {}) =>
  new GraphFailure(status, code, message, extra)

export function graphError(error: GraphFailure) {
  return {
    error: {
      message: error.message,
      type:
        error.extra.type ??
        (error.code === 190
          ? 'OAuthException'
          : error.code === 100
            ? 'GraphMethodException'
            : 'OAuthException'),
      code: error.code,
      ...(error.extra.subcode !== undefined ? { error_subcode: error.extra.subcode } : {}),
      ...(error.extra.transient !== undefined ? { is_transient: error.extra.transient } : {}),
      ...(error.extra.userTitle ? { error_user_title: error.extra.userTitle } : {}),
      ...(error.extra.userMessage ? { error_user_msg: error.extra.userMessage } : {}),
      fbtrace_id: `Sbx${Math.random().toString(36).slice(2, 12)}`,
    },
  }
}

function faultFailure(fault: Fault): GraphFailure {
  const code = fault.code ?? 2
  const status =
    fault.status ?? (code === 1 || code === 2 ? 500 : code === 10 || (code >= 200 && code <= 299) ? 403 : 400)
  return fail(status, code, fault.message ?? `(#${code}) Simulated error`, {
    ...(fault.subcode !== undefined ? { subcode: fault.subcode } : {}),
    ...(fault.userMessage ? { userMessage: fault.userMessage } : {}),
    ...(fault.regainMinutes !== undefined ? { regainMinutes: fault.regainMinutes } : {}),
    ...(code === 1 || code === 2 ? { transient: true } : {}),
  })
}

const bearer = (request: FastifyRequest): string | undefined => {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header) : null
  return match?.[1]?.trim()
}

const dropConnection = (request: FastifyRequest, reply: FastifyReply) => {
  reply.hijack()
  request.raw.socket?.destroy()
}

const fieldsOf = (params: Params) =>
  new Set(
    (params.fields ?? '')
      .split(',')
      .map((f) => f.split(/[.{(]/)[0]?.trim() ?? '')
      .filter(Boolean),
  )

const pick = (all: Record<string, unknown>, params: Params, defaults: string[]) => {
  const wanted = fieldsOf(params)
  const names = wanted.size > 0 ? [...wanted] : defaults
  const out: Record<string, unknown> = { id: all.id }
  for (const name of names) if (all[name] !== undefined) out[name] = all[name]
  return out
}

export function registerGraphRoutes(
  app: FastifyInstance,
  state: MetaSandboxState,
  host: Host,
  base: string,
): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const rest = (request.params as { '*': string })['*'] ?? ''
    const segments = rest.split('?')[0]!.split('/').filter(Boolean)
    if (segments[0] && /^v\d+\.\d+$/.test(segments[0])) segments.shift()
    const params = paramsOf(request)
    const token = bearer(request) ?? params.access_token
    delete params.access_token
    try {
      const body = await dispatch(state, host, request.method, segments, params, token, reply, request)
      if (body === undefined) return reply
      return reply.header('content-type', 'application/json; charset=UTF-8').send(body)
    } catch (error) {
      if (!(error instanceof GraphFailure)) throw error
      if (error.extra.regainMinutes !== undefined)
        reply.header(
          'x-business-use-case-usage',
          JSON.stringify({
            [segments[0] ?? 'app']: [
              {
                type: 'pages',
                call_count: 100,
                total_cputime: 40,
                total_time: 60,
                estimated_time_to_regain_access: error.extra.regainMinutes,
              },
            ],
          }),
        )
      return reply
        .code(error.status)
        .header('content-type', 'application/json; charset=UTF-8')
        .send(graphError(error))
    }
  }
  app.route({ method: ['GET', 'POST', 'DELETE'], url: `${base}/*`, handler })
}

async function dispatch(
  state: MetaSandboxState,
  host: Host,
  method: string,
  segments: string[],
  params: Params,
  token: string | undefined,
  reply: FastifyReply,
  request: FastifyRequest,
): Promise<unknown> {
  // Token endpoints first: they take no bearer token.
  const joined = segments.join('/')
  if (joined === 'oauth/access_token' && host === 'facebook') return facebookTokenExchange(state, params)
  if (joined === 'access_token' && host === 'instagram') return instagramExchange(state, params, token)
  if (joined === 'refresh_access_token' && host === 'instagram') return instagramRefresh(state, params, token)

  const auth = state.tokenInfo(token)
  if (!auth)
    throw fail(400, 190, 'Error validating access token: The session has been invalidated or has expired.', {
      subcode: 463,
    })
  // Instagram Login tokens work only on graph.instagram.com, Facebook tokens only on graph.facebook.com.
  if ((host === 'instagram') !== (auth.kind === 'ig'))
    throw fail(400, 190, 'Invalid OAuth access token - Cannot parse access token')
  state.calls.push({ method, path: `/${joined}`, params: { ...params } })
  // The app's rolling-hour allowance, reported as Meta does (percent used) and enforced with code 4.
  const usage = state.recordAppCall()
  reply.header('x-app-usage', JSON.stringify({ call_count: usage, total_cputime: 1, total_time: 1 }))
  if (usage >= 100) throw fail(400, 4, '(#4) Application request limit reached', { transient: true })

  const [rawId, edge, ...extra] = segments
  if (!rawId || extra.length > 0) throw fail(400, 100, 'Unknown path components')
  const id = rawId === 'me' ? auth.subjectId : rawId
  if (rawId === 'me' || state.users.has(id) || state.businesses.has(id))
    return userCall(state, auth, id, edge, params, method)

  const node = state.nodeOf(id, host)
  if (!node)
    throw fail(
      400,
      100,
      `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { subcode: 33 },
    )
  state.calls[state.calls.length - 1]!.node = node
  if (state.specs) {
    const problems = validateGraphCall(state.specs, { node, method, ...(edge ? { edge } : {}), params })
    if (problems.length > 0) {
      state.violations.push(...problems)
      throw fail(400, 100, `(#100) ${problems.join('; ')}`)
    }
  }
  if (state.pages.has(id) || state.igUsers.has(id))
    reply.header(
      'x-business-use-case-usage',
      JSON.stringify({
        [id]: [
          {
            type: state.pages.has(id) ? 'pages' : 'instagram',
            call_count: 1,
            total_cputime: 1,
            total_time: 1,
            estimated_time_to_regain_access: 0,
          },
        ],
      }),
    )

  const op: FaultOp | undefined =
    method === 'POST' &&
    (edge === 'feed' ||
      edge === 'photos' ||
      edge === 'videos' ||
      edge === 'media' ||
      edge === 'media_publish')
      ? edge
      : edge === 'insights'
        ? 'insights'
        : node === 'ShadowIGMediaBuilder'
          ? 'container_status'
          : undefined
  const fault = op ? state.takeFault(op) : undefined
  if (fault?.action === 'drop_before') {
    dropConnection(request, reply)
    return undefined
  }
  if (fault?.action === 'hang_before') {
    reply.hijack()
    return undefined
  }
  if (fault?.action === 'error') throw faultFailure(fault)
  const result = await objectCall(state, auth, node, id, edge, params, method)
  if (fault?.action === 'drop_after') {
    dropConnection(request, reply)
    return undefined
  }
  if (fault?.action === 'hang_after') {
    reply.hijack()
    return undefined
  }
  return result
}

function requireScope(auth: SandboxToken, ...anyOf: string[]) {
  if (!anyOf.some((scope) => auth.scopes.includes(scope)))
    throw fail(403, 200, `(#200) Requires ${anyOf.join(' or ')} permission to manage the object`)
}

/** The user behind a token (a Page or Instagram token acts for its Page's admin). */
function canActOnPage(state: MetaSandboxState, auth: SandboxToken, pageId: string): boolean {
  if (auth.kind === 'page') return auth.subjectId === pageId
  if (auth.kind === 'user') return state.users.get(auth.subjectId)?.pageIds.includes(pageId) ?? false
  return false
}
function canActOnIg(state: MetaSandboxState, auth: SandboxToken, igUserId: string): boolean {
  if (auth.kind === 'ig') return auth.subjectId === igUserId
  const pageId = state.igUsers.get(igUserId)?.pageId
  return pageId !== undefined && canActOnPage(state, auth, pageId)
}

function userCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  id: string,
  edge: string | undefined,
  params: Params,
  method: string,
) {
  if (method !== 'GET') throw fail(400, 100, 'Unsupported post request')
  if (auth.kind === 'ig') {
    const ig = state.igUsers.get(id)
    if (!ig) throw fail(400, 100, 'Unsupported get request', { subcode: 33 })
    if (edge) throw fail(400, 100, `Unsupported edge ${edge}`)
    return pick(
      {
        id: ig.id,
        user_id: ig.id,
        username: ig.username,
        name: ig.name,
        account_type: 'BUSINESS',
        profile_picture_url: state.pictureUrl('instagram', ig.id),
        followers_count: ig.followers,
        follows_count: ig.follows,
        media_count: state.igMediaOf(ig.id).length,
      },
      params,
      ['id', 'username'],
    )
  }
  const business = state.businesses.get(id)
  if (business) {
    if (edge !== 'owned_pages' && edge !== 'client_pages') throw fail(400, 100, `Unsupported edge ${edge}`)
    const ids = edge === 'owned_pages' ? business.pageIds : []
    return { data: ids.map((pageId) => pageView(state, pageId, auth, params)) }
  }
  const user = state.users.get(id)
  if (!user || auth.kind !== 'user' || auth.subjectId !== user.id)
    throw fail(400, 100, 'Unsupported get request', { subcode: 33 })
  switch (edge) {
    case undefined:
      return pick({ id: user.id, name: user.name }, params, ['id', 'name'])
    case 'permissions':
      return { data: auth.scopes.map((permission) => ({ permission, status: 'granted' })) }
    case 'accounts': {
      requireScope(auth, 'pages_show_list')
      const size = Number(params.limit ?? state.options.accountsPageSize ?? 25)
      const start = params.after ? Number(Buffer.from(params.after, 'base64url').toString()) : 0
      const slice = user.pageIds.slice(start, start + size)
      const next =
        start + size < user.pageIds.length
          ? Buffer.from(String(start + size)).toString('base64url')
          : undefined
      return {
        data: slice.map((pageId) => pageView(state, pageId, auth, params)),
        paging: {
          cursors: { before: 'MA', ...(next ? { after: next } : {}) },
          ...(next ? { next: `https://graph.facebook.invalid/me/accounts?after=${next}` } : {}),
        },
      }
    }
    case 'businesses':
      requireScope(auth, 'business_management')
      return {
        data: [...state.businesses.values()]
          .filter((b) => b.ownerId === user.id)
          .map((b) => ({ id: b.id, name: b.name })),
      }
    default:
      throw fail(400, 100, `Unsupported edge ${edge}`)
  }
}

/** A Page as `/me/accounts` shows it, with a Page token issued from the user's long-lived token. */
function pageView(state: MetaSandboxState, pageId: string, auth: SandboxToken, params: Params) {
  const page = state.pages.get(pageId)!
  const pageToken = state.issueToken(
    'page',
    page.id,
    auth.scopes,
    auth.longLived ? undefined : 3600,
    auth.longLived,
  )
  const ig = page.igUserId ? state.igUsers.get(page.igUserId) : undefined
  return pick(
    {
      id: page.id,
      name: page.name,
      username: page.username,
      access_token: pageToken.token,
      tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
      picture: { data: { url: state.pictureUrl('facebook', page.id) } },
      ...(ig
        ? {
            instagram_business_account: {
              id: ig.id,
              username: ig.username,
              name: ig.name,
              profile_picture_url: state.pictureUrl('instagram', ig.id),
            },
          }
        : {}),
    },
    params,
    ['id', 'name', 'access_token'],
  )
}

const permalinkOfPost = (state: MetaSandboxState, postId: string) => {
  const [pageId, storyId] = postId.split('_')
  return `${state.webUrl('facebook')}/${pageId}/posts/${storyId}`
}
const shortcode = (id: string) => Buffer.from(id).toString('base64url').slice(0, 11)
const igPermalink = (state: MetaSandboxState, media: { productType: string; shortcode: string }) =>
  `${state.webUrl('instagram')}/${media.productType === 'REELS' ? 'reel' : 'p'}/${media.shortcode}/`

async function objectCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  node: string,
  id: string,
  edge: string | undefined,
  params: Params,
  method: string,
): Promise<unknown> {
  if (edge === 'comments' && node !== 'Page' && !node.startsWith('IGUser') && node !== 'ShadowIGMediaBuilder')
    return commentsCall(state, auth, node, id, params, method)
  switch (node) {
    case 'Page':
      return pageCall(state, auth, id, edge, params, method)
    case 'PagePost':
    case 'Photo':
    case 'AdVideo':
      return pageObjectCall(state, auth, node, id, edge, params)
    case 'IGUser':
    case 'IGUserForIGOnlyAPI':
      return igUserCall(state, auth, id, edge, params, method)
    case 'ShadowIGMediaBuilder':
      return containerStatus(state, auth, id, params)
    default:
      return igMediaCall(state, auth, id, edge, params)
  }
}

/** Comment limits as the networks enforce them: Facebook 8,000 characters, Instagram 2,200. */
const COMMENT_LIMITS = { facebook: 8_000, instagram: 2_200 } as const

/**
 * `POST /{object}/comments` (`message`) and `GET /{object}/comments` on a Facebook post, photo or video
 * (`pages_manage_engagement`, as the Page) and on Instagram media (`instagram_manage_comments`, or
 * `instagram_business_manage_comments` with Instagram Login, as the account). The listing is paged as
 * Graph pages edges: 25 a page unless `limit` says, `after` cursors, `paging.next` while more follow.
 */
function commentsCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  node: string,
  id: string,
  params: Params,
  method: string,
) {
  const instagram = node.startsWith('IGMedia')
  const ownerId = instagram
    ? state.media.get(id)!.igUserId
    : node === 'PagePost'
      ? state.posts.get(id)!.pageId
      : node === 'Photo'
        ? state.photos.get(id)!.pageId
        : state.videos.get(id)!.pageId
  if (instagram ? !canActOnIg(state, auth, ownerId) : !canActOnPage(state, auth, ownerId))
    throw fail(403, 10, '(#10) Application does not have permission for this action')
  if (method === 'POST') {
    if (instagram) requireScope(auth, 'instagram_manage_comments', 'instagram_business_manage_comments')
    else requireScope(auth, 'pages_manage_engagement')
    const message = params.message ?? ''
    if (message.trim() === '') throw fail(400, 100, '(#100) The parameter message is required')
    const limit = COMMENT_LIMITS[instagram ? 'instagram' : 'facebook']
    if ([...message].length > limit)
      throw fail(400, 100, `(#100) The comment must be at most ${limit} characters`)
    const comment = {
      id: `${instagram ? '1790' : `${id.split('_').at(-1)}_`}${String(state.comments.size + 1).padStart(8, '0')}`,
      objectId: id,
      network: instagram ? ('instagram' as const) : ('facebook' as const),
      fromId: ownerId,
      message,
      createdAt: state.now(),
    }
    state.comments.set(comment.id, comment)
    return { id: comment.id }
  }
  const all = [...state.comments.values()]
    .filter((c) => c.objectId === id && state.listed(c.network, c.createdAt))
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((c) =>
      instagram
        ? {
            id: c.id,
            text: c.message,
            timestamp: new Date(c.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
          }
        : {
            id: c.id,
            message: c.message,
            created_time: new Date(c.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
            permalink_url: `${state.webUrl('facebook')}/${c.objectId}?comment_id=${c.id}`,
          },
    )
  const page = pageOf(all, params, `/${id}/comments`)
  return { data: page.rows.map((row) => pick(row, params, ['id'])), paging: page.paging }
}

async function pageCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  pageId: string,
  edge: string | undefined,
  params: Params,
  method: string,
) {
  if (!canActOnPage(state, auth, pageId))
    throw fail(403, 10, '(#10) The user does not have permission to act on this Page')
  const page = state.pages.get(pageId)!
  const now = state.now()
  if (method === 'GET' && edge === undefined) {
    return pick(
      {
        id: page.id,
        name: page.name,
        username: page.username,
        followers_count: page.followers,
        fan_count: page.followers - 40,
        link: `${state.webUrl('facebook')}/${page.username}`,
        instagram_business_account: page.igUserId ? { id: page.igUserId } : undefined,
      },
      params,
      ['id', 'name'],
    )
  }
  if (method === 'POST' && edge === 'feed') {
    requireScope(auth, 'pages_manage_posts')
    const attached = params.attached_media
      ? (JSON.parse(params.attached_media) as { media_fbid: string }[])
      : []
    for (const item of attached) {
      const photo = state.photos.get(item.media_fbid)
      if (!photo || photo.pageId !== pageId || photo.published)
        throw fail(
          400,
          100,
          `(#100) attached_media: ${item.media_fbid} is not an unpublished photo of this Page`,
        )
    }
    if (!params.message && !params.link && attached.length === 0)
      throw fail(400, 100, '(#100) Missing message or attachment')
    if (
      [...state.posts.values()].some(
        (p) =>
          state.refusesDuplicates('facebook') &&
          p.pageId === pageId &&
          p.message === storedCopy(params.message) &&
          p.message &&
          now - p.createdAt < 60_000 &&
          attached.length === 0,
      )
    )
      throw fail(400, 506, '(#506) Duplicate status message', {
        userMessage:
          'This status update is identical to the last one you posted. Try posting something different.',
      })
    const post = {
      id: `${pageId}_${state.newId('9')}`,
      pageId,
      message: storedCopy(params.message),
      attachedMedia: attached.map((a) => a.media_fbid),
      createdAt: now,
      kind: attached.length > 0 ? ('album' as const) : ('status' as const),
      ...(params.link ? { link: params.link } : {}),
    }
    state.posts.set(post.id, post)
    for (const photoId of post.attachedMedia) {
      const photo = state.photos.get(photoId)!
      photo.postId = post.id
    }
    return { id: post.id }
  }
  if (method === 'POST' && edge === 'photos') {
    requireScope(auth, 'pages_manage_posts')
    if (!params.url) throw fail(400, 100, '(#100) url is required (or a multipart source)')
    const check = await state.fetchMedia(params.url, 'fb_photo')
    if (!check.ok)
      throw fail(400, 100, 'Invalid parameter', {
        subcode: check.subcode ?? 1366046,
        userTitle: 'Photo could not be used',
        userMessage: check.message ?? '',
      })
    const published = params.published !== 'false'
    const photo = {
      id: state.newId('8'),
      pageId,
      url: params.url,
      published,
      contentType: check.format ?? 'other',
      ...(params.alt_text_custom ? { altText: params.alt_text_custom } : {}),
    }
    state.photos.set(photo.id, photo)
    if (!published) return { id: photo.id }
    const post = {
      id: `${pageId}_${photo.id}`,
      pageId,
      message: storedCopy(params.message ?? params.caption),
      attachedMedia: [photo.id],
      createdAt: now,
      kind: 'photo' as const,
    }
    state.posts.set(post.id, post)
    Object.assign(photo, { postId: post.id })
    return { id: photo.id, post_id: post.id }
  }
  if (method === 'POST' && edge === 'videos') {
    requireScope(auth, 'publish_video')
    if (!params.file_url) throw fail(400, 100, '(#100) file_url is required')
    const video = {
      id: state.newId('7'),
      createdAt: now,
      pageId,
      fileUrl: params.file_url,
      description: storedCopy(params.description),
      polls: state.options.videoPolls ?? 1,
      state: 'processing' as const,
    }
    state.videos.set(video.id, video)
    const check = await state.fetchMedia(params.file_url, 'video')
    if (!check.ok) Object.assign(video, { state: 'error' })
    return { id: video.id }
  }
  if (method === 'GET' && edge === 'videos') {
    const videos = pageOf(
      [...state.videos.values()]
        .filter((v) => v.pageId === pageId && state.listed('facebook', v.createdAt))
        .reverse(),
      params,
      `/${pageId}/videos`,
    )
    return {
      paging: videos.paging,
      data: videos.rows.map((v) =>
        pick(
          {
            id: v.id,
            description: v.description,
            created_time: new Date(v.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
            permalink_url: `/${pageId}/videos/${v.id}/`,
            post_id: v.postId,
            status: { video_status: v.state },
          },
          params,
          ['id'],
        ),
      ),
    }
  }
  if (method === 'GET' && edge === 'published_posts') {
    const posts = pageOf(
      state.pagePosts(pageId).filter((p) => state.listed('facebook', p.createdAt)),
      params,
      `/${pageId}/published_posts`,
    )
    return {
      data: posts.rows.map((p) => pick(postView(state, p), params, ['id', 'message', 'created_time'])),
      paging: posts.paging,
    }
  }
  if (method === 'GET' && edge === 'insights') {
    requireScope(auth, 'read_insights')
    const metrics = (params.metric ?? '').split(',').filter(Boolean)
    const posts = state.pagePosts(pageId).length
    return {
      data: metrics.map((name) =>
        insight(
          name,
          name === 'page_media_view'
            ? 900 + posts * 50
            : name === 'page_total_media_view_unique'
              ? 600 + posts * 30
              : 12 + posts,
          params.period ?? 'day',
        ),
      ),
    }
  }
  throw fail(400, 100, `(#100) Unsupported ${method} ${edge ?? ''} on a Page in this simulator`)
}

/** {@link graphPage}, refusing an `after` cursor that names no row as Graph does. */
function pageOf<Row extends { id: string }>(all: Row[], params: Params, path: string) {
  const page = graphPage(all, params, path)
  if (!page) throw fail(400, 100, '(#100) The after cursor is not valid for this edge')
  return page
}

const postView = (
  state: MetaSandboxState,
  post: { id: string; message: string; createdAt: number; kind: string },
) => ({
  id: post.id,
  message: post.message,
  created_time: new Date(post.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
  permalink_url: permalinkOfPost(state, post.id),
  status_type:
    post.kind === 'album'
      ? 'added_photos'
      : post.kind === 'photo'
        ? 'added_photos'
        : post.kind === 'video'
          ? 'added_video'
          : 'mobile_status_update',
})

const insight = (name: string, value: number, period: string) => ({
  name,
  period,
  values: [{ value }],
  title: name,
  id: `x/insights/${name}/${period}`,
})

function pageObjectCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  node: string,
  id: string,
  edge: string | undefined,
  params: Params,
) {
  const pageId =
    node === 'PagePost'
      ? state.posts.get(id)!.pageId
      : node === 'Photo'
        ? state.photos.get(id)!.pageId
        : state.videos.get(id)!.pageId
  if (!canActOnPage(state, auth, pageId))
    throw fail(403, 10, '(#10) The user does not have permission to act on this object')
  if (node === 'AdVideo') {
    const video = state.videos.get(id)!
    if (video.state === 'processing') {
      if (video.polls <= 0) {
        video.state = 'ready'
        const post = {
          id: `${pageId}_${video.id}`,
          pageId,
          message: video.description,
          attachedMedia: [],
          createdAt: state.now(),
          kind: 'video' as const,
        }
        state.posts.set(post.id, post)
        video.postId = post.id
      } else video.polls--
    }
    return pick(
      {
        id: video.id,
        description: video.description,
        permalink_url: `/${pageId}/videos/${video.id}/`,
        post_id: video.postId,
        status: {
          video_status: video.state,
          processing_phase: {
            status: video.state === 'ready' ? 'complete' : video.state === 'error' ? 'error' : 'in_progress',
          },
          ...(video.state === 'error'
            ? { error: { message: 'The video file could not be fetched or is not a video' } }
            : {}),
        },
      },
      params,
      ['id'],
    )
  }
  if (node === 'Photo') {
    const photo = state.photos.get(id)!
    return pick(
      {
        id: photo.id,
        link: `${state.webUrl('facebook')}/photo/?fbid=${photo.id}`,
        page_story_id: photo.postId,
      },
      params,
      ['id'],
    )
  }
  const post = state.posts.get(id)!
  if (edge === 'insights') {
    requireScope(auth, 'read_insights')
    const metrics = (params.metric ?? '').split(',').filter(Boolean)
    return {
      data: metrics.map((name) =>
        name === 'post_reactions_by_type_total'
          ? { ...insight(name, 0, 'lifetime'), values: [{ value: { like: 14, love: 3 } }] }
          : name === 'post_clicks_by_type'
            ? {
                ...insight(name, 0, 'lifetime'),
                values: [{ value: { 'link clicks': 5, 'other clicks': 4 } }],
              }
            : insight(
                name,
                name === 'post_total_media_view_unique'
                  ? 321
                  : name === 'post_media_view'
                    ? 410
                    : name === 'post_clicks'
                      ? 9
                      : 7,
                'lifetime',
              ),
      ),
    }
  }
  if (edge) throw fail(400, 100, `(#100) Unsupported edge ${edge}`)
  return pick(
    {
      ...postView(state, post),
      shares: { count: 2 },
      reactions: { data: [], summary: { total_count: 17 } },
      comments: { data: [], summary: { total_count: 4 } },
    },
    params,
    ['id', 'message', 'created_time'],
  )
}

async function igUserCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  igUserId: string,
  edge: string | undefined,
  params: Params,
  method: string,
) {
  if (!canActOnIg(state, auth, igUserId))
    throw fail(403, 10, '(#10) Application does not have permission for this action')
  const ig = state.igUsers.get(igUserId)!
  const publishScopes = ['instagram_content_publish', 'instagram_business_content_publish']
  if (method === 'GET' && edge === undefined)
    return pick(
      {
        id: ig.id,
        user_id: ig.id,
        username: ig.username,
        name: ig.name,
        followers_count: ig.followers,
        follows_count: ig.follows,
        media_count: state.igMediaOf(ig.id).length,
        profile_picture_url: state.pictureUrl('instagram', ig.id),
      },
      params,
      ['id', 'username'],
    )
  if (method === 'POST' && edge === 'media') {
    requireScope(auth, ...publishScopes)
    return { id: createContainer(state, ig.id, params).id }
  }
  if (method === 'POST' && edge === 'media_publish') {
    requireScope(auth, ...publishScopes)
    const container = state.containers.get(params.creation_id ?? '')
    if (!container || container.igUserId !== ig.id)
      throw fail(400, 100, '(#100) The creation_id does not exist', { subcode: 2207020 })
    refreshContainer(state, container)
    if (container.status === 'PUBLISHED')
      throw fail(400, 9007, 'The media has already been published', {
        subcode: 2207006,
        userMessage: 'This media was already published.',
      })
    if (container.status !== 'FINISHED')
      throw fail(400, 9007, 'Media ID is not available', {
        subcode: 2207027,
        userTitle: 'Media not ready',
        userMessage: 'The media is not ready for publishing, please wait for a moment',
      })
    if (state.quotaUsage(ig.id) >= state.quotaTotal)
      throw fail(400, 9, 'Application request limit reached', {
        subcode: 2207042,
        userMessage:
          'You have reached the maximum number of posts that are allowed to be published by Content Publishing API.',
      })
    const media = {
      id: state.newId('179'),
      igUserId: ig.id,
      caption: container.caption,
      mediaType:
        container.mediaType === 'CAROUSEL'
          ? ('CAROUSEL_ALBUM' as const)
          : container.mediaType === 'IMAGE'
            ? ('IMAGE' as const)
            : ('VIDEO' as const),
      productType:
        container.mediaType === 'REELS' || container.mediaType === 'VIDEO'
          ? ('REELS' as const)
          : ('FEED' as const),
      shortcode: '',
      createdAt: state.now(),
      children: container.children,
    }
    media.shortcode = shortcode(media.id)
    state.media.set(media.id, media)
    container.status = 'PUBLISHED'
    container.mediaId = media.id
    state.recordPublish(ig.id)
    return { id: media.id }
  }
  if (method === 'GET' && edge === 'content_publishing_limit')
    return {
      data: [
        pick(
          {
            id: undefined,
            quota_usage: state.quotaUsage(ig.id),
            config: { quota_total: state.quotaTotal, quota_duration: 86400 },
          },
          params,
          ['quota_usage'],
        ),
      ].map(({ id: _id, ...rest }) => rest),
    }
  if (method === 'GET' && edge === 'media') {
    const since = params.since ? graphTime(params.since) : Number.NEGATIVE_INFINITY
    const until = params.until ? graphTime(params.until) : Number.POSITIVE_INFINITY
    const media = pageOf(
      state
        .igMediaOf(ig.id)
        .filter(
          (m) => m.createdAt >= since && m.createdAt <= until && state.listed('instagram', m.createdAt),
        ),
      params,
      `/${ig.id}/media`,
    )
    return { data: media.rows.map((m) => pick(igMediaView(state, m), params, ['id'])), paging: media.paging }
  }
  if (method === 'GET' && edge === 'insights') {
    requireScope(auth, 'instagram_manage_insights', 'instagram_business_manage_insights')
    const metrics = (params.metric ?? '').split(',').filter(Boolean)
    return {
      data: metrics.map((name) => ({
        name,
        period: params.period ?? 'day',
        title: name,
        id: `${ig.id}/insights/${name}/day`,
        total_value: { value: name === 'views' ? 5000 + state.igMediaOf(ig.id).length * 10 : 120 },
      })),
    }
  }
  throw fail(400, 100, `(#100) Unsupported ${method} ${edge ?? ''} on an Instagram user in this simulator`)
}

function createContainer(state: MetaSandboxState, igUserId: string, params: Params): IgContainer {
  const isItem = params.is_carousel_item === 'true'
  const type = params.media_type ?? (params.image_url ? 'IMAGE' : '')
  if (type === 'CAROUSEL') {
    const children = (params.children ?? '').split(',').filter(Boolean)
    if (children.length < 2 || children.length > 10)
      throw fail(400, 100, '(#100) A carousel takes 2 to 10 children', {
        subcode: 2207028,
        userMessage: 'Carousels must have 2 to 10 items.',
      })
    for (const childId of children) {
      const child = state.containers.get(childId)
      if (!child || child.igUserId !== igUserId || !child.isCarouselItem)
        throw fail(400, 100, `(#100) ${childId} is not a carousel item of this account`, { subcode: 2207028 })
      refreshContainer(state, child)
      if (child.status !== 'FINISHED')
        throw fail(400, 100, `(#100) carousel item ${childId} is not FINISHED`, { subcode: 2207028 })
    }
    return saveContainer(state, {
      igUserId,
      mediaType: 'CAROUSEL',
      children,
      caption: storedCopy(params.caption),
      isCarouselItem: false,
      pollsLeft: 0,
    })
  }
  if (params.caption && [...params.caption].length > 2200)
    throw fail(400, 100, '(#100) The caption is too long', { subcode: 2207010 })
  if (isItem && params.caption) throw fail(400, 100, '(#100) Carousel items take no caption')
  if (params.alt_text !== undefined && type !== 'IMAGE')
    throw fail(400, 100, '(#100) alt_text is only supported for images')
  if (params.alt_text && [...params.alt_text].length > 1000)
    throw fail(400, 100, '(#100) alt_text must be at most 1000 characters')
  if (type === 'IMAGE') {
    if (!params.image_url) throw fail(400, 100, '(#100) image_url is required')
    const container = saveContainer(state, {
      igUserId,
      mediaType: 'IMAGE',
      url: params.image_url,
      children: [],
      caption: storedCopy(params.caption),
      isCarouselItem: isItem,
      pollsLeft: 0,
      ...(params.alt_text ? { altText: params.alt_text } : {}),
    })
    container.fetch = state
      .fetchMedia(params.image_url, 'ig_image')
      .then((check) => (container.check = check))
    return container
  }
  if (type === 'REELS' || type === 'VIDEO') {
    if (!params.video_url) throw fail(400, 100, '(#100) video_url is required')
    if (type === 'VIDEO' && !isItem)
      throw fail(400, 100, '(#100) Single videos are published as REELS', { subcode: 2207023 })
    const container = saveContainer(state, {
      igUserId,
      mediaType: type,
      url: params.video_url,
      children: [],
      caption: storedCopy(params.caption),
      isCarouselItem: isItem,
      pollsLeft: state.options.videoPolls ?? 1,
      ...(params.share_to_feed ? { shareToFeed: params.share_to_feed === 'true' } : {}),
    })
    container.fetch = state.fetchMedia(params.video_url, 'video').then((check) => (container.check = check))
    return container
  }
  throw fail(
    400,
    100,
    '(#100) media_type must be IMAGE (with image_url), REELS, VIDEO (carousel items) or CAROUSEL',
  )
}

function saveContainer(
  state: MetaSandboxState,
  input: Omit<IgContainer, 'id' | 'createdAt' | 'status'>,
): IgContainer {
  const container: IgContainer = {
    ...input,
    id: state.newId('178'),
    createdAt: state.now(),
    status: 'IN_PROGRESS',
  }
  if (container.mediaType === 'CAROUSEL') container.status = 'FINISHED'
  state.containers.set(container.id, container)
  return container
}

/** Moves a container along: fetched and checked → FINISHED (videos after their polls) or ERROR; 24 h → EXPIRED. */
function refreshContainer(state: MetaSandboxState, container: IgContainer): void {
  if (container.status === 'PUBLISHED' || container.status === 'ERROR') return
  if (state.now() - container.createdAt > 24 * 60 * 60 * 1000) {
    container.status = 'EXPIRED'
    return
  }
  if (container.mediaType === 'CAROUSEL' || !container.check) return
  if (!container.check.ok) container.status = 'ERROR'
  else if (container.pollsLeft > 0) container.pollsLeft--
  else container.status = 'FINISHED'
}

async function containerStatus(state: MetaSandboxState, auth: SandboxToken, id: string, params: Params) {
  const container = state.containers.get(id)!
  if (!canActOnIg(state, auth, container.igUserId))
    throw fail(403, 10, '(#10) Application does not have permission for this action')
  // Give the fetcher a moment, as Meta's own processing would take.
  if (container.fetch && !container.check)
    await Promise.race([container.fetch, new Promise((r) => setTimeout(r, 50))])
  refreshContainer(state, container)
  const status =
    container.status === 'ERROR'
      ? `Error: ${container.check?.message ?? 'media could not be processed'} (${container.check?.subcode ?? 2207001})`
      : container.status === 'FINISHED' || container.status === 'PUBLISHED'
        ? 'Finished: Media has been uploaded and it is ready to be published.'
        : 'In Progress: Media is still being processed.'
  return pick({ id: container.id, status_code: container.status, status }, params, ['id'])
}

const igMediaView = (
  state: MetaSandboxState,
  m: {
    id: string
    caption: string
    mediaType: string
    productType: string
    shortcode: string
    createdAt: number
  },
) => ({
  id: m.id,
  caption: m.caption,
  media_type: m.mediaType,
  media_product_type: m.productType,
  permalink: igPermalink(state, m),
  shortcode: m.shortcode,
  timestamp: new Date(m.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
  like_count: 21,
  comments_count: 3,
})

function igMediaCall(
  state: MetaSandboxState,
  auth: SandboxToken,
  id: string,
  edge: string | undefined,
  params: Params,
) {
  const media = state.media.get(id)!
  if (!canActOnIg(state, auth, media.igUserId))
    throw fail(403, 10, '(#10) Application does not have permission for this action')
  if (edge === 'insights') {
    requireScope(auth, 'instagram_manage_insights', 'instagram_business_manage_insights')
    const metrics = (params.metric ?? '').split(',').filter(Boolean)
    const reelOnly = ['ig_reels_avg_watch_time', 'ig_reels_video_view_total_time']
    const bad = metrics.filter(
      (m) =>
        [
          'impressions',
          'plays',
          'video_views',
          'clips_replays_count',
          'ig_reels_aggregated_all_plays_count',
        ].includes(m) ||
        (media.productType !== 'REELS' && reelOnly.includes(m)),
    )
    if (bad.length > 0)
      throw fail(
        400,
        100,
        `(#100) The Media Insights API does not support the ${bad.join(', ')} metric for this media product type.`,
      )
    const values: Record<string, number> = {
      views: 840,
      reach: 610,
      likes: 21,
      comments: 3,
      saved: 6,
      shares: 4,
      total_interactions: 34,
      ig_reels_avg_watch_time: 5200,
      ig_reels_video_view_total_time: 4_368_000,
    }
    return { data: metrics.map((name) => insight(name, values[name] ?? 1, 'lifetime')) }
  }
  if (edge) throw fail(400, 100, `(#100) Unsupported edge ${edge}`)
  return pick(igMediaView(state, media), params, ['id'])
}

// ---- token endpoints --------------------------------------------------------------------------------

/**
 * An app access token (`client_credentials`): what any Facebook app may ask for with its id and secret.
 * Meta refuses a wrong id (code 101) or secret (code 1) with a 400 OAuthException.
 */
function appAccessToken(state: MetaSandboxState, params: Params) {
  if (!params.client_id || !/^\d+$|^herald-/.test(params.client_id))
    throw fail(400, 101, 'Error validating application. Invalid application ID.', { type: 'OAuthException' })
  const known = state.apps.get(params.client_id)
  if (!params.client_secret || (known !== undefined && known !== params.client_secret))
    throw fail(400, 1, 'Error validating client secret.', { type: 'OAuthException' })
  return { access_token: `${params.client_id}|${randomBytes(12).toString('hex')}`, token_type: 'bearer' }
}

function facebookTokenExchange(state: MetaSandboxState, params: Params) {
  if (params.grant_type === 'client_credentials') return appAccessToken(state, params)
  if (params.grant_type === 'fb_exchange_token') {
    const short = state.tokenInfo(params.fb_exchange_token)
    if (short?.kind !== 'user') throw fail(400, 190, 'Invalid OAuth access token.', { subcode: 467 })
    const long = state.issueToken('user', short.subjectId, short.scopes, state.longLivedTtlSeconds, true)
    return { access_token: long.token, token_type: 'bearer', expires_in: state.longLivedTtlSeconds }
  }
  const code = state.codes.get(params.code ?? '')
  if (code?.flavour !== 'facebook' || code.expiresAt < state.now())
    throw fail(400, 100, 'This authorization code has expired or been used.', {
      subcode: 36007,
      type: 'OAuthException',
    })
  if (code.redirectUri !== params.redirect_uri)
    throw fail(
      400,
      100,
      'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      { subcode: 36008, type: 'OAuthException' },
    )
  if (!verifierMatches(params.code ?? '', params.code_verifier))
    throw fail(400, 100, 'Invalid code verifier', { subcode: 36008, type: 'OAuthException' })
  state.codes.delete(params.code ?? '')
  const token = state.issueToken('user', code.userId, code.scopes, 3600, false)
  return { access_token: token.token, token_type: 'bearer', expires_in: 3600 }
}

function instagramExchange(state: MetaSandboxState, params: Params, token: string | undefined) {
  const short = state.tokenInfo(token)
  if (params.grant_type !== 'ig_exchange_token' || !short || short.kind !== 'ig')
    throw fail(400, 190, 'Invalid OAuth access token.', { subcode: 467 })
  const long = state.issueToken('ig', short.subjectId, short.scopes, state.longLivedTtlSeconds, true)
  return { access_token: long.token, token_type: 'bearer', expires_in: state.longLivedTtlSeconds }
}

function instagramRefresh(state: MetaSandboxState, params: Params, token: string | undefined) {
  const current = state.tokenInfo(token)
  if (params.grant_type !== 'ig_refresh_token' || !current || current.kind !== 'ig' || !current.longLived)
    throw fail(400, 190, 'Invalid OAuth access token.', { subcode: 467 })
  if (state.now() - current.issuedAt < 24 * 60 * 60 * 1000)
    throw fail(400, 100, 'The access token is less than 24 hours old and cannot be refreshed yet')
  const fresh = state.issueToken('ig', current.subjectId, current.scopes, state.longLivedTtlSeconds, true)
  state.revoke(current.token)
  return { access_token: fresh.token, token_type: 'bearer', expires_in: state.longLivedTtlSeconds }
}
