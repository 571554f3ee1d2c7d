import type { FastifyInstance, FastifyReply } from 'fastify'
import { z } from 'zod'
import { saveTweet } from './posts.js'
import { type SandboxMedia, type SandboxTweet, sandboxEndpoints, type TwitterSandboxState } from './state.js'

const accountInput = z.object({
  username: z.string().regex(/^@?[A-Za-z0-9_]{1,15}$/),
  name: z.string().min(1).max(50).optional(),
  tier: z.enum(['standard', 'premium']).optional(),
  followersCount: z.number().int().min(0).optional(),
  followingCount: z.number().int().min(0).optional(),
})

const clientInput = z.object({
  clientId: z.string().min(1),
  clientSecret: z.string().min(1).optional(),
  access: z.enum(['read-write', 'read']).optional(),
})

const tokenInput = z.object({
  username: z.string().min(1),
  clientId: z.string().min(1).default('herald-sandbox'),
  scopes: z
    .array(z.string())
    .default(['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access']),
})

const failureInput = z.object({
  endpoint: z.enum(sandboxEndpoints),
  status: z.number().int().min(100).max(599).optional(),
  count: z.number().int().min(1).max(1000).default(1),
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  dropConnection: z.enum(['before', 'after']).optional(),
  afterEffect: z.boolean().optional(),
  delayMs: z.number().int().min(0).max(120_000).optional(),
})

const ownPostInput = z.object({ text: z.string().min(1), inReplyToId: z.string().optional() })

/** The client id of posts an account makes on X itself (the website or app), not through an API client. */
const ON_X = 'x.com'

/**
 * A post the account makes outside any API client (the X website or app): a busy profile, a reply a
 * person wrote by hand. Undefined when the account or the post replied to is unknown.
 */
export function postOnX(
  state: TwitterSandboxState,
  input: { username: string; text: string; inReplyToId?: string | undefined },
): SandboxTweet | undefined {
  const account = state.findAccount(input.username)
  const parent = input.inReplyToId === undefined ? undefined : state.tweets.get(input.inReplyToId)
  if (!account || (input.inReplyToId !== undefined && !parent)) return undefined
  return saveTweet(state, {
    account,
    text: input.text,
    mediaIds: [],
    clientId: ON_X,
    ...(parent ? { parent } : {}),
  })
}

const rateLimitInput = z.object({ endpoint: z.enum(sandboxEndpoints), limit: z.number().int().min(0) })
const countInput = z.object({ count: z.number().int().min(1).max(1000).default(1) })

export const tweetView = (tweet: SandboxTweet) => ({
  id: tweet.id,
  text: tweet.text,
  authorId: tweet.authorId,
  username: tweet.username,
  mediaIds: tweet.mediaIds,
  clientId: tweet.clientId,
  createdAt: new Date(tweet.createdAt).toISOString(),
  ...(tweet.inReplyToId ? { inReplyToId: tweet.inReplyToId } : {}),
  conversationId: tweet.conversationId,
})

export const mediaView = (state: TwitterSandboxState, media: SandboxMedia) => ({
  id: media.id,
  ownerId: media.ownerId,
  mediaType: media.mediaType,
  category: media.category,
  totalBytes: media.totalBytes,
  receivedBytes: state.receivedBytes(media),
  segments: media.segments.size,
  finalized: media.finalizedAt !== undefined,
  processing: state.processingInfo(media)?.state ?? 'not_finalized',
  ...(media.altText !== undefined ? { altText: media.altText } : {}),
})

function parse<T>(schema: z.ZodType<T>, body: unknown, reply: FastifyReply): T | undefined {
  const parsed = schema.safeParse(body ?? {})
  if (parsed.success) return parsed.data
  reply
    .code(400)
    .send({ error: 'invalid_request', issues: parsed.error.issues.map((issue) => issue.message) })
  return undefined
}

/**
 * The test and demo control surface under `${prefix}/_sandbox`. Not part of X's API: it lets a test
 * set up accounts and apps, take tokens without the browser, break the next calls, and read what
 * the sandbox received. Documented in README.md beside this file.
 */
export function registerControlRoutes(app: FastifyInstance, state: TwitterSandboxState) {
  app.post('/_sandbox/accounts', async (request, reply) => {
    const input = parse(accountInput, request.body, reply)
    if (input) return reply.code(201).send(state.upsertAccount(input))
  })
  app.get('/_sandbox/accounts', async () => [...state.accounts.values()])

  app.post('/_sandbox/accounts/:username/revoke', async (request, reply) => {
    const account = state.findAccount((request.params as { username: string }).username)
    if (!account) return reply.code(404).send({ error: 'not_found' })
    return { revoked: state.grants.revokeUser(account.id) }
  })
  app.post('/_sandbox/accounts/:username/expire-tokens', async (request, reply) => {
    const account = state.findAccount((request.params as { username: string }).username)
    if (!account) return reply.code(404).send({ error: 'not_found' })
    return { expired: state.grants.expireAccessTokens(account.id) }
  })

  app.post('/_sandbox/clients', async (request, reply) => {
    const input = parse(clientInput, request.body, reply)
    if (!input) return
    const { clientSecret: _secret, ...client } = state.registerClient(input)
    return reply.code(201).send(client)
  })

  app.post('/_sandbox/tokens', async (request, reply) => {
    const input = parse(tokenInput, request.body, reply)
    if (!input) return
    const account = state.findAccount(input.username) ?? state.upsertAccount({ username: input.username })
    state.client(input.clientId)
    return reply
      .code(201)
      .send({ user: account, ...state.grants.issueTokens(account.id, input.clientId, input.scopes) })
  })

  app.get('/_sandbox/tokens', async () =>
    state.grants.listTokens().map(({ token, type, userId, clientId, scopes, revoked, ...rest }) => ({
      token,
      type,
      username: state.accounts.get(userId)?.username ?? userId,
      clientId,
      scopes,
      revoked,
      ...('expiresAt' in rest ? { expiresAt: new Date(rest.expiresAt).toISOString() } : {}),
      ...('used' in rest ? { used: rest.used } : {}),
    })),
  )

  app.post('/_sandbox/failures', async (request, reply) => {
    const input = parse(failureInput, request.body, reply)
    if (!input) return
    const { endpoint, ...failure } = input
    state.faults.injectFailure(endpoint, failure)
    return reply.code(201).send({ endpoint, count: failure.count })
  })
  app.delete('/_sandbox/failures', async () => {
    state.faults.clearFailures()
    return { cleared: true }
  })
  app.post('/_sandbox/processing-failures', async (request, reply) => {
    const input = parse(countInput, request.body, reply)
    if (!input) return
    state.faults.failNextProcessing(input.count)
    return reply.code(201).send(input)
  })

  app.put('/_sandbox/rate-limits', async (request, reply) => {
    const input = parse(rateLimitInput, request.body, reply)
    if (!input) return
    state.faults.setRateLimit(input.endpoint, input.limit)
    return input
  })

  app.post('/_sandbox/accounts/:username/tweets', async (request, reply) => {
    const input = parse(ownPostInput, request.body, reply)
    if (!input) return
    const tweet = postOnX(state, { username: (request.params as { username: string }).username, ...input })
    if (!tweet) return reply.code(404).send({ error: 'not_found' })
    return reply.code(201).send(tweetView(tweet))
  })
  app.get('/_sandbox/tweets', async () => [...state.tweets.values()].map(tweetView))
  app.get('/_sandbox/media', async () => [...state.media.values()].map((media) => mediaView(state, media)))

  app.post('/_sandbox/reset', async () => {
    state.reset()
    return { reset: true }
  })
}
