import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import { admitCall, queryOf } from './api-routes.js'
import { badRequest, sendRpcError } from './google-errors.js'
import { SERVICES, type SimLocalPost, type SimLocation } from './model.js'
import type { GoogleBusinessSandbox } from './state.js'
import { checkLocalPost } from './validate.js'

/**
 * Local posts on the My Business API v4, the only API that takes them:
 * - `POST /v4/accounts/{a}/locations/{l}/localPosts` creates one (checked as Google does; its photo is
 *   fetched from `sourceUrl` and must be a JPEG or PNG) and answers it, PROCESSING;
 * - `GET` on the same path lists the location's posts, newest first, `pageSize` (default 20, at most 100)
 *   and `pageToken`; a post inside the listing lag is not listed yet, and a short page the fault injector
 *   asks for keeps its token to the rest;
 * - `GET .../localPosts/{p}` reads one (404 when there is none).
 */

type Params = { account: string; location: string }

/** The location named in the path, when the caller manages it; otherwise the answer is sent. */
function locationFor(
  sandbox: GoogleBusinessSandbox,
  reply: FastifyReply,
  email: string,
  params: Params,
): SimLocation | undefined {
  const location = sandbox.locations.get(`locations/${params.location}`)
  if (!location || location.account !== `accounts/${params.account}`) {
    sendRpcError(reply, 'NOT_FOUND', 'Requested entity was not found.')
    return undefined
  }
  if (sandbox.accounts.get(location.account)?.owner !== email) {
    sendRpcError(reply, 'PERMISSION_DENIED', 'The caller does not have permission')
    return undefined
  }
  return location
}

export function registerPostRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox): void {
  const path = `/${SERVICES.posts}/v4/accounts/:account/locations/:location/localPosts`
  app.post<{ Params: Params }>(path, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.posts)
    if (!email) return reply
    const location = locationFor(sandbox, reply, email, request.params)
    if (!location) return reply
    const checked = checkLocalPost(request.body)
    if (!checked.ok) return sendRpcError(reply, 'INVALID_ARGUMENT', checked.message, checked.details)
    let photo: SimLocalPost['photo']
    if (checked.photoUrl) {
      const fetched = await sandbox.fetchPhoto(checked.photoUrl)
      if (!fetched.ok)
        return sendRpcError(reply, 'INVALID_ARGUMENT', fetched.message, [
          badRequest('media.source_url', fetched.message),
        ])
      photo = fetched.photo
    }
    return sandbox.view(sandbox.addPost(location, checked.post, photo))
  })

  app.get<{ Params: Params }>(path, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.posts)
    if (!email) return reply
    const location = locationFor(sandbox, reply, email, request.params)
    if (!location) return reply
    const page = listPage(sandbox, request, location)
    if (typeof page === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', page)
    return page
  })

  app.get<{ Params: Params & { post: string } }>(`${path}/:post`, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.posts)
    if (!email) return reply
    const location = locationFor(sandbox, reply, email, request.params)
    if (!location) return reply
    const post = sandbox.posts.get(`${location.account}/${location.name}/localPosts/${request.params.post}`)
    if (!post) return sendRpcError(reply, 'NOT_FOUND', 'Requested entity was not found.')
    return sandbox.view(post)
  })
}

/**
 * One page of the location's posts. Tokens name the last post served (`before:<seq>`), so posts made
 * between two pages never shift one onto the next page twice or out of the list.
 */
function listPage(sandbox: GoogleBusinessSandbox, request: FastifyRequest, location: SimLocation) {
  const query = queryOf(request)
  const asked = query.get('pageSize')
  const size = asked === null ? 20 : Number(asked)
  if (!Number.isInteger(size) || size < 1 || size > 100) return 'page_size must be between 1 and 100.'
  const token = query.get('pageToken')
  let before = Number.POSITIVE_INFINITY
  if (token) {
    const decoded = /^before:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'))
    if (!decoded) return 'The page token is not valid.'
    before = Number(decoded[1])
  }
  const rest = sandbox.listed(location.name).filter((post) => post.seq < before)
  const served = Math.min(size, servedRows(request) ?? size)
  const page = rest.slice(0, served)
  const boundary = page.at(-1)?.seq ?? before
  const more = rest.length > page.length
  return {
    localPosts: page.map((post) => sandbox.view(post)),
    ...(more
      ? {
          nextPageToken: Buffer.from(
            `before:${Number.isFinite(boundary) ? boundary : Number.MAX_SAFE_INTEGER}`,
          ).toString('base64url'),
        }
      : {}),
  }
}
