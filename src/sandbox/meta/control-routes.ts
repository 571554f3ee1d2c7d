import type { FastifyInstance } from 'fastify'
import type { Fault, FaultOp, MetaSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no tokens are ever shown):
 * - `GET /_sandbox/state`: Pages, Instagram accounts, Page posts, photos, videos, containers, media, every
 *   download of the Meta fetcher, and the calls that did not match Meta's spec files;
 * - `POST /_sandbox/faults` `{op, action, code?, subcode?, status?, regainMinutes?}`: fails the next call;
 * - `POST /_sandbox/allowance` `{igUserId, used}`: sets how many posts the account published in the last 24 h.
 */
const ops: readonly FaultOp[] = [
  'feed',
  'photos',
  'videos',
  'media',
  'media_publish',
  'container_status',
  'insights',
  'token',
  'any',
]

export function registerControlRoutes(app: FastifyInstance, state: MetaSandboxState): void {
  app.get('/_sandbox/state', async () => ({
    pages: [...state.pages.values()],
    igUsers: [...state.igUsers.values()],
    posts: [...state.posts.values()],
    photos: [...state.photos.values()],
    videos: [...state.videos.values()],
    containers: [...state.containers.values()].map(({ fetch: _fetch, ...rest }) => rest),
    media: [...state.media.values()],
    fetches: state.fetches,
    violations: state.violations,
  }))
  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as Partial<Fault>
    if (
      !body.op ||
      !ops.includes(body.op) ||
      !['error', 'drop_before', 'drop_after', 'hang_before', 'hang_after'].includes(body.action ?? '')
    )
      return reply.code(400).send({
        error: `op is one of ${ops.join(', ')}; action is error, drop_before, drop_after, hang_before or hang_after`,
      })
    state.failNext(body as Fault)
    return { queued: state.faults.length }
  })
  app.post('/_sandbox/allowance', async (request, reply) => {
    const body = (request.body ?? {}) as { igUserId?: unknown; used?: unknown }
    if (
      typeof body.igUserId !== 'string' ||
      !state.igUsers.has(body.igUserId) ||
      typeof body.used !== 'number' ||
      body.used < 0
    )
      return reply
        .code(400)
        .send({ error: 'igUserId names an Instagram account of the simulator; used is a count' })
    state.publishTimes.set(
      body.igUserId,
      Array.from({ length: Math.floor(body.used) }, () => state.now()),
    )
    return { used: state.quotaUsage(body.igUserId), total: state.quotaTotal }
  })
}
