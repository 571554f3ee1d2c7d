import type { FastifyReply, FastifyRequest } from 'fastify'
import { servedRows } from '../fault-hooks.js'
import type { PinImage, PinterestSandboxState, SandboxPin, TokenGrant } from './state.js'

/**
 * What the simulator's routes share: Pinterest's error body (`{code, message}` [spec: Error]), the bearer
 * token's grant with its scopes, the per-minute allowances, paging by `bookmark`, and a pin as the API
 * answers it.
 */

export const pinterestError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).send({ code, message })

/** The codes the simulator answers with; Pinterest documents no catalogue (reference B.9). */
export const CODES = {
  invalid: 1,
  authentication: 2,
  authorization: 3,
  rateLimit: 8,
  trialAccess: 29,
} as const

/** The token's grant when it is live and has every scope, or undefined after answering 401 or 403. */
export function authorize(
  state: PinterestSandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: readonly string[],
): TokenGrant | undefined {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1]
  const grant = token ? state.tokens.get(token) : undefined
  if (!grant || grant.revoked || grant.expiresAt <= state.now()) {
    pinterestError(reply, 401, CODES.authentication, 'Authentication failed.')
    return undefined
  }
  const missing = scopes.filter((scope) => !grant.scopes.includes(scope))
  if (missing.length > 0) {
    pinterestError(
      reply,
      403,
      CODES.authorization,
      `Authorization failed. Missing scope: ${missing.join(', ')}`,
    )
    return undefined
  }
  return grant
}

/** Counts the call against the account's allowance; answers 429 and false when it is used up. */
export function withinAllowance(
  state: PinterestSandboxState,
  reply: FastifyReply,
  grant: TokenGrant,
  category: 'org_write' | 'org_read',
): boolean {
  if (state.allow(grant.accountId, category)) return true
  pinterestError(reply, 429, CODES.rateLimit, 'You have exceeded your rate limit. Try again later.')
  return false
}

export function queryOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of new URL(request.url, 'http://sandbox.invalid').searchParams) out[key] = value
  return out
}

/**
 * One page of `rows` (newest first) after the bookmark: an opaque cursor naming the last row served, so a
 * row made meanwhile does not shift the pages. A short page the fault injector asked for keeps its cursor.
 */
export function pageOf<Row extends { id: string }>(
  request: FastifyRequest,
  rows: readonly Row[],
): { items: Row[]; bookmark: string | null } {
  const query = queryOf(request)
  const size = Math.min(Number(query.page_size ?? 25), servedRows(request) ?? Number.POSITIVE_INFINITY)
  // The cursor is `after:<id of the last row served>`, or `after:` for a short first page that served none.
  const after = query.bookmark ? Buffer.from(query.bookmark, 'base64url').toString('utf8').slice(6) : ''
  const start = after ? rows.findIndex((row) => row.id === after) + 1 : 0
  const items = rows.slice(start, start + size)
  const last = items.at(-1)?.id ?? after
  const more = start + items.length < rows.length
  return { items, bookmark: more ? Buffer.from(`after:${last}`).toString('base64url') : null }
}

/** Where the simulator is reached from outside: its public address, or the one the request came in on. */
export function publicBase(state: PinterestSandboxState, request: FastifyRequest): string {
  if (state.options.publicUrl) return state.options.publicUrl.replace(/\/+$/, '')
  return `${request.protocol}://${request.headers.host}${state.prefix}`
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`

function imageSizes(base: string, image: PinImage | undefined) {
  if (!image?.key) return {}
  const url = `${base}/web/_media/${encodeURIComponent(image.key)}`
  const width = image.width ?? 600
  const height = image.height ?? 600
  return {
    '150x150': { width: 150, height: 150, url },
    '600x': { width: 600, height: Math.round((600 * height) / width), url },
    '1200x': { width: 1200, height: Math.round((1200 * height) / width), url },
  }
}

function mediaOf(base: string, pin: SandboxPin) {
  if (pin.mediaType === 'video')
    return {
      media_type: 'video',
      images: imageSizes(base, pin.cover),
      ...(pin.cover?.key
        ? { cover_image_url: `${base}/web/_media/${encodeURIComponent(pin.cover.key)}` }
        : {}),
      video_url: null,
      duration: null,
      width: null,
      height: null,
    }
  if (pin.mediaType === 'multiple_images')
    return {
      media_type: 'multiple_images',
      items: pin.images.map((image) => ({
        item_type: 'image',
        images: imageSizes(base, image),
        title: null,
        description: null,
        link: null,
      })),
    }
  return { media_type: 'image', images: imageSizes(base, pin.images[0]) }
}

/** A pin as the API answers it [spec: Pin]. */
export function pinJson(state: PinterestSandboxState, base: string, pin: SandboxPin) {
  const account = state.accounts.get(pin.accountId)
  return {
    id: pin.id,
    created_at: iso(pin.createdAt),
    link: pin.link,
    title: pin.title,
    description: pin.description,
    alt_text: pin.altText,
    dominant_color: '#6E7874',
    board_id: pin.boardId,
    board_section_id: null,
    board_owner: { username: account?.username ?? '' },
    parent_pin_id: null,
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    creative_type:
      pin.mediaType === 'video' ? 'VIDEO' : pin.mediaType === 'multiple_images' ? 'CAROUSEL' : 'REGULAR',
    media: mediaOf(base, pin),
    pin_metrics: null,
  }
}
