import { type CredentialDeps, usableCredentials } from '../connect/credentials.js'
import { type BackoffPolicy, MAX_ATTEMPTS, nextAttemptAt } from '../domain/backoff.js'
import type { Network } from '../domain/networks.js'
import type { Logger } from '../logger.js'
import { MediaError } from '../media/port.js'
import {
  type Credentials,
  type FailureKind,
  type NetworkAdapter,
  PublishFailure,
  type PublishResult,
} from '../networks/adapter.js'
import { type ConnectionRow, findConnection, markNeedsReconnect } from '../store/connections.js'
import type { TargetRow } from '../store/posts.js'
import { releaseQuota, reserveQuota } from '../store/quota.js'
import { chainItems, chainWriter, deliverChain } from './items.js'
import { progressSaver, readProgress } from './progress.js'
import type { Outcome } from './settle.js'

export interface SendDeps extends CredentialDeps {
  adapters: Partial<Record<Network, NetworkAdapter>>
  logger: Logger
  backoff?: BackoffPolicy
  /** Delay before an unanswered publishing call is looked up on the network. */
  unknownOutcomeCheckMs?: number
}

export interface SendResult {
  outcome: Outcome
  /** The failure kind, for metrics ('ok' on success). */
  kind: FailureKind | 'ok'
  /** A rate-limit reset to apply to the profile's other targets. */
  throttleUntil?: number
  connectionId: string
}

/** Sends one claimed target through its network's adapter and turns what happened into an {@link Outcome}. */
export async function sendTarget(
  deps: SendDeps,
  target: TargetRow,
  signal: AbortSignal,
  /** The target's connection when the caller has it already (read in bulk at claim time). */
  known?: ConnectionRow,
): Promise<SendResult> {
  const connectionId = target.connection_id
  const fail = (kind: FailureKind, error: string): SendResult => ({
    outcome: { kind: 'failed', error },
    kind,
    connectionId,
  })
  const adapter = deps.adapters[target.platform as Network]
  if (!adapter)
    return fail('invalid_content', `Publishing to ${target.platform} is not available in this Herald build`)
  let connection: ConnectionRow | undefined
  try {
    connection = known ?? (await findConnection(deps.db, connectionId))
  } catch (error) {
    deps.logger.error({ err: error, targetId: target.id }, 'could not read the target connection')
    return notSent(deps, target, connectionId, 'Herald could not read the profile connection')
  }
  if (!connection || connection.status === 'removed')
    return fail('auth_expired', `The ${target.platform} profile @${target.username} is no longer connected`)
  if (connection.status === 'needs_reconnect') {
    return fail(
      'auth_expired',
      `The ${target.platform} profile @${target.username} needs to be reconnected: ${connection.last_error ?? 'authorisation lost'}`,
    )
  }
  // An app-wide quota (YouTube's daily units) is reserved before the network is called, and refused
  // there when the day's quota would be exceeded; a failure that did not spend it gives the units back.
  // A post already live (its thread or first comment still going out) spends no more publishing quota.
  const headLive = target.remote_id !== null && chainItems(target).some((item) => item.status !== 'published')
  const quota = headLive ? undefined : adapter.capabilities.quota
  const slot = quota
    ? { key: quota.key, day: quota.dayOf(deps.now()), units: quota.unitsPerPublish }
    : undefined
  if (quota && slot && !(await reserveQuota(deps.db, { ...slot, limit: quota.dailyLimit }))) {
    return classify(deps, target, connectionId, quota.exceeded(deps.now()), signal)
  }
  const profile = {
    profileId: connection.profile_id,
    username: connection.username,
    name: connection.name,
    isOrganization: connection.is_organization === 1,
  }
  const request = {
    targetId: target.id,
    profile,
    content: target.content,
    mediaUrls: JSON.parse(target.media_urls) as string[],
    ...(target.youtube ? { youtube: JSON.parse(target.youtube) } : {}),
    ...(readProgress(target.progress) ? { progress: readProgress(target.progress) } : {}),
    saveProgress: progressSaver(deps.db, target, deps.now),
    signal,
  }

  let refreshed = false
  let lookedUp = false
  // Issue 26: a target with a thread or first comment delivers its items after its post. The post may be
  // live from an earlier attempt (its remote id is on the target): it is never published again.
  const items = chainItems(target)
  const chained = items.some((item) => item.status !== 'published')
  const writer = chainWriter(deps.db, target)
  let head: PublishResult | undefined =
    target.remote_id && chained ? { remoteId: target.remote_id, url: target.url ?? '' } : undefined
  for (;;) {
    let credentials: Credentials
    try {
      credentials = await usableCredentials(deps, adapter, connection, { force: refreshed })
    } catch (error) {
      // Nothing reached the publishing call: the quota it reserved is given back.
      if (quota && slot && !head) await releaseQuota(deps.db, slot)
      if (error instanceof PublishFailure) return classify(deps, target, connection.id, error, signal)
      // The vault or the database failed before any network call: nothing was sent, so retry.
      deps.logger.error({ err: error, targetId: target.id }, 'could not read the profile credentials')
      return notSent(deps, target, connectionId, 'Herald could not read the profile credentials')
    }
    try {
      if (!head) {
        if (target.unknown_outcome_at !== null && adapter.findPublished && !lookedUp) {
          // An earlier attempt's publishing call went unanswered: ask the network before sending again.
          const answer = await adapter.findPublished({
            ...request,
            credentials,
            since: target.attempt_started_at ?? target.unknown_outcome_at,
          })
          lookedUp = true
          if (answer.kind === 'found') {
            deps.logger.info({ targetId: target.id }, 'unanswered attempt found on the network')
            head = answer.result
          } else if (answer.kind === 'ambiguous')
            return {
              outcome: { kind: 'unknown', error: answer.reason },
              kind: 'unknown_outcome',
              connectionId,
            }
          else
            deps.logger.info(
              { targetId: target.id },
              'unanswered attempt not found on the network; sending again',
            )
        }
        if (!head) head = await adapter.publish({ ...request, credentials })
        // The post is live: recorded before any item is sent, so no later attempt publishes it again.
        if (chained) await writer.saveHead(head, deps.now())
      }
      if (chained) {
        const end = await deliverChain({
          adapter,
          items,
          target,
          profile,
          credentials,
          head,
          writer,
          now: deps.now,
          signal,
        })
        if (end.kind === 'refused')
          return { outcome: { kind: 'failed', error: end.error }, kind: 'invalid_content', connectionId }
        if (end.kind === 'unknown')
          return { outcome: { kind: 'unknown', error: end.error }, kind: 'unknown_outcome', connectionId }
        if (end.kind === 'failure') throw end.failure
      }
      return {
        outcome: {
          kind: 'published',
          remoteId: head.remoteId,
          url: head.url,
          uploadError: head.uploadError ?? (target.upload_error || undefined),
        },
        kind: 'ok',
        connectionId,
      }
    } catch (error) {
      if (error instanceof PublishFailure && error.kind === 'auth_expired' && !refreshed && !signal.aborted) {
        // One refresh on a 401, then the connection is marked for reconnecting.
        refreshed = true
        continue
      }
      if (quota && slot && !head && error instanceof PublishFailure && !quota.spent(error))
        await releaseQuota(deps.db, slot)
      const result = await classify(deps, target, connection.id, error, signal)
      // Once the post is live, what is unknown is an item's outcome: it is looked up under its parent.
      const canLook = head ? Boolean(adapter.findItem) : Boolean(adapter.findPublished)
      return result.outcome.kind === 'unknown' && canLook ? lookLater(deps, target, result) : result
    }
  }
}

async function classify(
  deps: SendDeps,
  target: TargetRow,
  connectionId: string,
  error: unknown,
  signal: AbortSignal,
): Promise<SendResult> {
  const now = deps.now()
  if (error instanceof MediaError)
    return { outcome: { kind: 'failed', error: error.message }, kind: 'invalid_content', connectionId }
  if (!(error instanceof PublishFailure)) {
    // An unexpected throw may have happened after the network accepted the post: never guess, never resend.
    deps.logger.error({ err: error, targetId: target.id }, 'adapter threw an unexpected error')
    const message = signal.aborted
      ? 'The send was interrupted at shutdown; the outcome is unknown'
      : `Unexpected error while sending: ${(error as Error)?.message ?? error}`
    return { outcome: { kind: 'unknown', error: message }, kind: 'unknown_outcome', connectionId }
  }
  switch (error.kind) {
    case 'auth_expired':
      await markNeedsReconnect(deps.db, connectionId, error.message, now)
      return { outcome: { kind: 'failed', error: error.message }, kind: error.kind, connectionId }
    case 'invalid_content':
      return { outcome: { kind: 'failed', error: error.message }, kind: error.kind, connectionId }
    case 'unknown_outcome':
      return { outcome: { kind: 'unknown', error: error.message }, kind: error.kind, connectionId }
    case 'rate_limited':
    case 'transient': {
      if (target.attempts >= MAX_ATTEMPTS) {
        return {
          outcome: { kind: 'failed', error: `${error.message} (gave up after ${target.attempts} attempts)` },
          kind: error.kind,
          connectionId,
        }
      }
      const runAt = nextAttemptAt({
        now,
        attempt: target.attempts,
        resetAt: error.options.resetAt,
        ...(deps.backoff ? { policy: deps.backoff } : {}),
      })
      return {
        outcome: {
          kind: 'retry',
          error: `${error.message}; retrying at ${new Date(runAt).toISOString()}`,
          runAt,
        },
        kind: error.kind,
        connectionId,
        ...(error.kind === 'rate_limited' && error.options.resetAt
          ? { throttleUntil: error.options.resetAt }
          : {}),
      }
    }
  }
}

/**
 * An unknown outcome on a network Herald can ask: instead of leaving the target stuck, queue a lookup
 * after a safe delay (the network needs a moment to show a new post). The lookup publishes the target
 * when the post is there, or sends again when it is not. Once the attempts are used up, or while the
 * worker is stopping, the target is left stuck for a person, as before.
 */
function lookLater(deps: SendDeps, target: TargetRow, result: SendResult): SendResult {
  if (target.attempts >= MAX_ATTEMPTS || result.outcome.kind !== 'unknown') return result
  const now = deps.now()
  const runAt = now + (deps.unknownOutcomeCheckMs ?? 60_000)
  return {
    ...result,
    outcome: {
      kind: 'check',
      error: `${result.outcome.error}; Herald will look for the post on ${target.platform} at ${new Date(runAt).toISOString()} before sending again`,
      runAt,
      unknownSince: target.unknown_outcome_at ?? now,
    },
  }
}

/** A failure on Herald's side before anything reached the network: retried with backoff, never stuck. */
function notSent(deps: SendDeps, target: TargetRow, connectionId: string, reason: string): SendResult {
  const message = `${reason}; nothing was sent`
  if (target.attempts >= MAX_ATTEMPTS)
    return {
      outcome: { kind: 'failed', error: `${message} (gave up after ${target.attempts} attempts)` },
      kind: 'transient',
      connectionId,
    }
  const runAt = nextAttemptAt({
    now: deps.now(),
    attempt: target.attempts,
    ...(deps.backoff ? { policy: deps.backoff } : {}),
  })
  return {
    outcome: { kind: 'retry', error: `${message}; retrying at ${new Date(runAt).toISOString()}`, runAt },
    kind: 'transient',
    connectionId,
  }
}
