import type { FastifyInstance, FastifyReply } from 'fastify'
import { type Fault, type SandboxAccount, SCOPE } from './model.js'
import type { YouTubeSandbox } from './state.js'

/**
 * `/_sandbox/...`: a JSON control surface for tests and the demo (not part of Google's API).
 *
 * | method | path                                      | does                                                        |
 * |--------|-------------------------------------------|-------------------------------------------------------------|
 * | GET    | /_sandbox/state                           | day, quota, limits, accounts, upload count                  |
 * | POST   | /_sandbox/reset                           | back to the two default accounts, nothing else              |
 * | GET    | /_sandbox/accounts                        | accounts with their channels                                |
 * | POST   | /_sandbox/accounts                        | `{email, name?, channel?: {...} \| null}` creates or replaces |
 * | POST   | /_sandbox/tokens                          | `{email, clientId?, scopes?}` tokens without the consent page |
 * | POST   | /_sandbox/revoke                          | `{email}` or `{token}`: revokes (user removed the app)      |
 * | GET    | /_sandbox/quota                           | `{day, used, limit, uploadUnits}`                           |
 * | PUT    | /_sandbox/quota                           | `{used, day?}` sets units used (today by default)           |
 * | PATCH  | /_sandbox/channels/:id                    | channel title, handle, statistics                           |
 * | PUT    | /_sandbox/channels/:id/uploads-today      | `{count}` the channel's uploads today                       |
 * | GET    | /_sandbox/uploads                         | every completed upload with its metadata and byte count     |
 * | PATCH  | /_sandbox/videos/:id/statistics           | `{viewCount?, likeCount?, commentCount?, favoriteCount?}`   |
 * | POST   | /_sandbox/faults                          | a {@link Fault} to inject; DELETE clears them               |
 * | GET    | /_sandbox/requests                        | the request log and token calls by grant type               |
 */

const body = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}

const invalid = (reply: FastifyReply, message: string) =>
  reply.code(400).send({ error: { code: 400, message } })
const notFound = (reply: FastifyReply, what: string) =>
  reply.code(404).send({ error: { code: 404, message: `${what} not found` } })

function accountView(account: SandboxAccount) {
  return { email: account.email, name: account.name, channel: account.channel }
}

const FAULT_OPS = new Set([
  'token',
  'channels.list',
  'videos.list',
  'videos.insert',
  'upload',
  'upload.status',
])
const FAULT_ACTIONS = new Set(['error', 'drop', 'drop_after_complete'])

export function registerControlRoutes(app: FastifyInstance, sandbox: YouTubeSandbox): void {
  app.get('/_sandbox/state', async () => ({
    day: sandbox.today(),
    quota: { used: sandbox.quotaUsed(), limit: sandbox.dailyQuota, uploadUnits: sandbox.uploadUnits },
    uploadLimitPerDay: sandbox.uploadLimitPerDay,
    accounts: [...sandbox.accounts.values()].map(accountView),
    uploads: sandbox.uploads.length,
    comments: [...sandbox.comments.values()],
  }))

  app.post('/_sandbox/reset', async () => {
    sandbox.reset()
    return { ok: true }
  })

  app.get('/_sandbox/accounts', async () => [...sandbox.accounts.values()].map(accountView))

  app.post('/_sandbox/accounts', async (request, reply) => {
    const input = body(request.body)
    if (typeof input.email !== 'string' || !input.email.includes('@'))
      return invalid(reply, 'email is required')
    const channel =
      input.channel === null
        ? null
        : (body(input.channel) as Parameters<YouTubeSandbox['createAccount']>[0]['channel'])
    const account = sandbox.createAccount({
      email: input.email,
      ...(typeof input.name === 'string' ? { name: input.name } : {}),
      channel,
    })
    return reply.code(201).send(accountView(account))
  })

  app.post('/_sandbox/tokens', async (request, reply) => {
    const input = body(request.body)
    const email = typeof input.email === 'string' ? input.email.toLowerCase() : ''
    if (!sandbox.accounts.has(email)) return notFound(reply, 'account')
    const scopes = Array.isArray(input.scopes) ? input.scopes.map(String) : [SCOPE.upload, SCOPE.readonly]
    const clientId =
      typeof input.clientId === 'string' ? input.clientId : (sandbox.options.client?.id ?? 'sandbox-client')
    return sandbox.issueTokens(email, clientId, scopes)
  })

  app.post('/_sandbox/revoke', async (request, reply) => {
    const input = body(request.body)
    const email = typeof input.email === 'string' ? input.email : undefined
    const token = typeof input.token === 'string' ? input.token : undefined
    if (!email && !token) return invalid(reply, 'email or token is required')
    return { revoked: sandbox.revoke({ ...(email ? { email } : {}), ...(token ? { token } : {}) }) }
  })

  const quotaView = (day = sandbox.today()) => ({
    day,
    used: sandbox.quotaUsed(day),
    limit: sandbox.dailyQuota,
    uploadUnits: sandbox.uploadUnits,
  })

  app.get('/_sandbox/quota', async () => quotaView())

  app.put('/_sandbox/quota', async (request, reply) => {
    const input = body(request.body)
    const used = Number(input.used)
    if (!Number.isInteger(used) || used < 0) return invalid(reply, 'used must be a non-negative integer')
    const day =
      typeof input.day === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(input.day) ? input.day : sandbox.today()
    sandbox.setQuotaUsed(used, day)
    return quotaView(day)
  })

  app.patch('/_sandbox/channels/:id', async (request, reply) => {
    const { id } = request.params as { id: string }
    const input = body(request.body)
    const patch: Record<string, unknown> = {}
    for (const key of ['title', 'handle', 'description', 'thumbnailUrl'] as const)
      if (typeof input[key] === 'string') patch[key] = input[key]
    for (const key of ['subscriberCount', 'viewCount', 'baseVideoCount'] as const)
      if (Number.isInteger(input[key])) patch[key] = input[key]
    if (typeof input.hiddenSubscriberCount === 'boolean')
      patch.hiddenSubscriberCount = input.hiddenSubscriberCount
    const channel = sandbox.updateChannel(id, patch)
    return channel ?? notFound(reply, 'channel')
  })

  app.put('/_sandbox/channels/:id/uploads-today', async (request, reply) => {
    const { id } = request.params as { id: string }
    const count = Number(body(request.body).count)
    if (!sandbox.channelById(id)) return notFound(reply, 'channel')
    if (!Number.isInteger(count) || count < 0) return invalid(reply, 'count must be a non-negative integer')
    sandbox.setUploadsToday(id, count)
    return { channelId: id, day: sandbox.today(), count }
  })

  app.get('/_sandbox/uploads', async () => sandbox.uploads)

  app.patch('/_sandbox/videos/:id/statistics', async (request, reply) => {
    const { id } = request.params as { id: string }
    const input = body(request.body)
    const statistics: Record<string, number> = {}
    for (const key of ['viewCount', 'likeCount', 'commentCount', 'favoriteCount'] as const)
      if (Number.isInteger(input[key])) statistics[key] = input[key] as number
    const video = sandbox.setVideoStatistics(id, statistics)
    return video ? { id, statistics: video.statistics } : notFound(reply, 'video')
  })

  app.post('/_sandbox/faults', async (request, reply) => {
    const input = body(request.body)
    if (!FAULT_OPS.has(String(input.op)))
      return invalid(reply, `op must be one of ${[...FAULT_OPS].join(', ')}`)
    if (!FAULT_ACTIONS.has(String(input.action)))
      return invalid(reply, `action must be one of ${[...FAULT_ACTIONS].join(', ')}`)
    const fault: Fault = {
      op: input.op as Fault['op'],
      action: input.action as Fault['action'],
      ...(typeof input.reason === 'string' ? { reason: input.reason } : {}),
      ...(Number.isInteger(input.status) ? { status: input.status as number } : {}),
      ...(Number.isInteger(input.afterBytes) ? { afterBytes: input.afterBytes as number } : {}),
      ...(Number.isInteger(input.times) ? { times: input.times as number } : {}),
    }
    sandbox.addFault(fault)
    return reply.code(201).send({ faults: sandbox.faults })
  })

  app.delete('/_sandbox/faults', async () => {
    sandbox.faults = []
    return { faults: [] }
  })

  app.get('/_sandbox/requests', async () => ({
    tokenCalls: sandbox.tokenCalls(),
    requests: sandbox.requests,
  }))
}
