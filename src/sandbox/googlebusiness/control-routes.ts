import type { FastifyInstance, FastifyReply } from 'fastify'
import type { ControlFault } from './model.js'
import type { GoogleBusinessSandbox } from './state.js'

/**
 * `/_sandbox/...`, the simulator's control surface for tests and the demo (not Google's API; no token is
 * ever shown):
 *
 * | method | path                   | does                                                                    |
 * |--------|------------------------|-------------------------------------------------------------------------|
 * | GET    | /_sandbox/state        | users, accounts, locations, every local post with its state and photo   |
 * | POST   | /_sandbox/businesses   | `{name, email?}`: the business (its Google user, account, two locations) |
 * | POST   | /_sandbox/access       | `{granted}`: false makes every API call meet a quota of 0               |
 * | POST   | /_sandbox/moderation   | `{rejectPhrase}`: a summary holding it is REJECTED (null: none)          |
 * | POST   | /_sandbox/faults       | `{op, action, status?, times?}`; DELETE clears them                     |
 * | POST   | /_sandbox/revoke       | `{email}`: the user removed the app (every token refused)               |
 */

const OPS = new Set([
  'localPosts.create',
  'localPosts.list',
  'localPosts.get',
  'accounts.list',
  'locations.list',
  'locations.get',
  'locations.fetchMultiDailyMetricsTimeSeries',
  'token',
])
const ACTIONS = new Set(['error', 'error_after', 'drop_before', 'drop_after'])

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
const invalid = (reply: FastifyReply, message: string) => reply.code(400).send({ message })

export function registerControlRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox): void {
  app.get('/_sandbox/state', async () => sandbox.snapshot())

  app.post('/_sandbox/businesses', async (request, reply) => {
    const body = record(request.body)
    const name = typeof body.name === 'string' ? body.name.trim() : ''
    if (!name || name.length > 100) return invalid(reply, 'name: the business name, 1 to 100 characters')
    const email = typeof body.email === 'string' && body.email.includes('@') ? body.email : undefined
    const made = sandbox.ensureBusiness(name, email)
    return reply.code(201).send({ email: made.user.email, account: made.account, locations: made.locations })
  })

  app.post('/_sandbox/access', async (request, reply) => {
    const granted = record(request.body).granted
    if (typeof granted !== 'boolean') return invalid(reply, 'granted: true or false')
    sandbox.accessGranted = granted
    return { granted }
  })

  app.post('/_sandbox/moderation', async (request, reply) => {
    const phrase = record(request.body).rejectPhrase
    if (phrase !== null && (typeof phrase !== 'string' || phrase === ''))
      return invalid(reply, 'rejectPhrase: the words that get a post rejected, or null')
    sandbox.rejectPhrase = phrase ?? undefined
    return { rejectPhrase: phrase }
  })

  app.post('/_sandbox/faults', async (request, reply) => {
    const body = record(request.body)
    if (typeof body.op !== 'string' || !OPS.has(body.op))
      return invalid(reply, `op: one of ${[...OPS].join(', ')}`)
    if (typeof body.action !== 'string' || !ACTIONS.has(body.action))
      return invalid(reply, `action: one of ${[...ACTIONS].join(', ')}`)
    const times = typeof body.times === 'number' && body.times > 0 ? Math.min(100, Math.floor(body.times)) : 1
    const fault: ControlFault = {
      op: body.op,
      action: body.action as ControlFault['action'],
      ...(typeof body.status === 'number' ? { status: body.status } : {}),
    }
    for (let i = 0; i < times; i++) sandbox.controlFaults.push({ ...fault })
    return reply.code(201).send({ queued: sandbox.controlFaults.length })
  })

  app.delete('/_sandbox/faults', async () => {
    sandbox.controlFaults.length = 0
    return { queued: 0 }
  })

  app.post('/_sandbox/revoke', async (request, reply) => {
    const email = record(request.body).email
    if (typeof email !== 'string') return invalid(reply, 'email: the Google user')
    return { revoked: sandbox.oauth.revoke({ email }) }
  })
}
