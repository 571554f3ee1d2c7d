import { type RawBuilder, sql } from 'kysely'
import {
  type Credentials,
  type FailureKind,
  type LookupAnswer,
  type LookupRequest,
  type NetworkAdapter,
  PublishFailure,
  type PublishResult,
} from '../../adapters/adapter.js'
import { mediaItems, readAltTexts } from '../../core/alt-text.js'
import {
  type BackoffPolicy,
  LOOKUP_WINDOW_MS,
  lookupDelay,
  MAX_ATTEMPTS,
  nextAttemptAt,
} from '../../core/backoff.js'
import { MediaError } from '../../core/media-port.js'
import type { Network } from '../../core/networks.js'
import { STUCK_REASONS } from '../../core/post-status.js'
import type { SendTrail } from '../../core/target-history.js'
import type { Outcome } from '../../core/target-lifecycle.js'
import {
  type ConnectionRow,
  findConnection,
  markNeedsReconnect,
} from '../../platform/db/statements/connections.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { releaseQuota, reserveQuota } from '../../platform/db/statements/quota.js'
import type { Logger } from '../../platform/logger.js'
import { type CredentialDeps, usableCredentials } from '../connections/credentials.js'
import { chainItems, chainWriter, deliverChain } from './items.js'
import { progressSaver, readProgress } from './progress.js'

export interface SendDeps extends CredentialDeps {
  adapters: Partial<Record<Network, NetworkAdapter>>
  logger: Logger
  backoff?: BackoffPolicy
  /** Delay before an unanswered publishing call is looked up on the network. */
  unknownOutcomeCheckMs?: number
  /**
   * "Now" as the statements that check this worker's lease compare it: the database's clock in production
   * (see `leaseNow`); by default the bound `now()`.
   */
  leaseTime?: () => RawBuilder<number>
}

export interface SendResult {
  outcome: Outcome
  /** The failure kind, for metrics ('ok' on success). */
  kind: FailureKind | 'ok'
  /** A rate-limit reset to apply to the profile's other targets. */
  throttleUntil?: number
  connectionId: string
  /** Added to the target's send attempts when the outcome is recorded (see SettleInput). */
  attemptsDelta?: number
  /** What the send saw on its way (its lookup's answer, whether it called the network), for its history. */
  trail?: SendTrail
}

/**
 * Sends one claimed target through its network's adapter and turns what happened into an {@link Outcome},
 * with the trail its history records (src/core/target-history.ts). The trail is only told, never asked: no
 * decision of the send reads it.
 */
export async function sendTarget(
  deps: SendDeps,
  target: TargetRow,
  signal: AbortSignal,
  /** The target's connection when the caller has it already (read in bulk at claim time). */
  known?: ConnectionRow,
): Promise<SendResult> {
  const trail: SendTrail = { sent: false }
  const result = await send(deps, target, signal, known, trail)
  return { ...result, trail }
}

async function send(
  deps: SendDeps,
  target: TargetRow,
  signal: AbortSignal,
  known: ConnectionRow | undefined,
  trail: SendTrail,
): Promise<SendResult> {
  const adapter = deps.adapters[target.platform as Network]
  if (!adapter)
    return failed(
      target,
      'invalid_content',
      `Publishing to ${target.platform} is not available in this Herald build`,
    )
  const live = liveWithNothingLeft(deps, target)
  if (live) return live
  const connection = await usableConnection(deps, adapter, target, known, trail)
  if ('outcome' in connection) return connection
  const attempt = prepareAttempt(deps, adapter, target, connection, signal, trail)
  const start = await lookFirst(deps, adapter, target, attempt, signal)
  if ('outcome' in start) return start
  return publishAndDeliver(deps, adapter, target, attempt, start, signal)
}

const failed = (target: TargetRow, kind: FailureKind, error: string): SendResult => ({
  outcome: { kind: 'failed', error },
  kind,
  connectionId: target.connection_id,
})

/**
 * A post whose remote id is recorded is on the network: it is never published again, whatever became of
 * its thread or first comment. With none of them left to send, it is published as it stands.
 */
function liveWithNothingLeft(deps: SendDeps, target: TargetRow): SendResult | undefined {
  if (target.remote_id === null || chainItems(target).some((item) => item.status !== 'published')) return
  deps.logger.info({ targetId: target.id }, 'post live already with nothing left to send')
  return {
    outcome: {
      kind: 'published',
      remoteId: target.remote_id,
      url: target.url ?? '',
      uploadError: target.upload_error || undefined,
    },
    kind: 'ok',
    connectionId: target.connection_id,
  }
}

/**
 * The target's connection, or what to record when it cannot be used: a target whose outcome is unknown is
 * never failed or retried as a send before its lookup answers, so there it is a lookup that could not ask.
 */
async function usableConnection(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  known: ConnectionRow | undefined,
  trail: SendTrail,
): Promise<ConnectionRow | SendResult> {
  const connectionId = target.connection_id
  const mustLookUp = target.unknown_outcome_at !== null && adapter.findPublished !== undefined
  const notLookedUp = (reason: string): SendResult => ({
    ...lookupFailed(deps, target, new PublishFailure('transient', reason), trail),
    connectionId,
  })
  let connection: ConnectionRow | undefined
  try {
    connection = known ?? (await findConnection(deps.db, connectionId))
  } catch (error) {
    deps.logger.error({ err: error, targetId: target.id }, 'could not read the target connection')
    if (mustLookUp) return notLookedUp('Herald could not read the profile connection')
    return notSent(deps, target, connectionId, 'Herald could not read the profile connection')
  }
  if (!connection || connection.status === 'removed') {
    const reason = `The ${target.platform} profile @${target.username} is no longer connected`
    return mustLookUp ? notLookedUp(reason) : failed(target, 'auth_expired', reason)
  }
  if (connection.status === 'needs_reconnect') {
    const reason = `The ${target.platform} profile @${target.username} needs to be reconnected: ${connection.last_error ?? 'authorisation lost'}`
    return mustLookUp ? notLookedUp(reason) : failed(target, 'auth_expired', reason)
  }
  return connection
}

/** What one attempt sends, and with what: the request, the chain of items, the quota it reserves. */
interface Attempt {
  connection: ConnectionRow
  request: Omit<LookupRequest, 'credentials' | 'since'> & {
    mediaUrls: string[]
    saveProgress: (progress: Record<string, string>) => Promise<void>
  }
  profile: LookupRequest['profile']
  items: ReturnType<typeof chainItems>
  /** The target has a thread or first comment still to deliver after its post. */
  chained: boolean
  writer: ReturnType<typeof chainWriter>
  quota: NonNullable<NetworkAdapter['capabilities']['quota']> | undefined
  slot: { key: string; day: string; units: number } | undefined
  trail: SendTrail
}

function prepareAttempt(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  connection: ConnectionRow,
  signal: AbortSignal,
  trail: SendTrail,
): Attempt {
  const leaseTime = deps.leaseTime ?? (() => sql<number>`${deps.now()}`)
  const items = chainItems(target)
  const chained = items.some((item) => item.status !== 'published')
  // An app-wide quota (YouTube's daily units) is reserved before the network is called, and refused
  // there when the day's quota would be exceeded; a failure that did not spend it gives the units back.
  // A post already live (its thread or first comment still going out) spends no more publishing quota.
  const headLive = target.remote_id !== null && chained
  const quota = headLive ? undefined : adapter.capabilities.quota
  const slot = quota
    ? { key: quota.key, day: quota.dayOf(deps.now()), units: quota.unitsPerPublish }
    : undefined
  const profile = {
    profileId: connection.profile_id,
    username: connection.username,
    name: connection.name,
    isOrganization: connection.is_organization === 1,
  }
  const mediaUrls = JSON.parse(target.media_urls) as string[]
  const request = {
    targetId: target.id,
    profile,
    content: target.content,
    mediaUrls,
    media: mediaItems(mediaUrls, readAltTexts(target.media_alt_texts)),
    ...(target.youtube ? { youtube: JSON.parse(target.youtube) } : {}),
    ...(target.googlebusiness ? { googlebusiness: JSON.parse(target.googlebusiness) } : {}),
    ...(target.tiktok ? { tiktok: JSON.parse(target.tiktok) } : {}),
    ...(target.pinterest ? { pinterest: JSON.parse(target.pinterest) } : {}),
    ...(target.mastodon ? { mastodon: JSON.parse(target.mastodon) } : {}),
    ...(readProgress(target.progress) ? { progress: readProgress(target.progress) } : {}),
    saveProgress: progressSaver(deps.db, target, deps.now, leaseTime),
    signal,
  }
  return {
    connection,
    request,
    profile,
    items,
    chained,
    writer: chainWriter(deps.db, target, leaseTime),
    quota,
    slot,
    trail,
  }
}

/** Where the send starts: the live post (or the one a lookup found), and whether this send is an attempt. */
interface Start {
  head: PublishResult | undefined
  /** A lookup found the post: it is recorded before its items go out. */
  found: boolean
  /** The claim counted this send as an attempt (false: it was claimed for a lookup that answered absent). */
  counted: boolean
  refreshed: boolean
}

/**
 * While an earlier attempt's outcome is unknown, nothing is sent until a lookup has answered, with
 * certainty, that the post is not there. A lookup that cannot ask keeps the mark and is tried again on its
 * own schedule (`lookupFailed`); an ambiguous answer leaves the target stuck for a person. A target with a
 * thread or first comment delivers its items after its post; the post may be live from an earlier attempt
 * (its remote id is on the target): it is never published again, and what is unknown then is an item's
 * outcome, looked up under its parent while the chain is delivered.
 */
async function lookFirst(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  attempt: Attempt,
  signal: AbortSignal,
): Promise<Start | SendResult> {
  const connectionId = target.connection_id
  const head: PublishResult | undefined =
    target.remote_id && attempt.chained ? { remoteId: target.remote_id, url: target.url ?? '' } : undefined
  const start: Start = { head, found: false, counted: true, refreshed: false }
  if (head || target.unknown_outcome_at === null || !adapter.findPublished) return start
  const { trail } = attempt
  const answer = await lookUp(deps, adapter, target, attempt, signal)
  if ('outcome' in answer) return { ...answer, connectionId }
  trail.lookup =
    answer.kind === 'ambiguous' ? { result: 'ambiguous', detail: answer.reason } : { result: answer.kind }
  if (answer.kind === 'found') {
    deps.logger.info({ targetId: target.id }, 'unanswered attempt found on the network')
    if (!attempt.chained)
      return {
        outcome: { kind: 'published', remoteId: answer.result.remoteId, url: answer.result.url },
        kind: 'ok',
        connectionId,
      }
    return { ...start, head: answer.result, found: true }
  }
  if (answer.kind === 'ambiguous')
    return {
      outcome: { kind: 'unknown', error: answer.reason, reason: STUCK_REASONS.ambiguous },
      kind: 'unknown_outcome',
      connectionId,
    }
  deps.logger.info({ targetId: target.id }, 'unanswered attempt not found on the network; sending again')
  // The claim counted a lookup, not a send: this send is an attempt of its own.
  return { ...start, counted: false, refreshed: answer.refreshed }
}

/**
 * Publishes the post (unless it is live) and delivers its items, refreshing the credentials once on a 401,
 * and turns what the network answered into the outcome to record.
 */
async function publishAndDeliver(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  attempt: Attempt,
  start: Start,
  signal: AbortSignal,
): Promise<SendResult> {
  const { connection, quota, slot } = attempt
  let { head, found, refreshed } = start
  const sent = { ...target, attempts: target.attempts + (start.counted ? 0 : 1) }
  const withAttempt = (result: SendResult): SendResult => ({
    ...result,
    attemptsDelta: (result.attemptsDelta ?? 0) + (start.counted ? 0 : 1),
  })
  if (!head && quota && slot && !(await reserveQuota(deps.db, { ...slot, limit: quota.dailyLimit }))) {
    return withAttempt(await classify(deps, sent, connection.id, quota.exceeded(deps.now()), signal))
  }
  for (;;) {
    let credentials: Credentials
    try {
      credentials = await usableCredentials(deps, adapter, connection, { force: refreshed })
    } catch (error) {
      // Nothing reached the publishing call: the quota it reserved is given back.
      if (quota && slot && !head) await releaseQuota(deps.db, slot)
      if (error instanceof PublishFailure)
        return withAttempt(await classify(deps, sent, connection.id, error, signal))
      // The vault or the database failed before any network call: nothing was sent, so retry.
      deps.logger.error({ err: error, targetId: target.id }, 'could not read the profile credentials')
      return withAttempt(notSent(deps, sent, connection.id, 'Herald could not read the profile credentials'))
    }
    try {
      if (!head || found) {
        if (!head) {
          attempt.trail.sent = true
          head = await adapter.publish({ ...attempt.request, credentials })
        }
        // The post is live: recorded before any item is sent, so no later attempt publishes it again.
        if (attempt.chained) await attempt.writer.saveHead(head, deps.now())
        found = false
      }
      if (attempt.chained) {
        const end = await deliverItems(deps, adapter, target, attempt, credentials, head, signal)
        if (end) return withAttempt(end)
      }
      return withAttempt(publishedAs(target, head))
    } catch (error) {
      if (error instanceof PublishFailure && error.kind === 'auth_expired' && !refreshed && !signal.aborted) {
        // One refresh on a 401, then the connection is marked for reconnecting.
        refreshed = true
        continue
      }
      if (quota && slot && !head && error instanceof PublishFailure && !quota.spent(error))
        await releaseQuota(deps.db, slot)
      return withAttempt(await afterFailure(deps, adapter, sent, connection.id, head, error, signal))
    }
  }
}

/** Delivers the target's items under its live post; answers how the chain ended unless it ended well. */
async function deliverItems(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  attempt: Attempt,
  credentials: Credentials,
  head: PublishResult,
  signal: AbortSignal,
): Promise<SendResult | undefined> {
  const connectionId = target.connection_id
  const end = await deliverChain({
    adapter,
    items: attempt.items,
    target,
    profile: attempt.profile,
    credentials,
    head,
    writer: attempt.writer,
    now: deps.now,
    signal,
    onSend: () => {
      attempt.trail.sent = true
    },
    ...(attempt.request.mastodon ? { mastodon: attempt.request.mastodon } : {}),
  })
  if (end.kind === 'refused')
    return { outcome: { kind: 'failed', error: end.error }, kind: 'invalid_content', connectionId }
  if (end.kind === 'unknown')
    return {
      outcome: {
        kind: 'unknown',
        error: end.error,
        reason: adapter.findItem ? STUCK_REASONS.ambiguous : STUCK_REASONS.no_lookup,
      },
      kind: 'unknown_outcome',
      connectionId,
    }
  if (end.kind === 'failure') throw end.failure
  return undefined
}

const publishedAs = (target: TargetRow, head: PublishResult): SendResult => ({
  outcome: {
    kind: 'published',
    remoteId: head.remoteId,
    url: head.url,
    uploadError: head.uploadError ?? (target.upload_error || undefined),
  },
  kind: 'ok',
  connectionId: target.connection_id,
})

/**
 * What a failed publishing call leaves: classified, then an unknown outcome goes to a lookup where the
 * network can be asked (once the post is live, what is unknown is an item's outcome, looked up under its
 * parent), and a rate limit waits and looks. Once the post is live a 429 always leaves an item in doubt (the
 * chain keeps its start whether the limit answered its call or its lookup), so the lookup waits as long as
 * any other: a network's short Retry-After (YouTube's 30 s) comes before its listing shows what it made.
 */
async function afterFailure(
  deps: SendDeps,
  adapter: NetworkAdapter,
  sent: TargetRow,
  connectionId: string,
  head: PublishResult | undefined,
  error: unknown,
  signal: AbortSignal,
): Promise<SendResult> {
  const result = await classify(deps, sent, connectionId, error, signal)
  const canLook = head ? Boolean(adapter.findItem) : Boolean(adapter.findPublished)
  if (result.outcome.kind === 'unknown') return lookLater(deps, sent, canLook, result)
  if (canLook && error instanceof PublishFailure && error.kind === 'rate_limited')
    return lookAfterRateLimit(deps, sent, error, result, head ? 'the reply or comment' : 'the post')
  return result
}

/**
 * Asks the network whether an unanswered attempt went out. Answers the lookup's conclusion (with whether
 * the credentials were refreshed on the way), or, when the network could not be asked, the outcome to
 * record: the next lookup on the lookup schedule, or stuck once lookups have failed for a whole day.
 */
async function lookUp(
  deps: SendDeps,
  adapter: NetworkAdapter,
  target: TargetRow,
  { connection, request, trail }: Attempt,
  signal: AbortSignal,
): Promise<(LookupAnswer & { refreshed: boolean }) | Omit<SendResult, 'connectionId'>> {
  const find = adapter.findPublished as NonNullable<NetworkAdapter['findPublished']>
  let refreshed = false
  for (;;) {
    try {
      const credentials = await usableCredentials(deps, adapter, connection, { force: refreshed })
      const excludeRemoteIds = await remoteIdsHeldBesides(deps, target)
      const answer = await find({
        ...request,
        credentials,
        since: target.attempt_started_at ?? (target.unknown_outcome_at as number),
        ...(excludeRemoteIds.length > 0 ? { excludeRemoteIds } : {}),
      })
      return { ...answer, refreshed }
    } catch (error) {
      if (error instanceof PublishFailure && error.kind === 'auth_expired' && !refreshed && !signal.aborted) {
        refreshed = true
        continue
      }
      if (error instanceof PublishFailure && error.kind === 'auth_expired')
        await markNeedsReconnect(deps.db, connection.id, error.message, deps.now())
      return lookupFailed(deps, target, error, trail)
    }
  }
}

/** Remote ids other targets of the same connection hold: a lookup never takes one of them for this post. */
async function remoteIdsHeldBesides(deps: SendDeps, target: TargetRow): Promise<string[]> {
  const rows = await deps.db
    .selectFrom('targets')
    .select('remote_id')
    .where('connection_id', '=', target.connection_id)
    .where('id', '!=', target.id)
    .where('remote_id', 'is not', null)
    .where('published_at', '>=', target.attempt_started_at ?? (target.unknown_outcome_at as number))
    .execute()
  return rows.map((row) => row.remote_id as string)
}

/**
 * A lookup that could not ask the network (an error, a timeout, a 429, the profile needing reconnection):
 * the unknown-outcome mark stays and the lookup is tried again after its own backoff (and never before a
 * rate limit's reset); after a day of that the target is stuck for a person.
 */
function lookupFailed(
  deps: SendDeps,
  target: TargetRow,
  error: unknown,
  trail: SendTrail,
): Omit<SendResult, 'connectionId'> {
  const now = deps.now()
  const since = target.unknown_outcome_at ?? now
  const reason = error instanceof Error ? error.message : String(error)
  trail.lookup = { result: 'unreachable', detail: reason }
  const kind: FailureKind = error instanceof PublishFailure ? error.kind : 'transient'
  if (now - since >= LOOKUP_WINDOW_MS)
    return {
      outcome: {
        kind: 'unknown',
        reason: STUCK_REASONS.lookups_exhausted,
        error: `Herald could not ask ${target.platform} whether the post went out for ${Math.round((now - since) / 3_600_000)} hours (last: ${reason}); the outcome is unknown. Check the profile: if the post is there, nothing is needed; if not, reset_stuck_post and publish_post_now to send it again.`,
      },
      kind,
    }
  const failed = Math.max(0, (target.lookups ?? 1) - 1)
  let runAt = now + lookupDelay(failed, deps.unknownOutcomeCheckMs ?? 60_000)
  if (error instanceof PublishFailure && error.options.resetAt !== undefined)
    runAt = Math.max(runAt, error.options.resetAt)
  return {
    outcome: {
      kind: 'check',
      error: `Herald could not look for the post on ${target.platform} (${reason}); it looks again at ${new Date(runAt).toISOString()} and sends nothing until it knows`,
      runAt,
      unknownSince: since,
      lookupFailed: true,
    },
    kind,
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
    return {
      outcome: { kind: 'unknown', error: message, reason: STUCK_REASONS.no_lookup },
      kind: 'unknown_outcome',
      connectionId,
    }
  }
  switch (error.kind) {
    case 'auth_expired':
      await markNeedsReconnect(deps.db, connectionId, error.message, now)
      return { outcome: { kind: 'failed', error: error.message }, kind: error.kind, connectionId }
    case 'invalid_content':
      return { outcome: { kind: 'failed', error: error.message }, kind: error.kind, connectionId }
    case 'unknown_outcome':
      return {
        outcome: { kind: 'unknown', error: error.message, reason: STUCK_REASONS.no_lookup },
        kind: error.kind,
        connectionId,
      }
    case 'rate_limited':
    case 'transient': {
      const resetAt = error.options.resetAt
      if (error.kind === 'rate_limited' && resetAt !== undefined && resetAt > now) {
        // A rate limit or an allowance with a reset time is a wait, not an attempt: back at that time,
        // with the claim's attempt given back.
        return {
          outcome: {
            kind: 'retry',
            error: `${error.message}; waiting until ${new Date(resetAt).toISOString()} as ${target.platform} asks`,
            runAt: resetAt,
          },
          kind: error.kind,
          connectionId,
          throttleUntil: resetAt,
          attemptsDelta: -1,
        }
      }
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
 * when the post is there, or sends again when it is not. Lookups have their own budget (see
 * {@link lookupDelay}), so this holds whatever send attempts are left; where the network cannot be asked
 * the target is stuck (`no_lookup`) for a person.
 */
function lookLater(deps: SendDeps, target: TargetRow, canLook: boolean, result: SendResult): SendResult {
  if (!canLook || result.outcome.kind !== 'unknown') return result
  const now = deps.now()
  const runAt = now + (deps.unknownOutcomeCheckMs ?? 60_000)
  return {
    ...result,
    outcome: {
      kind: 'check',
      error: `${result.outcome.error}; Herald will look for the post on ${target.platform} at ${new Date(runAt).toISOString()} before sending again`,
      runAt,
      unknownSince: now,
      fresh: true,
    },
  }
}

/**
 * A 429 may answer the publishing call after the network took the post (a limit counted on the way out),
 * and the adapter cannot tell which of its calls the limit answered. Where the network can be asked, the
 * send waits for the reset the network gave, then looks before sending again, as for any unknown outcome;
 * the wait keeps its throttle and gives its attempt back as classify decided.
 */
function lookAfterRateLimit(
  deps: SendDeps,
  target: TargetRow,
  error: PublishFailure,
  result: SendResult,
  what: string,
): SendResult {
  const now = deps.now()
  const runAt = Math.max(now + (deps.unknownOutcomeCheckMs ?? 60_000), error.options.resetAt ?? 0)
  return {
    ...result,
    outcome: {
      kind: 'check',
      error: `${error.message}; ${target.platform} may have taken ${what} before refusing, so Herald will look for it at ${new Date(runAt).toISOString()} before sending again`,
      runAt,
      unknownSince: now,
      fresh: true,
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
