import type { FastifyInstance, FastifyReply } from 'fastify'
import type { CannotPost, TikTokApp, TikTokUser } from './model.js'
import type { TikTokSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no token or secret is ever shown):
 * - `GET /_sandbox/state`: creators, apps, publish jobs, posts, inbox drafts, TikTok's downloads, and the
 *   requests that did not match TikTok's published shape;
 * - `POST /_sandbox/users` `{username, privateAccount?, commentsOff?, duetOff?, stitchOff?,
 *   maxVideoSeconds?, cannotPost?, followers?, following?, likes?}`: makes or changes a creator;
 * - `POST /_sandbox/apps` `{clientKey, clientSecret?, audited?, verified?}`: registers an app, or changes
 *   one (the built-in app's audit among them);
 * - `POST /_sandbox/posts/:id/counts` `{views?, likes?, comments?, shares?}`: a post's figures.
 * Bad input is a 400 that changes nothing.
 */

const CANNOT_POST: readonly CannotPost[] = [
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
  'reached_active_user_cap',
]

const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ message })
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0

/** What a `/_sandbox/users` body changes, or why it is refused. */
function userPatch(body: Record<string, unknown>): Partial<TikTokUser> | string {
  const patch: Partial<TikTokUser> = {}
  for (const key of ['privateAccount', 'commentsOff', 'duetOff', 'stitchOff'] as const) {
    if (body[key] === undefined) continue
    if (typeof body[key] !== 'boolean') return `${key} must be true or false`
    patch[key] = body[key] as boolean
  }
  for (const key of ['maxVideoSeconds', 'followers', 'following', 'likes'] as const) {
    if (body[key] === undefined) continue
    if (!isCount(body[key])) return `${key} must be a whole number of at least 0`
    patch[key] = body[key] as number
  }
  if (body.cannotPost !== undefined && body.cannotPost !== null) {
    if (!CANNOT_POST.includes(body.cannotPost as CannotPost))
      return `cannotPost is one of ${CANNOT_POST.join(', ')}`
    patch.cannotPost = body.cannotPost as CannotPost
  }
  return patch
}

export function registerControlRoutes(app: FastifyInstance, state: TikTokSandboxState): void {
  app.get('/_sandbox/state', async () => ({
    users: [...state.users.values()],
    apps: [...state.apps.values()].map(({ clientSecret: _secret, ...rest }) => rest),
    jobs: [...state.jobs.values()].map(({ upload, ...job }) => ({
      ...job,
      ...(upload ? { upload: { ...upload, chunks: undefined, uploadToken: undefined } } : {}),
    })),
    posts: [...state.posts.values()],
    drafts: [...state.drafts.values()],
    pulls: state.pulls,
    violations: state.violations,
  }))

  app.post('/_sandbox/users', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    if (typeof body.username !== 'string' || !/^[A-Za-z0-9._ -]{1,40}$/.test(body.username))
      return bad(reply, 'username is 1 to 40 letters, digits, spaces, dots, dashes or underscores')
    const patch = userPatch(body)
    if (typeof patch === 'string') return bad(reply, patch)
    const user = state.ensureUser(body.username)
    Object.assign(user, patch)
    if (body.cannotPost === null) delete user.cannotPost
    return reply.code(201).send(user)
  })

  app.post('/_sandbox/apps', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    if (typeof body.clientKey !== 'string' || body.clientKey === '')
      return bad(reply, 'clientKey is required')
    const existing = state.apps.get(body.clientKey)
    if (!existing && (typeof body.clientSecret !== 'string' || body.clientSecret === ''))
      return bad(reply, 'a new app needs a clientSecret')
    if (body.audited !== undefined && typeof body.audited !== 'boolean')
      return bad(reply, 'audited must be true or false')
    if (
      body.verified !== undefined &&
      (!Array.isArray(body.verified) || !body.verified.every((v) => typeof v === 'string'))
    )
      return bad(reply, 'verified is a list of domains and URL prefixes')
    const next: TikTokApp = {
      clientKey: body.clientKey,
      clientSecret:
        typeof body.clientSecret === 'string' && body.clientSecret
          ? body.clientSecret
          : existing!.clientSecret,
      audited: typeof body.audited === 'boolean' ? body.audited : (existing?.audited ?? false),
      verified: (body.verified as string[] | undefined) ?? existing?.verified ?? [],
    }
    state.apps.set(next.clientKey, next)
    const { clientSecret: _secret, ...shown } = next
    return reply.code(201).send(shown)
  })

  app.post<{ Params: { id: string } }>('/_sandbox/posts/:id/counts', async (request, reply) => {
    const post = state.posts.get(request.params.id)
    if (!post) return reply.code(404).send({ message: 'no such post' })
    const body = (request.body ?? {}) as Record<string, unknown>
    const keys = ['views', 'likes', 'comments', 'shares'] as const
    if (keys.some((key) => body[key] !== undefined && !isCount(body[key])))
      return bad(reply, 'counts are whole numbers of at least 0')
    for (const key of keys) if (body[key] !== undefined) post.counts[key] = body[key] as number
    return post.counts
  })
}
