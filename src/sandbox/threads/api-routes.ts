import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { threadsLength } from '../../core/text-length.js'
import { graphPage, graphTime, paramsOf } from '../meta-common/graph-params.js'
import { storedCopy } from '../meta-common/text.js'
import { validateThreadsCall } from './contract.js'
import { ThreadsApiError } from './errors.js'
import { tokenCall } from './oauth-routes.js'
import type {
  Fault,
  FaultOp,
  ThreadsContainer,
  ThreadsPost,
  ThreadsSandboxState,
  ThreadsToken,
} from './state.js'

/**
 * graph.threads.net, mounted at `${prefix}/graph`: the token endpoints, and under `/v1.0` the profile
 * (`/me`, `/{user}`), containers (`POST /{user}/threads`, `GET /{container}?fields=status`),
 * `threads_publish`, the profile's threads, `threads_publishing_limit`, thread and profile insights.
 * Every call is first checked against Meta's Threads collection; a mismatch is a 400 `(#100)` and is
 * recorded in `violations`.
 */

type Params = Record<string, string>
const fail = (status: number, code: number, message: string, extra: ThreadsApiError['extra'] = {}) =>
  new ThreadsApiError(status, code, message, extra)

const bearer = (request: FastifyRequest): string | undefined => {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^(?:Bearer|OAuth)\s+(.+)$/i.exec(header) : null
  return match?.[1]?.trim()
}

const fieldsOf = (params: Params) =>
  (params.fields ?? '')
    .split(',')
    .map((f) => f.split(/[.{(]/)[0]?.trim() ?? '')
    .filter(Boolean)

const pick = (all: Record<string, unknown>, params: Params, defaults: string[]) => {
  const wanted = fieldsOf(params)
  const out: Record<string, unknown> = {}
  for (const name of wanted.length > 0 ? wanted : defaults) if (all[name] !== undefined) out[name] = all[name]
  return out
}

function faultFailure(fault: Fault): ThreadsApiError {
  const code = fault.code ?? 2
  const status = fault.status ?? (code === 1 || code === 2 ? 500 : code === 10 || code === 190 ? 400 : 400)
  return fail(status, code, fault.message ?? `(#${code}) Simulated error`, {
    ...(fault.subcode !== undefined ? { subcode: fault.subcode } : {}),
    ...(code === 1 || code === 2 ? { transient: true } : {}),
  })
}

export function registerApiRoutes(app: FastifyInstance, state: ThreadsSandboxState): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const rest = (request.params as { '*': string })['*'] ?? ''
    const path = `/${rest.split('?')[0]!}`
    const params = paramsOf(request)
    const token = bearer(request) ?? params.access_token
    delete params.access_token
    try {
      if (state.contract) {
        const problems = validateThreadsCall(state.contract, {
          method: request.method,
          path,
          params,
          isOwnId: (id) => state.users.has(id),
        })
        if (problems.length > 0) {
          state.violations.push(...problems)
          throw fail(400, 100, `(#100) ${problems.join('; ')}`)
        }
      }
      const segments = path.split('/').filter(Boolean)
      if (segments[0] && /^v\d+\.\d+$/.test(segments[0])) segments.shift()
      else {
        const fault = state.takeFault('token')
        if (fault?.action === 'error') throw faultFailure(fault)
        const answer = tokenCall(state, request.method, segments.join('/'), params, token)
        if (answer) return reply.send(answer)
        throw fail(400, 100, 'Unknown path components')
      }
      state.calls.push({ method: request.method, path: `/${segments.join('/')}`, params: { ...params } })
      const auth = state.tokenInfo(token)
      if (!auth)
        throw fail(400, 190, 'Error validating access token: Session has expired or the token is invalid.', {
          subcode: 463,
        })
      const [rawId, edge, ...extra] = segments
      if (!rawId || extra.length > 0) throw fail(400, 100, 'Unknown path components')
      const id = rawId === 'me' ? auth.userId : rawId
      const op: FaultOp | undefined =
        request.method === 'POST' && (edge === 'threads' || edge === 'threads_publish')
          ? edge
          : edge === 'insights' || edge === 'threads_insights'
            ? 'insights'
            : state.containers.has(id) && !edge
              ? 'container_status'
              : undefined
      const fault = op ? state.takeFault(op) : undefined
      if (fault?.action === 'drop_before') {
        reply.hijack()
        request.raw.socket?.destroy()
        return reply
      }
      if (fault?.action === 'error') throw faultFailure(fault)
      const body = await dispatch(state, auth, request.method, id, edge, params)
      if (fault?.action === 'drop_after') {
        reply.hijack()
        request.raw.socket?.destroy()
        return reply
      }
      if (fault?.action === 'error_after') throw faultFailure(fault)
      return reply.header('content-type', 'application/json; charset=UTF-8').send(body)
    } catch (error) {
      if (!(error instanceof ThreadsApiError)) throw error
      return reply
        .code(error.status)
        .header('content-type', 'application/json; charset=UTF-8')
        .send(error.body)
    }
  }
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/graph/*', handler })
}

function requireScope(auth: ThreadsToken, scope: string) {
  if (!auth.scopes.includes(scope))
    throw fail(403, 10, `(#10) Application does not have permission for this action (${scope})`)
}

async function dispatch(
  state: ThreadsSandboxState,
  auth: ThreadsToken,
  method: string,
  id: string,
  edge: string | undefined,
  params: Params,
): Promise<unknown> {
  const user = state.users.get(id)
  if (user) {
    if (user.id !== auth.userId)
      throw fail(400, 10, '(#10) Application does not have permission for this action')
    if (method === 'GET' && !edge)
      return pick(
        {
          id: user.id,
          username: user.username,
          name: user.name,
          threads_profile_picture_url: state.pictureUrl(user.id),
          threads_biography: '',
          is_verified: false,
        },
        params,
        ['id'],
      )
    if (method === 'POST' && edge === 'threads') {
      requireScope(auth, 'threads_content_publish')
      if (params.reply_to_id) requireScope(auth, 'threads_manage_replies')
      return { id: createContainer(state, user.id, params).id }
    }
    if (method === 'POST' && edge === 'threads_publish') {
      requireScope(auth, 'threads_content_publish')
      return { id: publish(state, user.id, params.creation_id ?? '').id }
    }
    if (method === 'GET' && edge === 'threads') {
      const since = params.since ? graphTime(params.since) : Number.NEGATIVE_INFINITY
      const until = params.until ? graphTime(params.until) : Number.POSITIVE_INFINITY
      const page = graphPage(
        state
          .threadsOf(user.id)
          .filter(
            (t) => t.createdAt >= since && t.createdAt <= until && state.listed('threads', t.createdAt),
          ),
        params,
        `/${user.id}/threads`,
      )
      if (!page) throw fail(400, 100, '(#100) The after cursor is not valid for this edge')
      return { data: page.rows.map((t) => pick(threadView(state, t), params, ['id'])), paging: page.paging }
    }
    if (method === 'GET' && edge === 'replies') {
      // The profile's own replies (reference: "Get a List of All a User's Replies"), newest first, in the
      // since/until window, paged like its threads.
      const since = params.since ? graphTime(params.since) : Number.NEGATIVE_INFINITY
      const until = params.until ? graphTime(params.until) : Number.POSITIVE_INFINITY
      const page = graphPage(
        state
          .repliesOf(user.id)
          .filter(
            (t) => t.createdAt >= since && t.createdAt <= until && state.listed('threads', t.createdAt),
          ),
        params,
        `/${user.id}/replies`,
      )
      if (!page) throw fail(400, 100, '(#100) The after cursor is not valid for this edge')
      return {
        data: page.rows.map((t) => pick(replyView(state, t, auth.userId), params, ['id'])),
        paging: page.paging,
      }
    }
    if (method === 'GET' && edge === 'threads_publishing_limit')
      return {
        data: [
          pick(
            {
              quota_usage: state.quotaUsage(user.id),
              config: { quota_total: state.quotaTotal, quota_duration: 86400 },
              reply_quota_usage: 0,
              reply_config: { quota_total: 1000, quota_duration: 86400 },
            },
            params,
            ['quota_usage', 'config'],
          ),
        ],
      }
    if (method === 'GET' && edge === 'threads_insights') {
      requireScope(auth, 'threads_manage_insights')
      const day = (n: number) => new Date(state.now() - n * 86_400_000).toISOString().slice(0, 10)
      return {
        data: (params.metric ?? '')
          .split(',')
          .filter(Boolean)
          .map((name) =>
            name === 'views'
              ? {
                  name,
                  period: 'day',
                  values: [
                    { value: 40, end_time: `${day(1)}T07:00:00+0000` },
                    { value: 25 + state.threadsOf(user.id).length, end_time: `${day(0)}T07:00:00+0000` },
                  ],
                  title: 'views',
                  id: `${user.id}/insights/views/day`,
                }
              : {
                  name,
                  period: 'day',
                  total_value: { value: name === 'followers_count' ? user.followers : 12 },
                  title: name,
                  id: `${user.id}/insights/${name}/day`,
                },
          ),
      }
    }
    throw fail(400, 100, `(#100) Unsupported ${method} ${edge ?? ''} on a Threads user in this simulator`)
  }
  const container = state.containers.get(id)
  if (container) {
    if (container.userId !== auth.userId)
      throw fail(400, 10, '(#10) Application does not have permission for this action')
    if (method !== 'GET' || edge) throw fail(400, 100, `(#100) Unsupported ${method} on a container`)
    if (container.fetch && !container.check)
      await Promise.race([container.fetch, new Promise((r) => setTimeout(r, 50))])
    refresh(state, container)
    return pick(
      {
        id: container.id,
        status: container.status,
        ...(container.status === 'ERROR' ? { error_message: container.check?.message ?? 'UNKNOWN' } : {}),
      },
      params,
      ['id'],
    )
  }
  const thread = state.threads.get(id)
  if (thread) {
    if (thread.userId !== auth.userId)
      throw fail(400, 10, '(#10) Application does not have permission for this action')
    if (method === 'GET' && !edge) return pick(threadView(state, thread), params, ['id'])
    if (method === 'GET' && edge === 'replies') {
      // Direct replies, newest first unless reverse=false ("reverse chronological order. The default is
      // true if not specified", reference collection).
      const replies = [...state.threads.values()]
        .filter((t) => t.replyToId === thread.id && state.listed('threads', t.createdAt))
        .sort((a, b) => b.createdAt - a.createdAt)
      if (params.reverse === 'false') replies.reverse()
      return { data: replies.map((t) => pick(replyView(state, t, auth.userId), params, ['id'])) }
    }
    if (method === 'GET' && edge === 'insights') {
      requireScope(auth, 'threads_manage_insights')
      const values: Record<string, number> = {
        views: 512,
        likes: 33,
        replies: 7,
        reposts: 4,
        quotes: 2,
        shares: 3,
      }
      return {
        data: (params.metric ?? '')
          .split(',')
          .filter(Boolean)
          .map((name) => ({
            name,
            period: 'lifetime',
            values: [{ value: values[name] ?? 0 }],
            title: name,
            id: `${thread.id}/insights/${name}/lifetime`,
          })),
      }
    }
    throw fail(400, 100, `(#100) Unsupported ${method} ${edge ?? ''} on a thread in this simulator`)
  }
  throw fail(
    400,
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { subcode: 33 },
  )
}

const threadView = (state: ThreadsSandboxState, t: ThreadsPost) => ({
  id: t.id,
  media_product_type: 'THREADS',
  media_type: t.mediaType,
  permalink: `${state.webUrl()}/@${state.users.get(t.userId)?.username ?? 'user'}/post/${t.shortcode}`,
  owner: { id: t.userId },
  username: state.users.get(t.userId)?.username,
  text: t.text,
  timestamp: new Date(t.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
  shortcode: t.shortcode,
  is_quote_post: false,
  has_replies: false,
  ...(t.linkAttachment ? { link_attachment_url: t.linkAttachment } : {}),
  ...(t.children.length > 0 ? { children: { data: t.children.map((c) => ({ id: c })) } } : {}),
})

/** A reply as the replies edges give it: the thread's fields and where it sits in its conversation. */
const replyView = (state: ThreadsSandboxState, t: ThreadsPost, viewer: string) => ({
  ...threadView(state, t),
  is_reply: true,
  is_reply_owned_by_me: t.userId === viewer,
  ...(t.replyToId ? { replied_to: { id: t.replyToId }, root_post: { id: state.rootOf(t).id } } : {}),
})

function createContainer(state: ThreadsSandboxState, userId: string, params: Params): ThreadsContainer {
  const text = storedCopy(params.text)
  if (threadsLength(text) > 500)
    throw fail(400, 100, '(#100) The text must be at most 500 characters', {
      userMessage: 'text must be at most 500 characters',
    })
  const isItem = params.is_carousel_item === 'true'
  const type = params.media_type ?? ''
  const replyTo = params.reply_to_id
  if (replyTo !== undefined && !state.threads.has(replyTo))
    throw fail(400, 100, `(#100) reply_to_id ${replyTo} does not name a thread`, { subcode: 2207051 })
  const save = (input: Omit<ThreadsContainer, 'id' | 'createdAt' | 'status'>) => {
    const container: ThreadsContainer = {
      ...input,
      ...(replyTo && !isItem ? { replyToId: replyTo } : {}),
      id: state.newId('1791'),
      createdAt: state.now(),
      status: input.mediaType === 'TEXT' || input.mediaType === 'CAROUSEL' ? 'FINISHED' : 'IN_PROGRESS',
    }
    state.containers.set(container.id, container)
    return container
  }
  if (type === 'TEXT') {
    if (isItem) throw fail(400, 100, '(#100) A carousel item is an IMAGE or a VIDEO')
    if (!text) throw fail(400, 100, '(#100) text is required for a TEXT post')
    return save({
      userId,
      mediaType: 'TEXT',
      children: [],
      text,
      isCarouselItem: false,
      pollsLeft: 0,
      ...(params.link_attachment ? { linkAttachment: params.link_attachment } : {}),
    })
  }
  if (type === 'CAROUSEL') {
    const children = (params.children ?? '').split(',').filter(Boolean)
    if (children.length < 2 || children.length > 20)
      throw fail(400, 100, '(#100) A carousel takes 2 to 20 children')
    for (const childId of children) {
      const child = state.containers.get(childId)
      if (!child || child.userId !== userId || !child.isCarouselItem)
        throw fail(400, 100, `(#100) ${childId} is not a carousel item of this profile`)
      refresh(state, child)
      if (child.status !== 'FINISHED') throw fail(400, 100, `(#100) carousel item ${childId} is not FINISHED`)
    }
    return save({ userId, mediaType: 'CAROUSEL', children, text, isCarouselItem: false, pollsLeft: 0 })
  }
  if (type === 'IMAGE' || type === 'VIDEO') {
    const url = type === 'IMAGE' ? params.image_url : params.video_url
    if (!url) throw fail(400, 100, `(#100) ${type === 'IMAGE' ? 'image_url' : 'video_url'} is required`)
    const container = save({
      userId,
      mediaType: type,
      url,
      children: [],
      text,
      isCarouselItem: isItem,
      pollsLeft: type === 'VIDEO' ? (state.options.videoPolls ?? 1) : 0,
      ...(params.alt_text ? { altText: params.alt_text } : {}),
    })
    container.fetch = state
      .fetchMedia(url, type === 'IMAGE' ? 'image' : 'video')
      .then((check) => (container.check = check))
    return container
  }
  throw fail(400, 100, '(#100) media_type must be TEXT, IMAGE, VIDEO or CAROUSEL')
}

/** Moves a container along: fetched and checked → FINISHED (videos after their polls) or ERROR; 24 h → EXPIRED. */
function refresh(state: ThreadsSandboxState, container: ThreadsContainer): void {
  if (container.status === 'PUBLISHED' || container.status === 'ERROR') return
  if (state.now() - container.createdAt > 24 * 60 * 60 * 1000) {
    container.status = 'EXPIRED'
    return
  }
  if (!container.check) return
  if (!container.check.ok) container.status = 'ERROR'
  else if (container.pollsLeft > 0) container.pollsLeft--
  else container.status = 'FINISHED'
}

function publish(state: ThreadsSandboxState, userId: string, creationId: string): ThreadsPost {
  const container = state.containers.get(creationId)
  if (!container || container.userId !== userId || container.isCarouselItem)
    throw fail(400, 100, '(#100) The creation_id does not name a container of this profile', {
      subcode: 4279009,
    })
  refresh(state, container)
  if (container.status === 'PUBLISHED')
    throw fail(400, 100, '(#100) This container was already published', { subcode: 4279004 })
  if (container.status !== 'FINISHED')
    throw fail(400, 24, '(#24) The requested resource does not exist', { subcode: 4279009 })
  if (state.quotaUsage(userId) >= state.quotaTotal)
    throw fail(400, 9, '(#9) The profile reached its publishing limit for the last 24 hours', {
      userMessage: 'You have reached the maximum number of posts that can be published in 24 hours.',
    })
  const post: ThreadsPost = {
    id: state.newId('1800'),
    userId,
    text: container.text,
    mediaType:
      container.mediaType === 'TEXT'
        ? 'TEXT_POST'
        : container.mediaType === 'CAROUSEL'
          ? 'CAROUSEL_ALBUM'
          : container.mediaType,
    shortcode: '',
    children: container.children,
    createdAt: state.now(),
    ...(container.linkAttachment ? { linkAttachment: container.linkAttachment } : {}),
    ...(container.replyToId ? { replyToId: container.replyToId } : {}),
  }
  post.shortcode = Buffer.from(post.id).toString('base64url').slice(0, 11)
  state.threads.set(post.id, post)
  container.status = 'PUBLISHED'
  container.threadId = post.id
  // Replies count against their own 1,000 a day, not the 250 posts.
  if (!post.replyToId) state.recordPublish(userId)
  return post
}
