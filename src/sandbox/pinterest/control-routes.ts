import type { FastifyInstance } from 'fastify'
import type { Fault, FaultInjector, SimulatedCall } from '../fault-injector.js'
import type { PinterestSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no token is ever shown):
 * - `GET /state`: accounts, boards, pins (what Pinterest holds), video uploads (with how many files each
 *   received), the image downloads, the calls that broke the contract, token calls by grant type, settings;
 * - `POST /settings` `{trial?, writesPerMinute?, readsPerMinute?}`;
 * - `POST /boards` `{username, name}`: a new board on the account (the person made one on Pinterest);
 * - `POST /revoke` `{username}`: every token of the account refused (the app was removed on pinterest.com);
 * - `POST /faults` `{op, status?, after?, answer?}`: the next call of `op` (`pins/create`, `media/create`,
 *   `media/upload`, `media/get`, `boards/list_pins`, `oauth/token`, ...) fails: with `status` (default 500),
 *   or `answer` `reset` or `hang`; before its effect, or after it with `after: true`.
 */

export interface QueuedFaults extends FaultInjector {
  push(op: string, fault: Fault): number
}

/** The `/faults` queue, asked before the injector the simulator was given. */
export function queuedFaults(): QueuedFaults {
  const queue: Array<{ op: string; fault: Fault }> = []
  return {
    push(op, fault) {
      queue.push({ op, fault })
      return queue.length
    },
    decide(call: SimulatedCall) {
      const index = queue.findIndex((entry) => entry.op === call.operation || entry.op === 'any')
      return index === -1 ? undefined : queue.splice(index, 1)[0]?.fault
    },
  }
}

export function registerControlRoutes(
  app: FastifyInstance,
  state: PinterestSandboxState,
  faults: QueuedFaults,
): void {
  app.get('/_sandbox/state', async () => ({
    accounts: [...state.accounts.values()],
    boards: [...state.boards.values()],
    pins: [...state.pins.values()],
    media: [...state.media.values()],
    fetches: state.fetches,
    violations: state.violations,
    tokenCalls: state.tokenCalls,
    settings: state.settings,
  }))
  app.post('/_sandbox/settings', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    if (typeof body.trial === 'boolean') state.settings.trial = body.trial
    for (const key of ['writesPerMinute', 'readsPerMinute'] as const)
      if (typeof body[key] === 'number' && (body[key] as number) >= 0)
        state.settings[key] = body[key] as number
    return state.settings
  })
  app.post('/_sandbox/boards', async (request, reply) => {
    const body = (request.body ?? {}) as { username?: unknown; name?: unknown }
    if (typeof body.username !== 'string' || typeof body.name !== 'string' || body.name.trim() === '')
      return reply.code(400).send({ code: 1, message: 'Give username and name' })
    return reply.code(201).send(state.addBoard(state.ensureAccount(body.username), body.name.trim()))
  })
  app.post('/_sandbox/revoke', async (request, reply) => {
    const body = (request.body ?? {}) as { username?: unknown }
    const account = [...state.accounts.values()].find(
      (a) => typeof body.username === 'string' && a.username.toLowerCase() === body.username.toLowerCase(),
    )
    if (!account) return reply.code(404).send({ code: 404, message: 'No such account' })
    state.revoke(account.id)
    return { revoked: account.username }
  })
  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as { op?: unknown; status?: unknown; after?: unknown; answer?: unknown }
    if (typeof body.op !== 'string' || body.op === '')
      return reply.code(400).send({ code: 1, message: 'Give op (an operation id such as pins/create)' })
    const answer: Fault['answer'] =
      body.answer === 'reset' || body.answer === 'hang'
        ? { kind: body.answer }
        : { kind: 'status', status: typeof body.status === 'number' ? body.status : 500 }
    return { queued: faults.push(body.op, { timing: body.after === true ? 'after' : 'before', answer }) }
  })
}
