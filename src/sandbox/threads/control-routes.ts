import type { FastifyInstance } from 'fastify'
import type { Fault, FaultOp, ThreadsSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no tokens are ever shown):
 * - `GET /_sandbox/state`: profiles, containers, threads, every download of the Meta fetcher, and the
 *   calls that did not match Meta's Threads collection;
 * - `POST /_sandbox/faults` `{op, action, code?, subcode?, status?, message?, times?}` (action `error`, `error_after`, `drop_before` or `drop_after``: fails the next calls;
 * - `POST /_sandbox/allowance` `{userId, used}`: sets how many posts the profile published in the last 24 h.
 */
const ops: readonly FaultOp[] = ['threads', 'threads_publish', 'container_status', 'insights', 'token', 'any']

export function registerControlRoutes(app: FastifyInstance, state: ThreadsSandboxState): void {
  app.get('/_sandbox/state', async () => ({
    users: [...state.users.values()],
    containers: [...state.containers.values()].map(({ fetch: _fetch, ...rest }) => rest),
    threads: [...state.threads.values()],
    fetches: state.fetches,
    violations: state.violations,
  }))
  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as Partial<Fault>
    if (
      !body.op ||
      !ops.includes(body.op) ||
      !['error', 'error_after', 'drop_before', 'drop_after'].includes(body.action ?? '')
    )
      return reply.code(400).send({
        error: `op is one of ${ops.join(', ')}; action is error, error_after, drop_before or drop_after`,
      })
    state.failNext(body as Fault)
    return { queued: state.faults.length }
  })
  app.post('/_sandbox/allowance', async (request, reply) => {
    const body = (request.body ?? {}) as { userId?: unknown; used?: unknown }
    if (
      typeof body.userId !== 'string' ||
      !state.users.has(body.userId) ||
      typeof body.used !== 'number' ||
      body.used < 0
    )
      return reply
        .code(400)
        .send({ error: 'userId names a Threads profile of the simulator; used is a count' })
    state.publishTimes.set(
      body.userId,
      Array.from({ length: Math.floor(body.used) }, () => state.now()),
    )
    return { used: state.quotaUsage(body.userId), total: state.quotaTotal }
  })
}
