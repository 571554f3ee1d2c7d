import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import { inspectReceivedVideo, isH264 } from '../video-check.js'
import { avatarUrlUnder } from '../web/avatar-png.js'
import { sniffContentType } from '../web/kept-media.js'
import { checkLinkedInRequest } from './contract.js'
import type { Asset, FaultOp, LinkedInSandboxState, Member, TokenGrant } from './state.js'

/**
 * LinkedIn's REST endpoints as Herald calls them, with LinkedIn's own error bodies: `/v2/userinfo`,
 * `/rest/organizationAcls` (paginated), `/rest/organizations`, the Images and Videos APIs with their
 * upload URLs (`/dms-uploads/…`), `/rest/posts` (create and find by author), and the statistics
 * endpoints. Every request is checked against the contract (`src/sandbox/linkedin/contract.ts`); a
 * request that breaks it is refused with 400 and recorded in `violations`.
 */

type Reply = FastifyReply
const err = (reply: Reply, status: number, body: Record<string, unknown>) =>
  reply.code(status).send({ status, ...body })

const monthOf = (ms: number) => {
  const d = new Date(ms)
  return d.getUTCFullYear() * 100 + d.getUTCMonth() + 1
}
const monthsBetween = (from: number, to: number) =>
  (Math.floor(to / 100) - Math.floor(from / 100)) * 12 + ((to % 100) - (from % 100))

/** Query parameters decoded (Rest.li values such as `List(urn%3Ali%3A…)` come out as `List(urn:li:…)`). */
function queryOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of new URL(request.url, 'http://sandbox.invalid').searchParams) out[k] = v
  return out
}
const rawPath = (request: FastifyRequest, prefix: string) => request.url.split('?')[0]!.slice(prefix.length)

function bodyOf(request: FastifyRequest): unknown {
  if (request.body instanceof URLSearchParams) return Object.fromEntries(request.body)
  if (Buffer.isBuffer(request.body)) return undefined
  return request.body
}

/** A page of `count` rows, or fewer when the fault injector asked for a short page ({@link servedRows}). */
const pageSize = (request: FastifyRequest, count: number) => Math.min(count, servedRows(request) ?? count)

export function registerApiRoutes(app: FastifyInstance, state: LinkedInSandboxState): void {
  // Version header and contract, before any handler (the OAuth pages and control routes are exempt).
  app.addHook('preHandler', async (request, reply) => {
    const path = rawPath(request, state.prefix)
    if (path.startsWith('/_sandbox') || path === '/oauth/v2/authorization') return
    if (path.startsWith('/rest/')) {
      const version = request.headers['linkedin-version']
      if (typeof version !== 'string' || version === '')
        return err(reply, 400, {
          code: 'VERSION_MISSING',
          message:
            'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        })
      const month = Number(version.slice(0, 6))
      const current = monthOf(state.now())
      if (!/^\d{6}(\.\d{2})?$/.test(version) || monthsBetween(month, current) < 0)
        return err(reply, 400, {
          code: 'NONEXISTENT_VERSION',
          message: `Requested version ${version} is not active`,
        })
      if (monthsBetween(month, current) >= 12)
        return err(reply, 426, {
          code: 'NONEXISTENT_VERSION',
          message: `Requested version ${version} is not active`,
        })
    }
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(request.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v
    const { problems } = checkLinkedInRequest({
      method: request.method,
      path,
      query: queryOf(request),
      headers,
      body: bodyOf(request),
    })
    if (problems.length > 0) {
      state.violations.push({ method: request.method, path, problems })
      return err(reply, 400, { code: 'ILLEGAL_ARGUMENT', message: problems.join('; ') })
    }
  })

  /** The token's grant, or a 401 in LinkedIn's words. */
  const authorize = (request: FastifyRequest, reply: Reply): TokenGrant | undefined => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1]
    const grant = token ? state.tokens.get(token) : undefined
    if (grant?.revoked) {
      err(reply, 401, {
        serviceErrorCode: 65601,
        code: 'REVOKED_ACCESS_TOKEN',
        message: 'The token used in the request has been revoked by the user',
      })
      return undefined
    }
    if (!grant || grant.expiresAt <= state.now()) {
      err(reply, 401, { serviceErrorCode: 65600, message: 'Invalid access token' })
      return undefined
    }
    return grant
  }
  const member = (grant: TokenGrant) => state.memberBySub(grant.sub) as Member
  const fault = (op: FaultOp, reply: Reply) => {
    const f = state.takeFault(op)
    if (f && !f.afterCreate) {
      err(reply, f.status, f.body ?? { message: `Internal Server Error` })
      return true
    }
    if (f) state.faults.unshift(f)
    return false
  }
  const forbidden = (reply: Reply, what: string) =>
    err(reply, 403, {
      serviceErrorCode: 100,
      code: 'ACCESS_DENIED',
      message: `Not enough permissions to access: ${what}`,
    })
  /** Whether the member may act as `author` with this grant (own person URN, or a page role plus the scope). */
  const mayActAs = (grant: TokenGrant, author: string, personScope: string, orgScope: string) => {
    if (author === `urn:li:person:${grant.sub}`) return grant.scopes.includes(personScope)
    const orgId = /^urn:li:organization:(\d+)$/.exec(author)?.[1]
    return Boolean(orgId && member(grant).roles.has(orgId) && grant.scopes.includes(orgScope))
  }

  app.get('/v2/userinfo', async (request, reply) => {
    if (fault('userinfo', reply)) return reply
    const grant = authorize(request, reply)
    if (!grant) return reply
    if (!grant.scopes.includes('openid') || !grant.scopes.includes('profile'))
      return forbidden(reply, 'userinfo.GET')
    const m = member(grant)
    const [given, ...rest] = m.name.split(' ')
    return {
      sub: m.sub,
      name: m.name,
      given_name: given,
      family_name: rest.join(' '),
      ...(state.publicUrl ? { picture: avatarUrlUnder(`${state.publicUrl}/web`, m.sub) } : {}),
      locale: 'en-US',
      ...(grant.scopes.includes('email')
        ? { email: `${m.sub.toLowerCase()}@example.com`, email_verified: true }
        : {}),
    }
  })

  app.get('/rest/organizationAcls', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    if (!grant.scopes.includes('rw_organization_admin') && !grant.scopes.includes('r_organization_social'))
      return forbidden(reply, 'organizationAcls.FINDER-roleAssignee')
    const q = queryOf(request)
    const start = Number(q.start)
    const count = Math.min(Number(q.count), 100)
    const all = [...member(grant).roles].filter(([, role]) => role === q.role)
    const page = all.slice(start, start + count)
    return {
      paging: { start, count, total: all.length, links: [] },
      // Alternate the field name as the old and new ACL finders do, so both are read.
      elements: page.map(([id, role], i) => ({
        roleAssignee: `urn:li:person:${grant.sub}`,
        role,
        state: 'APPROVED',
        [(start + i) % 2 === 0 ? 'organization' : 'organizationalTarget']: `urn:li:organization:${id}`,
      })),
    }
  })

  app.get('/rest/organizations', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const ids = /^List\(([\d,]+)\)$/.exec(queryOf(request).ids ?? '')?.[1]?.split(',') ?? []
    const results: Record<string, unknown> = {}
    const statuses: Record<string, number> = {}
    for (const id of ids) {
      const org = state.organizations.get(id)
      statuses[id] = org ? 200 : 404
      if (org) results[id] = { id: Number(id), localizedName: org.localizedName, vanityName: org.vanityName }
    }
    return { results, statuses, errors: {} }
  })

  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}${state.prefix}`

  app.post('/rest/images', async (request, reply) => {
    if (fault('images', reply)) return reply
    const grant = authorize(request, reply)
    if (!grant) return reply
    const owner = (request.body as { initializeUploadRequest: { owner: string } }).initializeUploadRequest
      .owner
    if (!mayActAs(grant, owner, 'w_member_social', 'w_organization_social'))
      return forbidden(reply, 'images.ACTION-initializeUpload')
    const urn = `urn:li:image:C4E10AQ${randomBytes(9).toString('base64url').replace(/-/g, 'x')}`
    const uploadId = randomBytes(12).toString('hex')
    state.assets.set(urn, { urn, kind: 'image', owner, status: 'WAITING_UPLOAD', parts: [], bytes: 0 })
    state.uploads.set(uploadId, { urn, part: 0 })
    return {
      value: {
        uploadUrlExpiresAt: state.now() + 3_600_000,
        uploadUrl: `${origin(request)}/dms-uploads/${uploadId}`,
        image: urn,
      },
    }
  })

  const readAsset = (kind: 'image' | 'video') => async (request: FastifyRequest, reply: Reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const urn = decodeURIComponent((request.params as { urn: string }).urn)
    const asset = state.assets.get(urn)
    if (asset?.kind !== kind) return err(reply, 404, { code: 'NOT_FOUND', message: `${urn} does not exist` })
    // A member's w_member_social token cannot read images (reference A.6); videos it may read.
    if (kind === 'image' && asset.owner.startsWith('urn:li:person:')) return forbidden(reply, 'images.GET')
    if (kind === 'video' && !mayActAs(grant, asset.owner, 'w_member_social', 'w_organization_social'))
      return err(reply, 403, {
        message:
          'Accessing this video resource is forbidden. Please check your permissions for this resource',
      })
    return { id: urn, owner: asset.owner, status: state.statusOf(asset) }
  }
  app.get('/rest/images/:urn', readAsset('image'))
  app.get('/rest/videos/:urn', readAsset('video'))

  app.post('/rest/videos', async (request, reply) => {
    if (fault('videos', reply)) return reply
    const grant = authorize(request, reply)
    if (!grant) return reply
    const action = queryOf(request).action
    if (action === 'initializeUpload') {
      const init = (request.body as { initializeUploadRequest: { owner: string; fileSizeBytes: number } })
        .initializeUploadRequest
      if (!mayActAs(grant, init.owner, 'w_member_social', 'w_organization_social'))
        return forbidden(reply, 'videos.ACTION-initializeUpload')
      const urn = `urn:li:video:C5F10AQ${randomBytes(9).toString('base64url').replace(/-/g, 'x')}`
      const asset: Asset = {
        urn,
        kind: 'video',
        owner: init.owner,
        status: 'WAITING_UPLOAD',
        size: init.fileSizeBytes,
        parts: [],
        bytes: 0,
      }
      for (let first = 0, i = 0; first < init.fileSizeBytes; first += state.videoPartBytes, i++) {
        const uploadId = randomBytes(12).toString('hex')
        asset.parts.push({
          uploadId,
          firstByte: first,
          lastByte: Math.min(first + state.videoPartBytes, init.fileSizeBytes) - 1,
        })
        state.uploads.set(uploadId, { urn, part: i })
      }
      state.assets.set(urn, asset)
      return {
        value: {
          uploadUrlsExpireAt: state.now() + 3_600_000,
          video: urn,
          uploadInstructions: asset.parts.map((p) => ({
            uploadUrl: `${origin(request)}/dms-uploads/${p.uploadId}`,
            firstByte: p.firstByte,
            lastByte: p.lastByte,
          })),
          uploadToken: '',
        },
      }
    }
    const fin = (request.body as { finalizeUploadRequest: { video: string; uploadedPartIds: string[] } })
      .finalizeUploadRequest
    const asset = state.assets.get(fin.video)
    if (asset?.kind !== 'video')
      return err(reply, 404, { code: 'NOT_FOUND', message: `${fin.video} does not exist` })
    if (!mayActAs(grant, asset.owner, 'w_member_social', 'w_organization_social'))
      return forbidden(reply, 'videos.ACTION-finalizeUpload')
    const expected = asset.parts.map((p) => p.etag)
    if (expected.some((e) => !e) || JSON.stringify(expected) !== JSON.stringify(fin.uploadedPartIds))
      return err(reply, 400, {
        code: 'INVALID_UPLOAD',
        message: 'The uploaded part ids do not match the uploaded parts, in order',
      })
    // LinkedIn's processing takes MP4 with H.264 only; anything else ends PROCESSING_FAILED.
    const whole = Buffer.concat(state.videoBytes.get(asset.urn) ?? [])
    const received = inspectReceivedVideo(whole)
    state.kept.keep(asset.urn, 'video/mp4', whole)
    state.videoBytes.delete(asset.urn)
    if (received.ok && received.container === 'mp4' && isH264(received.codec))
      asset.videoCodec = received.codec
    else asset.problem = received.ok ? `${received.container} with ${received.codec} video` : received.problem
    asset.status = asset.problem ? 'PROCESSING_FAILED' : 'PROCESSING'
    asset.readyAt = state.now() + state.processingMs
    return reply.code(200).send({})
  })

  app.put('/dms-uploads/:id', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const upload = state.uploads.get((request.params as { id: string }).id)
    const asset = upload ? state.assets.get(upload.urn) : undefined
    if (!upload || !asset) return reply.code(404).send()
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    if (asset.kind === 'image') {
      if (bytes.length === 0) return reply.code(400).send()
      asset.bytes = bytes.length
      state.kept.keep(asset.urn, sniffContentType(bytes, 'image/jpeg'), bytes)
      asset.status = 'PROCESSING'
      asset.readyAt = state.now() + state.processingMs
      return reply.code(201).send()
    }
    const part = asset.parts[upload.part]!
    if (bytes.length !== part.lastByte - part.firstByte + 1)
      return err(reply, 400, {
        code: 'INVALID_PART',
        message: `Part ${upload.part + 1} must be ${part.lastByte - part.firstByte + 1} bytes`,
      })
    part.etag = `/ETag${randomBytes(6).toString('hex')}`
    asset.bytes += bytes.length
    const received = state.videoBytes.get(asset.urn) ?? []
    received[upload.part] = bytes
    state.videoBytes.set(asset.urn, received)
    return reply.header('etag', `"${part.etag}"`).code(200).send()
  })

  app.post('/rest/posts', async (request, reply) => {
    const fail = state.takeFault('posts')
    if (fail && !fail.afterCreate)
      return err(reply, fail.status, fail.body ?? { message: 'Internal Server Error' })
    const grant = authorize(request, reply)
    if (!grant) return reply
    const body = request.body as { author: string; commentary: string; content?: Record<string, unknown> }
    if (!mayActAs(grant, body.author, 'w_member_social', 'w_organization_social'))
      return forbidden(reply, 'posts.CREATE')
    if (!state.countPost(grant.sub))
      return reply.code(429).send({
        status: 429,
        serviceErrorCode: 101,
        code: 'TOO_MANY_REQUESTS',
        message: 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.',
      })
    const refs = mediaRefs(body.content)
    for (const urn of refs) {
      const asset = state.assets.get(urn)
      if (!asset || state.statusOf(asset) !== 'AVAILABLE' || asset.owner !== body.author)
        return err(reply, 422, {
          errorDetailType: 'com.linkedin.common.error.BadRequest',
          message: `${urn} is not available for ${body.author}`,
          errorDetails: {
            inputErrors: [{ description: 'Media not ready', input: {}, code: 'INVALID_MEDIA' }],
          },
        })
    }
    for (const post of state.posts.values())
      if (
        state.refusesDuplicates() &&
        post.author === body.author &&
        post.commentary === body.commentary &&
        JSON.stringify(post.content) === JSON.stringify(body.content)
      )
        return err(reply, 422, {
          errorDetailType: 'com.linkedin.common.error.BadRequest',
          message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${post.id}`,
          errorDetails: {
            inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }],
          },
        })
    const post = state.createPost({
      author: body.author,
      commentary: body.commentary,
      content: body.content,
      createdBy: grant.sub,
    })
    if (fail) return err(reply, fail.status, fail.body ?? { message: 'Internal Server Error' })
    return reply.code(201).header('x-restli-id', post.id).header('x-linkedin-id', post.id).send()
  })

  // First comments: comments on a post, as the member or as a page they administer (w_member_social /
  // w_organization_social, as for posts); `object` must be the post in the path.
  app.post('/rest/socialActions/:urn/comments', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const postUrn = (request.params as { urn: string }).urn
    const body = request.body as { actor: string; object: string; message: { text: string } }
    if (!mayActAs(grant, body.actor, 'w_member_social', 'w_organization_social'))
      return forbidden(reply, 'comments.CREATE')
    if (body.object !== postUrn || !state.posts.has(postUrn))
      return err(reply, 404, {
        serviceErrorCode: 100,
        code: 'NOT_FOUND',
        message: `Post ${postUrn} not found`,
      })
    const id = state.nextId()
    const urn = `urn:li:comment:(${postUrn},${id})`
    const comment = {
      id,
      urn,
      object: postUrn,
      actor: body.actor,
      text: body.message.text,
      createdAt: state.now(),
    }
    state.comments.set(urn, comment)
    return reply
      .code(201)
      .header('x-restli-id', urn)
      .send({
        id,
        commentUrn: urn,
        actor: comment.actor,
        object: postUrn,
        message: { text: comment.text },
        created: { actor: comment.actor, time: comment.createdAt },
      })
  })

  app.get('/rest/socialActions/:urn/comments', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const postUrn = (request.params as { urn: string }).urn
    const q = queryOf(request)
    const start = Number(q.start ?? 0)
    const count = Number(q.count ?? 10)
    const all = [...state.comments.values()]
      .filter((c) => c.object === postUrn && state.listed(c.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt)
    return {
      paging: { start, count, total: all.length, links: [] },
      elements: all.slice(start, start + pageSize(request, count)).map((c) => ({
        id: c.id,
        commentUrn: c.urn,
        actor: c.actor,
        object: c.object,
        message: { text: c.text },
        created: { actor: c.actor, time: c.createdAt },
      })),
    }
  })

  app.get('/rest/posts', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const q = queryOf(request)
    if (!mayActAs(grant, q.author!, 'w_member_social', 'r_organization_social'))
      return forbidden(reply, 'posts.FINDER-author')
    const start = Number(q.start ?? 0)
    const count = Number(q.count)
    const all = [...state.posts.values()]
      .filter((p) => p.author === q.author && state.listed(p.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt)
    const posts = all.slice(start, start + pageSize(request, count))
    // Rest.li paging: a `next` link while more posts follow, from the row after the last one served.
    const next = start + posts.length < all.length ? start + posts.length : undefined
    return {
      paging: {
        start,
        count,
        total: all.length,
        links:
          next === undefined
            ? []
            : [
                {
                  rel: 'next',
                  type: 'application/json',
                  href: `/rest/posts?q=author&author=${encodeURIComponent(q.author!)}&sortBy=LAST_MODIFIED&start=${next}&count=${count}`,
                },
              ],
      },
      elements: posts.map((p) => ({
        id: p.id,
        author: p.author,
        commentary: p.commentary,
        createdAt: p.createdAt,
        lastModifiedAt: p.createdAt,
        publishedAt: p.createdAt,
        lifecycleState: 'PUBLISHED',
        visibility: 'PUBLIC',
        ...(p.content ? { content: p.content } : {}),
      })),
    }
  })

  /** Page analytics need rw_organization_admin and the ADMINISTRATOR role on the page. */
  const pageAdmin = (request: FastifyRequest, reply: Reply, orgUrn: string | undefined) => {
    if (fault('statistics', reply)) return undefined
    const grant = authorize(request, reply)
    if (!grant) return undefined
    const id = /^urn:li:organization:(\d+)$/.exec(orgUrn ?? '')?.[1]
    if (
      !id ||
      !grant.scopes.includes('rw_organization_admin') ||
      member(grant).roles.get(id) !== 'ADMINISTRATOR'
    ) {
      forbidden(reply, 'organizationalEntityShareStatistics.FINDER-organizationalEntity')
      return undefined
    }
    return state.organizations.get(id)
  }

  app.get('/rest/organizationalEntityShareStatistics', async (request, reply) => {
    const q = queryOf(request)
    const org = pageAdmin(request, reply, q.organizationalEntity)
    if (!org) return reply
    const urn = /^List\((.+)\)$/.exec(q.shares ?? q.ugcPosts ?? '')?.[1] ?? ''
    const post = state.posts.get(urn)
    if (!post || post.author !== `urn:li:organization:${org.id}`)
      return { paging: { start: 0, count: 10 }, elements: [] }
    const n = Number(post.id.slice(-3))
    return {
      paging: { start: 0, count: 10, links: [] },
      elements: [
        {
          organizationalEntity: `urn:li:organization:${org.id}`,
          [q.shares ? 'share' : 'ugcPost']: post.id,
          totalShareStatistics: {
            uniqueImpressionsCount: 100 + (n % 50),
            shareCount: 2,
            engagement: 0.05,
            clickCount: 4,
            likeCount: 3 + (n % 5),
            impressionCount: 150 + (n % 50),
            commentCount: 1,
          },
        },
      ],
    }
  })

  app.get('/rest/videoAnalytics', async (request, reply) => {
    const grant = authorize(request, reply)
    if (!grant) return reply
    const post = state.posts.get(queryOf(request).entity ?? '')
    const video =
      post?.content &&
      'media' in post.content &&
      String((post.content.media as { id: string }).id).startsWith('urn:li:video:')
    return {
      paging: { start: 0, count: 10 },
      elements: video ? [{ type: 'VIDEO_VIEW', value: 42, entity: post?.id }] : [],
    }
  })

  app.get('/rest/networkSizes/:urn', async (request, reply) => {
    const org = pageAdmin(request, reply, decodeURIComponent((request.params as { urn: string }).urn))
    if (!org) return reply
    return { firstDegreeSize: org.followers }
  })

  app.get('/rest/organizationPageStatistics', async (request, reply) => {
    const org = pageAdmin(request, reply, queryOf(request).organization)
    if (!org) return reply
    return {
      paging: { start: 0, count: 10 },
      elements: [
        {
          organization: `urn:li:organization:${org.id}`,
          totalPageStatistics: { views: { allPageViews: { pageViews: org.pageViews } } },
        },
      ],
    }
  })
}

function mediaRefs(content: Record<string, unknown> | undefined): string[] {
  if (!content) return []
  if ('media' in content) return [(content.media as { id: string }).id]
  if ('multiImage' in content)
    return (content.multiImage as { images: { id: string }[] }).images.map((i) => i.id)
  if ('article' in content) {
    const thumb = (content.article as { thumbnail?: string }).thumbnail
    return thumb ? [thumb] : []
  }
  return []
}
