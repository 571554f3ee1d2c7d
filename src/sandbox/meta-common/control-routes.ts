import type { FastifyInstance } from 'fastify'

/** A Meta simulator's queue of failures for the next calls. */
export interface FaultQueue<F> {
  readonly faults: readonly unknown[]
  failNext(fault: F): void
}

/** A Meta simulator's record of the posts each account published. */
export interface PublishAllowance {
  readonly publishTimes: Map<string, number[]>
  now(): number
  quotaUsage(userId: string): number
  readonly quotaTotal: number
}

const sentence = (words: readonly string[]) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`

/** `POST /_sandbox/faults` `{op, action, ...}`: queues failures of the next calls. */
export function registerFaultsRoute<F extends { op: string; action: string }>(
  app: FastifyInstance,
  state: FaultQueue<F>,
  allowed: { ops: readonly F['op'][]; actions: readonly F['action'][] },
): void {
  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as Partial<F>
    if (!body.op || !allowed.ops.includes(body.op) || !allowed.actions.includes(body.action ?? ''))
      return reply.code(400).send({
        error: `op is one of ${allowed.ops.join(', ')}; action is ${sentence(allowed.actions)}`,
      })
    state.failNext(body as F)
    return { queued: state.faults.length }
  })
}

/**
 * `POST /_sandbox/allowance` `{<idKey>, used}`: sets how many posts the account published in the last
 * 24 hours.
 */
export function registerAllowanceRoute(
  app: FastifyInstance,
  state: PublishAllowance,
  account: { idKey: string; exists: (id: string) => boolean; what: string },
): void {
  app.post('/_sandbox/allowance', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const id = body[account.idKey]
    if (typeof id !== 'string' || !account.exists(id) || typeof body.used !== 'number' || body.used < 0)
      return reply
        .code(400)
        .send({ error: `${account.idKey} names ${account.what} of the simulator; used is a count` })
    state.publishTimes.set(
      id,
      Array.from({ length: Math.floor(body.used) }, () => state.now()),
    )
    return { used: state.quotaUsage(id), total: state.quotaTotal }
  })
}
