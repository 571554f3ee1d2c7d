import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import { applySimpleFault, bearerToken, partsOf, queryOf, sendGoogleError } from './http.js'
import {
  type FaultOp,
  type SandboxChannel,
  type SandboxComment,
  type SandboxVideo,
  scopesFor,
} from './model.js'
import type { YouTubeSandbox } from './state.js'

/**
 * The YouTube Data API v3 read endpoints Herald uses, channels.list and videos.list (videos.insert is in
 * upload-routes.ts), with the bearer-token and scope checks both share. Costs come out of the app's daily
 * quota: 1 unit per list call, `uploadUnits` per upload session opened (charged when the session opens,
 * whether or not bytes follow, as Google charges the insert call), 1 unit for an insert refused for its
 * metadata or the channel's ceiling.
 */

const CHANNEL_PARTS = new Set(['id', 'snippet', 'statistics', 'contentDetails'])
const VIDEO_PARTS = new Set(['id', 'snippet', 'status', 'statistics', 'processingDetails'])

type Op = keyof typeof scopesFor

/** Authenticates the bearer token and checks its scopes; answers the Google error and returns undefined when refused. */
export function authorize(sandbox: YouTubeSandbox, request: FastifyRequest, reply: FastifyReply, op: Op) {
  const grant = sandbox.authenticate(bearerToken(request))
  if (!grant) {
    sendGoogleError(reply, 'authError')
    return undefined
  }
  if (!grant.scopes.some((scope) => (scopesFor[op] as readonly string[]).includes(scope))) {
    sendGoogleError(reply, 'insufficientPermissions')
    return undefined
  }
  return grant
}

export function checkParts(reply: FastifyReply, parts: string[], allowed: Set<string>): boolean {
  if (parts.length === 0) {
    sendGoogleError(reply, 'required')
    return false
  }
  const unknown = parts.find((part) => !allowed.has(part))
  if (unknown) {
    sendGoogleError(reply, 'unknownPart', { message: unknown })
    return false
  }
  return true
}

const etag = (text: string) => Buffer.from(text).toString('base64url').slice(0, 27)

function channelResource(sandbox: YouTubeSandbox, channel: SandboxChannel, parts: string[]) {
  const resource: Record<string, unknown> = {
    kind: 'youtube#channel',
    etag: etag(channel.id + channel.title),
    id: channel.id,
  }
  if (parts.includes('snippet'))
    resource.snippet = {
      title: channel.title,
      description: channel.description,
      customUrl: channel.handle,
      publishedAt: channel.publishedAt,
      thumbnails: {
        default: { url: channel.thumbnailUrl.replace('=s800', '=s88'), width: 88, height: 88 },
        medium: { url: channel.thumbnailUrl.replace('=s800', '=s240'), width: 240, height: 240 },
        high: { url: channel.thumbnailUrl, width: 800, height: 800 },
      },
      localized: { title: channel.title, description: channel.description },
    }
  if (parts.includes('contentDetails'))
    resource.contentDetails = { relatedPlaylists: { likes: '', uploads: `UU${channel.id.slice(2)}` } }
  if (parts.includes('statistics'))
    resource.statistics = {
      viewCount: String(channel.viewCount),
      subscriberCount: channel.hiddenSubscriberCount ? '0' : String(channel.subscriberCount),
      hiddenSubscriberCount: channel.hiddenSubscriberCount,
      videoCount: String(sandbox.videoCount(channel.id)),
    }
  return resource
}

function videoResource(video: SandboxVideo, parts: string[]) {
  const resource: Record<string, unknown> = { kind: 'youtube#video', etag: video.resource.etag, id: video.id }
  if (parts.includes('snippet')) resource.snippet = video.resource.snippet
  if (parts.includes('status')) resource.status = video.resource.status
  if (parts.includes('statistics'))
    resource.statistics = {
      viewCount: String(video.statistics.viewCount),
      likeCount: String(video.statistics.likeCount),
      favoriteCount: String(video.statistics.favoriteCount),
      commentCount: String(video.statistics.commentCount),
    }
  if (parts.includes('processingDetails')) resource.processingDetails = { processingStatus: 'succeeded' }
  return resource
}

function listResponse(kind: string, items: unknown[]) {
  return {
    kind,
    etag: etag(`${kind}${items.length}`),
    pageInfo: { totalResults: items.length, resultsPerPage: 5 },
    ...(items.length > 0 ? { items } : {}),
  }
}

/** A comment thread resource (`youtube#commentThread`) with its top-level comment, part=snippet. */
function commentThreadResource(comment: SandboxComment) {
  return {
    kind: 'youtube#commentThread',
    etag: etag(comment.id + comment.text),
    id: comment.id,
    snippet: {
      channelId: comment.channelId,
      videoId: comment.videoId,
      topLevelComment: {
        kind: 'youtube#comment',
        etag: etag(comment.text),
        id: comment.id,
        snippet: {
          channelId: comment.channelId,
          videoId: comment.videoId,
          textDisplay: comment.text,
          textOriginal: comment.text,
          authorChannelId: { value: comment.channelId },
          canRate: true,
          viewerRating: 'none',
          likeCount: 0,
          publishedAt: comment.publishedAt,
          updatedAt: comment.publishedAt,
        },
      },
      canReply: true,
      totalReplyCount: 0,
      isPublic: true,
    },
  }
}

const pageToken = (id: string) => Buffer.from(`after:${id}`).toString('base64url')

/** Longest top-level comment YouTube takes. */
const COMMENT_MAX = 10_000

export function registerApiRoutes(app: FastifyInstance, sandbox: YouTubeSandbox): void {
  const fault = (request: FastifyRequest, reply: FastifyReply, op: FaultOp) =>
    applySimpleFault(request, reply, sandbox.takeFault(op))

  app.get('/youtube/v3/channels', async (request, reply) => {
    sandbox.record({ op: 'channels.list', method: 'GET', path: '/youtube/v3/channels' })
    if (fault(request, reply, 'channels.list')) return reply
    const grant = authorize(sandbox, request, reply, 'channels.list')
    if (!grant) return reply
    const query = queryOf(request)
    const parts = partsOf(query)
    if (!checkParts(reply, parts, CHANNEL_PARTS)) return reply
    if (!sandbox.chargeQuota(1)) return sendGoogleError(reply, 'quotaExceeded')
    let channels: SandboxChannel[] = []
    if (query.get('mine') === 'true') {
      const channel = sandbox.accounts.get(grant.email)?.channel
      channels = channel ? [channel] : []
    } else if (query.has('id')) {
      const ids = query.getAll('id').flatMap((value) => value.split(','))
      channels = ids.map((id) => sandbox.channelById(id)).filter((c): c is SandboxChannel => c !== undefined)
    }
    return reply.send(
      listResponse(
        'youtube#channelListResponse',
        channels.map((c) => channelResource(sandbox, c, parts)),
      ),
    )
  })

  app.get('/youtube/v3/videos', async (request, reply) => {
    sandbox.record({ op: 'videos.list', method: 'GET', path: '/youtube/v3/videos' })
    if (fault(request, reply, 'videos.list')) return reply
    const grant = authorize(sandbox, request, reply, 'videos.list')
    if (!grant) return reply
    const query = queryOf(request)
    const parts = partsOf(query)
    if (!checkParts(reply, parts, VIDEO_PARTS)) return reply
    if (!sandbox.chargeQuota(1)) return sendGoogleError(reply, 'quotaExceeded')
    const ownChannel = sandbox.accounts.get(grant.email)?.channel?.id
    const ids = query.getAll('id').flatMap((value) => value.split(','))
    const videos = ids
      .map((id) => sandbox.videos.get(id))
      .filter((video): video is SandboxVideo => video !== undefined)
      // A private video is visible to its owner only.
      .filter((video) => video.resource.status.privacyStatus !== 'private' || video.channelId === ownChannel)
    return reply.send(
      listResponse(
        'youtube#videoListResponse',
        videos.map((video) => videoResource(video, parts)),
      ),
    )
  })

  // First comments: commentThreads.insert (50 units, youtube.force-ssl) and commentThreads.list by videoId.
  app.post('/youtube/v3/commentThreads', async (request, reply) => {
    sandbox.record({ op: 'commentThreads.insert', method: 'POST', path: '/youtube/v3/commentThreads' })
    if (fault(request, reply, 'commentThreads.insert')) return reply
    const grant = authorize(sandbox, request, reply, 'commentThreads.insert')
    if (!grant) return reply
    const parts = partsOf(queryOf(request))
    if (!checkParts(reply, parts, new Set(['id', 'snippet', 'replies']))) return reply
    const body = (request.body ?? {}) as {
      snippet?: {
        videoId?: unknown
        channelId?: unknown
        topLevelComment?: { snippet?: { textOriginal?: unknown } }
      }
    }
    const videoId = body.snippet?.videoId
    const text = body.snippet?.topLevelComment?.snippet?.textOriginal
    if (typeof videoId !== 'string' || typeof text !== 'string' || text.trim() === '')
      return sendGoogleError(reply, 'required', {
        message: 'snippet.videoId and snippet.topLevelComment.snippet.textOriginal are required',
      })
    if ([...text].length > COMMENT_MAX)
      return sendGoogleError(reply, 'badContent', {
        message: `The comment is longer than ${COMMENT_MAX} characters.`,
      })
    const video = sandbox.videos.get(videoId)
    if (!video) return sendGoogleError(reply, 'notFound', { message: `Video ${videoId} not found.` })
    const channel = sandbox.accounts.get(grant.email)?.channel
    if (!channel) return sendGoogleError(reply, 'forbidden')
    if (!sandbox.chargeQuota(50)) return sendGoogleError(reply, 'quotaExceeded')
    const comment: SandboxComment = {
      id: `Ugz${Buffer.from(`${videoId}:${sandbox.comments.size + 1}`)
        .toString('base64url')
        .slice(0, 20)}`,
      videoId,
      channelId: channel.id,
      text,
      publishedAt: new Date(sandbox.clock.now()).toISOString(),
    }
    sandbox.comments.set(comment.id, comment)
    video.statistics.commentCount += 1
    return reply.send(commentThreadResource(comment))
  })

  app.get('/youtube/v3/commentThreads', async (request, reply) => {
    sandbox.record({ op: 'commentThreads.list', method: 'GET', path: '/youtube/v3/commentThreads' })
    if (fault(request, reply, 'commentThreads.list')) return reply
    const grant = authorize(sandbox, request, reply, 'commentThreads.list')
    if (!grant) return reply
    const query = queryOf(request)
    const parts = partsOf(query)
    if (!checkParts(reply, parts, new Set(['id', 'snippet', 'replies']))) return reply
    if (!sandbox.chargeQuota(1)) return sendGoogleError(reply, 'quotaExceeded')
    const videoId = query.get('videoId')
    const max = Math.min(100, Number(query.get('maxResults') ?? 20))
    // Newest first (order=time, the default), `maxResults` a page; a page token names the thread before
    // the page, so threads added meanwhile do not shift it.
    const all = [...sandbox.comments.values()]
      .filter((c) => c.videoId === videoId && sandbox.listed(Date.parse(c.publishedAt)))
      .reverse()
    // The token of no thread (after an empty first page) starts at the top.
    const token = query.get('pageToken')
    const from =
      token === null || token === pageToken('') ? 0 : all.findIndex((c) => pageToken(c.id) === token) + 1
    if (from === 0 && token !== null && token !== pageToken(''))
      return sendGoogleError(reply, 'invalidPageToken')
    // A short page (fewer threads, or none) still leads on when the fault injector asks for one.
    const size = Math.min(max, servedRows(request) ?? max)
    const page = all.slice(from, from + size)
    const next = from + size < all.length ? pageToken(page.at(-1)?.id ?? all[from - 1]?.id ?? '') : undefined
    return reply.send({
      ...listResponse('youtube#commentThreadListResponse', page.map(commentThreadResource)),
      pageInfo: { totalResults: all.length, resultsPerPage: max },
      ...(next ? { nextPageToken: next } : {}),
    })
  })
}
