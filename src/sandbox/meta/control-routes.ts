import type { FastifyInstance } from 'fastify'
import { registerAllowanceRoute, registerFaultsRoute } from '../meta-common/control-routes.js'
import type { FaultOp, MetaSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no tokens are ever shown):
 * - `GET /_sandbox/state`: Pages, Instagram accounts, Page posts, photos, videos, containers, media, every
 *   download of the Meta fetcher, and the calls that did not match Meta's spec files;
 * - `POST /_sandbox/faults` `{op, action, code?, subcode?, status?, regainMinutes?}`: fails the next call;
 * - `POST /_sandbox/allowance` `{igUserId, used}`: sets how many posts the account published in the last 24 h;
 * - `POST /_sandbox/apps` `{appId, appSecret}`: registers a Facebook app, whose secret is then checked.
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
    comments: [...state.comments.values()],
    fetches: state.fetches,
    violations: state.violations,
  }))
  app.post('/_sandbox/apps', async (request, reply) => {
    const body = (request.body ?? {}) as { appId?: unknown; appSecret?: unknown }
    if (
      typeof body.appId !== 'string' ||
      !body.appId ||
      typeof body.appSecret !== 'string' ||
      !body.appSecret
    )
      return reply.code(400).send({ error: 'appId and appSecret are required' })
    state.apps.set(body.appId, body.appSecret)
    return reply.code(201).send({ appId: body.appId })
  })
  registerFaultsRoute(app, state, {
    ops,
    actions: ['error', 'drop_before', 'drop_after', 'hang_before', 'hang_after'],
  })
  registerAllowanceRoute(app, state, {
    idKey: 'igUserId',
    exists: (id) => state.igUsers.has(id),
    what: 'an Instagram account',
  })
}
