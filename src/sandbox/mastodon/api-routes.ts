import type { FastifyInstance, FastifyRequest } from 'fastify'
import { mastodonLength } from '../../core/text-length.js'
import { servedRows } from '../fault-hooks.js'
import { listedAt } from '../fault-injector.js'
import type { MastodonSpec } from './contract.js'
import {
  accountJson,
  credentialAccountJson,
  instanceV1Json,
  instanceV2Json,
  mediaJson,
  statusJson,
} from './entities.js'
import { formatStatus } from './format.js'
import {
  answer,
  bodyOf,
  checkRequest,
  fail,
  instanceOf,
  listParam,
  type Params,
  stringParam,
  userToken,
} from './http.js'
import type { MastodonSandboxState, SimInstance, SimMedia, SimStatus } from './state.js'

/**
 * The REST API of a simulated instance: its description (`/api/v2/instance`, `/api/v1/instance`), the
 * signed-in account and its statuses (paged newest first with a `Link` header, as Mastodon pages), media
 * (`POST /api/v2/media`: 200 for a small image, 202 for a video or a large one, which `GET /api/v1/media/:id`
 * answers 206 until it is processed), and statuses, created with Mastodon's checks (length with links at
 * the instance's weight and the content warning counted, attachments owned, unattached and processed,
 * never images with a video, the posting limit) and its `Idempotency-Key`, remembered per account for the
 * instance's window.
 */

const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const
const MB = 1024 * 1024
/** An image above this size is processed asynchronously (202), as Mastodon does for large files. */
const ASYNC_IMAGE_BYTES = 1 * MB

const byIdDesc = (a: { id: string }, b: { id: string }) =>
  BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0

function sniffType(bytes: Buffer): SimMedia['type'] | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image'
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image'
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'gifv'
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image'
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return 'video'
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'video'
  return undefined
}

async function upload(state: MastodonSandboxState, instance: SimInstance, accountId: string, params: Params) {
  const file = params.file
  if (!(file instanceof Blob)) throw fail(422, "Validation failed: File can't be blank")
  const bytes = Buffer.from(await file.arrayBuffer())
  const type = sniffType(bytes)
  if (!type) throw fail(422, 'Validation failed: File content type is invalid')
  const limit = type === 'video' ? instance.settings.videoSizeLimit : instance.settings.imageSizeLimit
  if (bytes.length > limit)
    throw fail(422, `Validation failed: File file size must be less than ${Math.floor(limit / MB)} MB`)
  const description = stringParam(params, 'description') ?? null
  if (description && description.length > instance.settings.descriptionLimit)
    throw fail(
      422,
      `Validation failed: Description is too long (maximum is ${instance.settings.descriptionLimit} characters)`,
    )
  const media: SimMedia = {
    id: state.nextId(),
    accountId,
    type,
    contentType: file.type || 'application/octet-stream',
    size: bytes.length,
    description,
    pollsLeft: type === 'video' || bytes.length > ASYNC_IMAGE_BYTES ? instance.settings.processingPolls : 0,
    createdAt: state.now(),
  }
  if (state.kept.keep(`${instance.host}:${media.id}`, media.contentType, bytes))
    media.kept = `${instance.host}:${media.id}`
  instance.media.set(media.id, media)
  return media
}

/** An attachment of the account's not yet in a status: the only kind `GET /api/v1/media/:id` shows. */
function ownUnattached(instance: SimInstance, accountId: string, id: string): SimMedia {
  const media = instance.media.get(id)
  if (!media || media.accountId !== accountId || media.statusId) throw fail(404, 'Record not found')
  return media
}

function checkMedia(instance: SimInstance, accountId: string, ids: string[]): SimMedia[] {
  if (ids.length > instance.settings.maxMedia)
    throw fail(422, `Validation failed: Cannot attach more than ${instance.settings.maxMedia} files`)
  const media = ids.map((id) => instance.media.get(id))
  const missing = ids.filter((_id, i) => {
    const m = media[i]
    return !m || m.accountId !== accountId || m.statusId
  })
  if (missing.length > 0)
    throw fail(422, `Media ${missing.join(', ')} not found or already attached to another post`)
  const found = media as SimMedia[]
  if (found.some((m) => m.pollsLeft > 0))
    throw fail(422, 'Cannot attach files that have not finished processing. Try again in a moment!')
  if (found.length > 1 && found.some((m) => m.type === 'video' || m.type === 'gifv'))
    throw fail(422, 'Cannot attach a video to a post that already contains images')
  return found
}

/** The status the key names, when the instance still remembers it and the status still exists. */
function remembered(
  state: MastodonSandboxState,
  instance: SimInstance,
  accountId: string,
  key: string | undefined,
) {
  if (!key || instance.settings.idempotencyMs <= 0) return undefined
  const entry = instance.keys.get(`${accountId}:${key}`)
  if (!entry || state.now() - entry.storedAt >= instance.settings.idempotencyMs) return undefined
  return instance.statuses.get(entry.statusId)
}

/** Mastodon's posting limit (300 statuses per 3 hours per account): a 429 with its reset time. */
function checkPostingLimit(state: MastodonSandboxState, instance: SimInstance, accountId: string) {
  const { statusLimit, statusWindowMs } = instance.settings
  const recent = (instance.posted.get(accountId) ?? []).filter((at) => at > state.now() - statusWindowMs)
  instance.posted.set(accountId, recent)
  if (recent.length >= statusLimit) {
    const reset = new Date(recent[0]! + statusWindowMs).toISOString()
    throw Object.assign(fail(429, 'Too many requests'), {
      headers: {
        'x-ratelimit-limit': String(statusLimit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': reset,
      },
    })
  }
}

function createStatus(
  state: MastodonSandboxState,
  instance: SimInstance,
  token: { accountId: string; appId: string },
  params: Params,
  key: string | undefined,
): SimStatus {
  const text = stringParam(params, 'status') ?? ''
  const spoiler = stringParam(params, 'spoiler_text') ?? ''
  const mediaIds = listParam(params, 'media_ids').map(String)
  if (params.poll !== undefined || params.scheduled_at !== undefined)
    throw fail(422, 'Validation failed: polls and scheduled statuses are not simulated')
  if (text.trim() === '' && mediaIds.length === 0) throw fail(422, "Validation failed: Text can't be blank")
  if (mastodonLength(text, spoiler, instance.settings.urlWeight) > instance.settings.maxCharacters)
    throw fail(422, `Validation failed: Text character limit of ${instance.settings.maxCharacters} exceeded`)
  const visibility = stringParam(params, 'visibility') ?? 'public'
  if (!(VISIBILITIES as readonly string[]).includes(visibility))
    throw fail(422, 'Validation failed: Visibility is not included in the list')
  const language = stringParam(params, 'language') ?? null
  if (language !== null && !/^[a-z]{2,3}$/.test(language))
    throw fail(422, 'Validation failed: Language is not a valid language')
  const replyTo = stringParam(params, 'in_reply_to_id') ?? null
  if (replyTo !== null && !instance.statuses.has(replyTo)) throw fail(404, 'Record not found')
  const media = checkMedia(instance, token.accountId, mediaIds)
  checkPostingLimit(state, instance, token.accountId)
  const status: SimStatus = {
    id: state.nextId(),
    accountId: token.accountId,
    text,
    content: formatStatus(text, state.instanceUrl(instance)),
    spoilerText: spoiler,
    visibility: visibility as SimStatus['visibility'],
    language,
    inReplyToId: replyTo,
    mediaIds,
    appId: token.appId,
    createdAt: state.now(),
    favourites: 0,
    reblogs: 0,
    ...(key ? { idempotencyKey: key } : {}),
  }
  for (const m of media) m.statusId = status.id
  instance.statuses.set(status.id, status)
  instance.posted.get(token.accountId)?.push(status.createdAt) ??
    instance.posted.set(token.accountId, [status.createdAt])
  if (key && instance.settings.idempotencyMs > 0)
    instance.keys.set(`${token.accountId}:${key}`, { statusId: status.id, storedAt: state.now() })
  return status
}

/** One page of an account's statuses, newest first, and the `Link` header to the pages beside it. */
function statusesPage(
  state: MastodonSandboxState,
  instance: SimInstance,
  request: FastifyRequest,
  accountId: string,
) {
  const query = request.query as Record<string, string | undefined>
  const limit = Math.min(40, Math.max(1, Number(query.limit ?? 20) || 20))
  const all = [...instance.statuses.values()]
    .filter(
      (s) =>
        s.accountId === accountId && listedAt(state.options.faults, 'mastodon', s.createdAt, state.now()),
    )
    .filter((s) => query.exclude_replies !== 'true' || s.inReplyToId === null)
    .filter((s) => query.only_media !== 'true' || s.mediaIds.length > 0)
    .sort(byIdDesc)
  const below = (id: string | undefined) => (s: SimStatus) => id === undefined || BigInt(s.id) < BigInt(id)
  const above = (id: string | undefined) => (s: SimStatus) => id === undefined || BigInt(s.id) > BigInt(id)
  const window = all.filter(below(query.max_id)).filter(above(query.since_id ?? query.min_id))
  // A page may hold fewer statuses than asked, even none, with its link to the rest (the fault injector's short pages).
  const size = Math.min(limit, servedRows(request) ?? limit)
  const rows = window.slice(0, size)
  const base = `${state.instanceUrl(instance)}/api/v1/accounts/${accountId}/statuses?limit=${limit}`
  const links: string[] = []
  if (window.length > rows.length) {
    const cursor = rows.at(-1)?.id ?? query.max_id ?? (BigInt(window[0]!.id) + 1n).toString()
    links.push(`<${base}&max_id=${cursor}>; rel="next"`)
  }
  if (rows[0]) links.push(`<${base}&min_id=${rows[0].id}>; rel="prev"`)
  return { rows, link: links.join(', ') }
}

function registerAccountRoutes(
  app: FastifyInstance,
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
) {
  app.get('/api/v1/accounts/verify_credentials', async (request, reply) => {
    const instance = instanceOf(state, request)
    checkRequest(state, spec, request, {})
    const token = userToken(instance, request, ['read:accounts', 'profile'])
    return answer(
      state,
      spec,
      request,
      reply,
      200,
      credentialAccountJson(state, instance, instance.accounts.get(token.accountId)!),
    )
  })
  app.get<{ Params: { id: string } }>('/api/v1/accounts/:id', async (request, reply) => {
    const instance = instanceOf(state, request)
    const account = instance.accounts.get(request.params.id)
    if (!account) throw fail(404, 'Record not found')
    return answer(state, spec, request, reply, 200, accountJson(state, instance, account))
  })
  app.get<{ Params: { id: string } }>('/api/v1/accounts/:id/statuses', async (request, reply) => {
    const instance = instanceOf(state, request)
    checkRequest(state, spec, request, {})
    if (!instance.accounts.has(request.params.id)) throw fail(404, 'Record not found')
    const { rows, link } = statusesPage(state, instance, request, request.params.id)
    if (link) reply.header('link', link)
    return answer(
      state,
      spec,
      request,
      reply,
      200,
      rows.map((s) => statusJson(state, instance, s)),
    )
  })
}

function registerMediaRoutes(
  app: FastifyInstance,
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
) {
  app.post('/api/v2/media', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    checkRequest(state, spec, request, params)
    const token = userToken(instance, request, ['write:media'])
    const media = await upload(state, instance, token.accountId, params)
    return answer(
      state,
      spec,
      request,
      reply,
      media.pollsLeft > 0 ? 202 : 200,
      mediaJson(state, instance, media),
    )
  })
  app.get<{ Params: { id: string } }>('/api/v1/media/:id', async (request, reply) => {
    const instance = instanceOf(state, request)
    checkRequest(state, spec, request, {})
    const token = userToken(instance, request, ['write:media'])
    const media = ownUnattached(instance, token.accountId, request.params.id)
    if (media.pollsLeft > 0) {
      media.pollsLeft -= 1
      return answer(state, spec, request, reply, 206, mediaJson(state, instance, { ...media, pollsLeft: 1 }))
    }
    return answer(state, spec, request, reply, 200, mediaJson(state, instance, media))
  })
  app.put<{ Params: { id: string } }>('/api/v1/media/:id', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    checkRequest(state, spec, request, params)
    const token = userToken(instance, request, ['write:media'])
    const media = ownUnattached(instance, token.accountId, request.params.id)
    const description = stringParam(params, 'description')
    if (description !== undefined) media.description = description
    return answer(state, spec, request, reply, 200, mediaJson(state, instance, media))
  })
}

function registerStatusRoutes(
  app: FastifyInstance,
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
) {
  app.post('/api/v1/statuses', async (request, reply) => {
    const instance = instanceOf(state, request)
    const params = await bodyOf(request)
    checkRequest(state, spec, request, params)
    const token = userToken(instance, request, ['write:statuses'])
    const header = request.headers['idempotency-key']
    const key = typeof header === 'string' && header !== '' ? header : undefined
    const status =
      remembered(state, instance, token.accountId, key) ?? createStatus(state, instance, token, params, key)
    return answer(state, spec, request, reply, 200, statusJson(state, instance, status))
  })
  app.get<{ Params: { id: string } }>('/api/v1/statuses/:id', async (request, reply) => {
    const instance = instanceOf(state, request)
    const status = instance.statuses.get(request.params.id)
    if (!status) throw fail(404, 'Record not found')
    return answer(state, spec, request, reply, 200, statusJson(state, instance, status))
  })
  app.delete<{ Params: { id: string } }>('/api/v1/statuses/:id', async (request, reply) => {
    const instance = instanceOf(state, request)
    const token = userToken(instance, request, ['write:statuses'])
    const status = instance.statuses.get(request.params.id)
    if (!status || status.accountId !== token.accountId) throw fail(404, 'Record not found')
    const shown = { ...statusJson(state, instance, status), text: status.text }
    instance.statuses.delete(status.id)
    return answer(state, spec, request, reply, 200, shown)
  })
}

export function registerApiRoutes(
  app: FastifyInstance,
  state: MastodonSandboxState,
  spec: MastodonSpec | undefined,
) {
  app.get('/api/v2/instance', async (request, reply) => {
    const instance = instanceOf(state, request)
    // A server before 4.3 answers without `api_versions`, which the description (of 4.7) requires.
    return answer(
      state,
      instance.settings.legacy ? undefined : spec,
      request,
      reply,
      200,
      instanceV2Json(state, instance),
    )
  })
  // Mastodon.py reads `/api/v1/instance/` (with the slash) for the server's version.
  for (const url of ['/api/v1/instance', '/api/v1/instance/'])
    app.get(url, async (request, reply) =>
      answer(state, spec, request, reply, 200, instanceV1Json(state, instanceOf(state, request))),
    )
  registerAccountRoutes(app, state, spec)
  registerMediaRoutes(app, state, spec)
  registerStatusRoutes(app, state, spec)
}
