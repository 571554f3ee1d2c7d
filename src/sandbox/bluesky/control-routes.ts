import type { FastifyInstance } from 'fastify'
import { type BlueskySandboxState, type Engagement, type FaultAction, handleFor } from './state.js'

/**
 * The simulator's control surface under `${prefix}/_sandbox` (no token is ever shown):
 * - `GET /_sandbox/state`: accounts (without their app passwords), records, blobs (without bytes), counts
 *   and the calls that did not match atproto.openapi.json;
 * - `POST /_sandbox/accounts` `{username, displayName?}`: creates the account `<username>.bsky.social` (or
 *   finds it) and a new app password for it, answered once, as Bluesky's settings page shows it once;
 * - `POST /_sandbox/engagement` `{uri, likeCount?, repostCount?, replyCount?, quoteCount?, bookmarkCount?}`;
 * - `POST /_sandbox/followers` `{actor, followersCount?, followsCount?}`;
 * - `POST /_sandbox/faults` `{nsid, action: error|drop_before|drop_after, status?, error?, message?}`:
 *   fails the next call of that method.
 */
const ENGAGEMENT_FIELDS = ['likeCount', 'repostCount', 'replyCount', 'quoteCount', 'bookmarkCount'] as const
const ACTIONS: readonly FaultAction[] = ['error', 'drop_before', 'drop_after']

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0

export function registerControlRoutes(app: FastifyInstance, state: BlueskySandboxState): void {
  app.get('/_sandbox/state', async () => ({
    accounts: [...state.accounts.values()].map(({ appPasswords, ...account }) => ({
      ...account,
      appPasswords: appPasswords.size,
    })),
    records: [...state.records.values()],
    blobs: [...state.blobs.values()].map(({ bytes: _bytes, ...blob }) => blob),
    engagement: Object.fromEntries(state.engagement),
    faults: state.faults,
    violations: state.violations,
  }))

  app.post('/_sandbox/accounts', async (request, reply) => {
    const body = (request.body ?? {}) as { username?: unknown; displayName?: unknown }
    if (typeof body.username !== 'string' || !handleFor(body.username))
      return reply.code(400).send({
        error: 'InvalidRequest',
        message:
          'username becomes a Bluesky handle: letters, digits and hyphens (a name with dots is used as it is)',
      })
    const { account, appPassword } = state.createAccount({
      username: body.username,
      ...(typeof body.displayName === 'string' ? { displayName: body.displayName } : {}),
    })
    return reply.code(201).send({ did: account.did, handle: account.handle, appPassword })
  })

  app.post('/_sandbox/engagement', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const current = typeof body.uri === 'string' ? state.engagement.get(body.uri) : undefined
    const counts = ENGAGEMENT_FIELDS.filter((field) => field in body)
    if (!current || !counts.every((field) => isCount(body[field])))
      return reply.code(400).send({
        error: 'InvalidRequest',
        message: `uri names a post of the simulator; ${ENGAGEMENT_FIELDS.join(', ')} are counts`,
      })
    for (const field of counts) current[field as keyof Engagement] = body[field] as number
    return current
  })

  app.post('/_sandbox/followers', async (request, reply) => {
    const body = (request.body ?? {}) as { actor?: unknown; followersCount?: unknown; followsCount?: unknown }
    const account = typeof body.actor === 'string' ? state.findAccount(body.actor) : undefined
    const given = [body.followersCount, body.followsCount].filter((value) => value !== undefined)
    if (!account || !given.every(isCount))
      return reply.code(400).send({
        error: 'InvalidRequest',
        message: 'actor names an account; followersCount and followsCount are counts',
      })
    if (isCount(body.followersCount)) account.followersCount = body.followersCount
    if (isCount(body.followsCount)) account.followsCount = body.followsCount
    return { did: account.did, followersCount: account.followersCount, followsCount: account.followsCount }
  })

  app.post('/_sandbox/faults', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const status = body.status
    if (
      typeof body.nsid !== 'string' ||
      !ACTIONS.includes(body.action as FaultAction) ||
      (status !== undefined &&
        !(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599))
    )
      return reply.code(400).send({
        error: 'InvalidRequest',
        message: `nsid names an XRPC method; action is ${ACTIONS.join(', ')}; status, when given, is 400-599`,
      })
    state.failNext({
      nsid: body.nsid,
      action: body.action as FaultAction,
      ...(typeof status === 'number' ? { status } : {}),
      ...(typeof body.error === 'string' ? { error: body.error } : {}),
      ...(typeof body.message === 'string' ? { message: body.message } : {}),
    })
    return { queued: state.faults.length }
  })
}
