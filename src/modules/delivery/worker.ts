import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { NetworkAdapter } from '../../adapters/adapter.js'
import type { BackoffPolicy } from '../../core/backoff.js'
import { type Network, networks } from '../../core/networks.js'
import { STUCK_MESSAGE } from '../../core/post-status.js'
import type { Outcome } from '../../core/target-lifecycle.js'
import { type Clock, type LeaseClock, leaseClockOf } from '../../platform/clock.js'
import type { Vault } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import { leaseNow } from '../../platform/db/lease-clock.js'
import type { ConnectionRow } from '../../platform/db/statements/connections.js'
import { LeaseExpiredError, runGuarded } from '../../platform/egress/send-guard.js'
import type { Logger } from '../../platform/logger.js'
import type { Metrics } from '../../platform/metrics.js'
import type { CredentialDeps } from '../connections/credentials.js'
import {
  type ClaimedTarget,
  claimDueTargets,
  releaseUnstarted,
  renewLeases,
  sweepExpiredLeases,
} from './leases.js'
import type { QueueSignal } from './queue-signal.js'
import { type SendResult, sendTarget } from './send.js'
import { deferProfile, settleTarget } from './settle.js'

export interface WorkerOptions {
  /** Unique per process; defaults to host, pid and a random suffix. */
  id?: string
  concurrency: number
  batch: number
  pollMs: number
  leaseMs: number
  graceMs: number
  /** Delay before an unknown outcome is looked up on the network (default 60 s). */
  unknownOutcomeCheckMs?: number
  backoff?: BackoffPolicy
  /** How often expired leases are looked for (stuck detection). */
  sweepMs?: number
}

export interface WorkerDeps {
  store: Store
  vault: Vault
  clock: Clock
  /**
   * The clock leases are written and compared with (default: the database's own, or `clock` when that is
   * a fake): workers whose machines' clocks disagree never see each other's healthy leases as run out.
   */
  leaseClock?: LeaseClock
  logger: Logger
  queue: QueueSignal
  metrics: Metrics
  adapters: Partial<Record<Network, NetworkAdapter>>
  /** See {@link CredentialDeps.currentAdapter}. */
  currentAdapter?: CredentialDeps['currentAdapter']
}

export interface Worker {
  readonly id: string
  start(): void
  /** Stops claiming, lets in-flight sends finish within the grace period, and releases unstarted claims. */
  stop(): Promise<void>
  /** One claim-and-dispatch pass (tests drive the worker with a fake clock through this). */
  tick(): Promise<number>
  /** Resolves when no send is in flight or waiting locally. */
  idle(): Promise<void>
}

const DEFAULT_NETWORK_CONCURRENCY = 4
/** How long a worker with only a few free slots waits for more sends to finish before claiming. */
const CLAIM_COALESCE_MS = 10

/**
 * The publishing worker: claims due targets with a lease, renews the lease while it sends, records each
 * outcome, and never re-sends a target whose outcome it cannot know.
 */
export function createWorker(deps: WorkerDeps, options: WorkerOptions): Worker {
  const id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
  const log = deps.logger.child({ subsystem: 'worker', workerId: id })
  const running = new Map<
    string,
    { target: ClaimedTarget; controller: AbortController; done: Promise<void> }
  >()
  const waiting = new Map<Network, ClaimedTarget[]>()
  const inFlight = new Map<Network, number>()
  const connectionOf = new Map<string, ConnectionRow>()
  /**
   * Until when this worker may trust each lease it holds: the start of its last successful claim or
   * renewal plus the lease, less a margin for clocks. Past it (or once a renewal found the lease gone) the
   * target is in `lost`, and the send stops before its next network call (src/platform/egress/send-guard.ts).
   */
  const trustedUntil = new Map<string, number>()
  const lost = new Set<string>()
  const margin = Math.min(1_000, Math.floor(options.leaseMs / 10))
  /**
   * How long an unknown outcome waits for its first lookup (the network's lists catch up with a new post):
   * after an unanswered call, and after a lease that ran out, which is an unknown outcome like any other.
   */
  const lookupDelayMs = options.unknownOutcomeCheckMs ?? 60_000
  const leaseClock = deps.leaseClock ?? leaseClockOf(deps.clock)
  /** "Now" in the statements that write or compare this worker's leases (see {@link leaseNow}). */
  const leaseTime = () => leaseNow(deps.store.dialect, leaseClock())
  let stopping = false
  /** True once start() ran; a worker driven by tick() alone (tests) never claims on its own. */
  let started = false
  let timer: NodeJS.Timeout | undefined
  let timerAt = Number.POSITIVE_INFINITY
  let heartbeat: NodeJS.Timeout | undefined
  let sweeper: NodeJS.Timeout | undefined
  let ticking: Promise<number> | undefined
  let again = false
  let unsubscribe: (() => void) | undefined
  const idleWaiters: Array<() => void> = []

  const freeSlots = () => options.concurrency - running.size - waitingCount()
  const claimThreshold = Math.max(
    1,
    Math.min(Math.floor(options.batch / 4), Math.floor(options.concurrency / 4)),
  )
  const networkLimit = (network: Network) =>
    deps.adapters[network]?.capabilities.concurrency ?? DEFAULT_NETWORK_CONCURRENCY
  const waitingCount = () => [...waiting.values()].reduce((n, list) => n + list.length, 0)
  const held = () => [...running.keys(), ...[...waiting.values()].flat().map((t) => t.id)]

  const notifyIdle = () => {
    if (running.size === 0 && waitingCount() === 0) for (const resolve of idleWaiters.splice(0)) resolve()
  }

  const dispatch = () => {
    for (const [network, list] of waiting) {
      while (
        list.length > 0 &&
        (inFlight.get(network) ?? 0) < networkLimit(network) &&
        running.size < options.concurrency
      ) {
        const target = list.shift() as ClaimedTarget
        inFlight.set(network, (inFlight.get(network) ?? 0) + 1)
        const controller = new AbortController()
        // An older attempt of this target still running here: the claim leaves such targets to other
        // workers (ClaimInput.exclude), so this is a last guard: the older attempt stops, records nothing.
        const older = running.get(target.id)
        if (older) {
          log.warn({ targetId: target.id }, 'an older attempt of this target is superseded; stopping it')
          older.controller.abort(new Error('superseded'))
        }
        const done = send(
          target,
          controller.signal,
          () => running.get(target.id)?.controller === controller,
        ).finally(() => {
          if (running.get(target.id)?.controller === controller) running.delete(target.id)
          inFlight.set(network, (inFlight.get(network) ?? 1) - 1)
          notifyIdle()
          // Claim again once a useful batch of slots is free, so a drain does not claim one target per
          // statement; a short delay otherwise lets a few more finish first.
          // A worker driven by tick() (tests) only starts the targets it already claimed.
          if (!stopping && started) schedule(freeSlots() >= claimThreshold ? 0 : CLAIM_COALESCE_MS)
          else if (!stopping) dispatch()
        })
        running.set(target.id, { target, controller, done })
      }
    }
  }

  const guard = (targetId: string) => () => {
    if (!lost.has(targetId) && deps.clock.now() < (trustedUntil.get(targetId) ?? 0) - margin) return
    lost.add(targetId)
    throw new LeaseExpiredError(
      'This worker no longer holds the lease on the target (it stalled or could not renew it); the send stops here',
    )
  }

  const send = async (target: ClaimedTarget, signal: AbortSignal, current: () => boolean) => {
    const started = deps.clock.now()
    deps.metrics.observeFireLag((started - (target.run_at ?? started)) / 1000)
    try {
      const result = await runGuarded(guard(target.id), () =>
        sendTarget(
          {
            ...deps,
            db: deps.store.db,
            now: () => deps.clock.now(),
            logger: log,
            ...(options.backoff ? { backoff: options.backoff } : {}),
            unknownOutcomeCheckMs: lookupDelayMs,
            leaseTime,
          },
          target,
          signal,
          connectionOf.get(target.id),
        ),
      )
      connectionOf.delete(target.id)
      deps.metrics.countOutcome(target.platform, result.kind)
      if (!current()) {
        log.warn({ targetId: target.id }, 'superseded attempt ended; its outcome is not recorded')
        return
      }
      if (lost.has(target.id) && result.outcome.kind !== 'published') {
        // The lease may be someone else's now (a lookup, another worker): what this attempt saw is not
        // recorded; the sweep turns the lapsed lease into a lookup (or stuck where none can decide).
        log.warn({ targetId: target.id }, 'lease lapsed during the send; its outcome is not recorded here')
        return
      }
      const now = deps.clock.now()
      if (result.throttleUntil)
        await deferProfile(deps.store.db, result.connectionId, result.throttleUntil, now)
      const kept = await settleTarget(deps.store, {
        targetId: target.id,
        postId: target.post_id,
        workerId: id,
        now,
        outcome: onLeaseClock(result.outcome, target.dueClockOffset),
        onlyTarget: target.onlyTarget,
        ...(result.attemptsDelta ? { attemptsDelta: result.attemptsDelta } : {}),
      })
      if (!kept)
        log.warn(
          { targetId: target.id },
          'lease lost before the outcome was recorded; the target was reset meanwhile',
        )
      else logOutcome(log, target, result)
      if (result.outcome.kind !== 'retry' && result.outcome.kind !== 'check')
        deps.queue.settled(target.post_id)
    } catch (error) {
      // Recording the outcome failed (database down): leave the lease to expire so the sweep takes it.
      log.error({ err: error, targetId: target.id }, 'could not record the outcome of a send')
    } finally {
      if (current()) {
        trustedUntil.delete(target.id)
        lost.delete(target.id)
      }
    }
  }

  const tick = async (): Promise<number> => {
    if (stopping) return 0
    const free = options.concurrency - running.size - waitingCount()
    // Every network is claimable: a target on a network without an adapter fails with a clear reason.
    const open = networks.filter(
      (network) => (inFlight.get(network) ?? 0) + (waiting.get(network)?.length ?? 0) < networkLimit(network),
    )
    const claimedAt = deps.clock.now()
    const claimed = await claimDueTargets(deps.store, {
      workerId: id,
      now: claimedAt,
      leaseNow: leaseClock(),
      leaseMs: options.leaseMs,
      limit: Math.min(options.batch, free),
      platforms: open,
      // A send of this worker that outlived its lease is still running: another worker may take the
      // target, this one not until that send has ended (see ClaimInput.exclude).
      exclude: [...running.keys()],
    })
    for (const target of claimed) {
      trustedUntil.set(target.id, claimedAt + options.leaseMs)
      lost.delete(target.id)
    }
    if (claimed.length > 0) {
      // One read for the whole batch instead of one per send.
      // When it fails, each send reads its own connection (and retries if that fails too): a claimed
      // target is never left untracked.
      const ids = [...new Set(claimed.map((t) => t.connection_id))]
      try {
        const rows = await deps.store.db
          .selectFrom('connections')
          .selectAll()
          .where('id', 'in', ids)
          .execute()
        const byId = new Map(rows.map((row) => [row.id, row]))
        for (const target of claimed) {
          const row = byId.get(target.connection_id)
          if (row) connectionOf.set(target.id, row)
        }
      } catch (error) {
        log.error({ err: error }, "reading the claimed targets' connections failed")
      }
    }
    for (const target of claimed) {
      const network = target.platform as Network
      const list = waiting.get(network) ?? []
      list.push(target)
      waiting.set(network, list)
    }
    dispatch()
    return claimed.length
  }

  const loop = async () => {
    timer = undefined
    if (stopping) return
    if (ticking) {
      again = true
      return
    }
    let claimed = 0
    try {
      ticking = tick()
      claimed = await ticking
    } catch (error) {
      log.error({ err: error }, 'claiming failed')
    } finally {
      ticking = undefined
    }
    // A full batch suggests more is due: claim again at once; otherwise poll.
    schedule(again || claimed >= options.batch ? 0 : options.pollMs)
    again = false
  }

  /** Runs the loop in `ms`, unless it is already due sooner. */
  const schedule = (ms: number) => {
    if (stopping) return
    const at = Date.now() + ms
    if (timer && timerAt <= at) return
    if (timer) clearTimeout(timer)
    timerAt = at
    timer = setTimeout(() => void loop(), ms)
  }

  const renew = async () => {
    const ids = held()
    if (ids.length === 0) return
    try {
      const began = deps.clock.now()
      const kept = await renewLeases(deps.store, id, ids, {
        leaseNow: leaseClock(),
        leaseMs: options.leaseMs,
      })
      // Only targets held when the renewal began: one claimed meanwhile was not in it.
      for (const targetId of ids) {
        if (kept.has(targetId)) {
          if (!lost.has(targetId)) trustedUntil.set(targetId, began + options.leaseMs)
          continue
        }
        lost.add(targetId)
        for (const [network, list] of waiting) {
          const rest = list.filter((t) => t.id !== targetId)
          if (rest.length !== list.length) waiting.set(network, rest)
        }
        const sending = running.get(targetId)
        if (!sending) continue
        // Someone else holds the target now (it was reset and may be re-sent): stop before the next
        // network call, so this worker never sends what another may be sending too.
        log.warn({ targetId }, 'lease lost; stopping this send, its outcome will not be recorded here')
        sending.controller.abort(new Error('lease lost'))
      }
    } catch (error) {
      log.error({ err: error }, 'lease renewal failed')
    }
  }

  const lookupPlatforms = networks.filter((network) => deps.adapters[network]?.findPublished)
  const sweep = async () => {
    try {
      const { stuck, lookups } = await sweepExpiredLeases(
        deps.store,
        deps.clock.now(),
        lookupPlatforms,
        {
          stuck: STUCK_MESSAGE,
          lookup: (platform) =>
            `The worker sending this went away mid-send (its lease ran out); Herald looks for the post on ${platform} before sending anything again`,
        },
        lookupDelayMs,
        leaseClock(),
      )
      for (const target of stuck)
        log.warn(
          { postId: target.post_id, targetId: target.id, network: target.platform, reason: STUCK_MESSAGE },
          'target stuck',
        )
      for (const target of lookups)
        log.warn(
          { postId: target.post_id, targetId: target.id, network: target.platform },
          'lease ran out mid-send; the target will be looked up on its network',
        )
      if (lookups.length > 0) schedule(0)
    } catch (error) {
      log.error({ err: error }, 'stuck sweep failed')
    }
  }

  return {
    id,
    tick,
    start() {
      stopping = false
      started = true
      unsubscribe = deps.queue.onWake(() => schedule(0))
      heartbeat = setInterval(() => void renew(), Math.max(50, Math.floor(options.leaseMs / 3)))
      sweeper = setInterval(
        () => void sweep(),
        options.sweepMs ?? Math.max(1_000, Math.floor(options.leaseMs / 2)),
      )
      schedule(0)
      log.info({ concurrency: options.concurrency, batch: options.batch }, 'worker started')
    },
    async stop() {
      stopping = true
      unsubscribe?.()
      if (timer) clearTimeout(timer)
      if (sweeper) clearInterval(sweeper)
      if (ticking) await ticking.catch(() => 0)
      const unstarted = [...waiting.values()].flat().map((t) => t.id)
      waiting.clear()
      try {
        await releaseUnstarted(deps.store, id, unstarted, deps.clock.now())
      } catch (error) {
        // The database is gone: the claims stay leased and surface as stuck; the worker still stops.
        log.error({ err: error }, 'releasing unstarted claims failed')
      }
      const inflight = [...running.values()]
      if (inflight.length > 0) {
        log.info({ inFlight: inflight.length, graceMs: options.graceMs }, 'waiting for in-flight sends')
        const grace = new Promise<'timeout'>((resolve) =>
          setTimeout(() => resolve('timeout'), options.graceMs).unref(),
        )
        const outcome = await Promise.race([
          Promise.all(inflight.map((entry) => entry.done)).then(() => 'done' as const),
          grace,
        ])
        if (outcome === 'timeout') {
          // Past the grace period the sends are cut off; their outcome is unknown and they stay leased,
          // so they surface as stuck instead of being sent again.
          for (const entry of running.values()) entry.controller.abort()
          await Promise.race([
            Promise.all([...running.values()].map((entry) => entry.done)),
            new Promise((r) => setTimeout(r, 2_000).unref()),
          ])
        }
      }
      if (heartbeat) clearInterval(heartbeat)
      notifyIdle()
      log.info({ released: unstarted.length }, 'worker stopped')
    },
    idle() {
      if (running.size === 0 && waitingCount() === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    },
  }
}

/** One line per settled attempt, naming the post, target and network; messages never carry a token. */
function logOutcome(log: Logger, target: ClaimedTarget, result: SendResult) {
  const fields = { postId: target.post_id, targetId: target.id, network: target.platform }
  const { outcome } = result
  switch (outcome.kind) {
    case 'published':
      log.info({ ...fields, url: outcome.url }, 'target published')
      return
    case 'failed':
      log.warn({ ...fields, kind: result.kind, reason: outcome.error }, 'target failed')
      return
    case 'retry':
      log.info(
        {
          ...fields,
          kind: result.kind,
          reason: outcome.error,
          retryAt: new Date(outcome.runAt).toISOString(),
        },
        'target retry scheduled',
      )
      return
    case 'check':
      log.info(
        {
          ...fields,
          kind: result.kind,
          reason: outcome.error,
          retryAt: new Date(outcome.runAt).toISOString(),
        },
        'target retry scheduled',
      )
      return
    case 'unknown':
      log.warn({ ...fields, kind: result.kind, reason: outcome.error }, 'target stuck')
      return
  }
}

/**
 * An outcome's due time moved from this worker's clock onto the lease clock, where the claim compares it:
 * a lookup waits its whole delay whatever this machine's clock says.
 */
function onLeaseClock(outcome: Outcome, offset: number): Outcome {
  if (offset === 0 || (outcome.kind !== 'retry' && outcome.kind !== 'check')) return outcome
  return { ...outcome, runAt: outcome.runAt + offset }
}
