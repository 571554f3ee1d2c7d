import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { applySimpleFault, bearerToken, partsOf, queryOf, sendGoogleError } from './http.js'
import { type FaultOp, type SandboxChannel, type SandboxVideo, scopesFor } from './model.js'
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
}
