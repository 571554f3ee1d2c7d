import type { FastifyInstance } from 'fastify'
import { registerAllowanceRoute, registerFaultsRoute } from '../meta-common/control-routes.js'
import type { FaultOp, ThreadsSandboxState } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no tokens are ever shown):
 * - `GET /_sandbox/state`: profiles, containers, threads, every download of the Meta fetcher, and the
 *   calls that did not match Meta's Threads collection;
 * - `POST /_sandbox/faults` `{op, action, code?, subcode?, status?, message?, times?}` (action `error`,
 *   `error_after`, `drop_before` or `drop_after`): fails the next calls;
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
  registerFaultsRoute(app, state, {
    ops,
    actions: ['error', 'error_after', 'drop_before', 'drop_after'],
  })
  registerAllowanceRoute(app, state, {
    idKey: 'userId',
    exists: (id) => state.users.has(id),
    what: 'a Threads profile',
  })
}
