import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { RawBuilder } from 'kysely'
import type { NetworkAdapter } from '../../adapters/adapter.js'
import type { BackoffPolicy } from '../../core/backoff.js'
import { type Network, networks } from '../../core/networks.js'
import { STUCK_MESSAGE } from '../../core/post-status.js'
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
  const settings = settingsOf(deps, options)
  const state = createWorkerState(deps, settings.id)
  const { id, log } = state
  let heartbeat: NodeJS.Timeout | undefined
  let sweeper: NodeJS.Timeout | undefined
  let unsubscribe: (() => void) | undefined

  const send = createSend(deps, settings, state)
  const dispatch = createDispatcher(deps, settings, state, send, (ms) => claims.schedule(ms))
  const tick = createClaimPass(deps, settings, state, dispatch)
  const claims = createClaimLoop(tick, settings, state)
  const renew = createLeaseHeartbeat(deps, settings, state)
  const sweep = createSweep(deps, settings, state, (ms) => claims.schedule(ms))

  return {
    id,
    tick,
    start() {
      state.stopping = false
      state.started = true
      unsubscribe = deps.queue.onWake(() => claims.schedule(0))
      heartbeat = setInterval(() => void renew(), Math.max(50, Math.floor(options.leaseMs / 3)))
      sweeper = setInterval(
        () => void sweep(),
        options.sweepMs ?? Math.max(1_000, Math.floor(options.leaseMs / 2)),
      )
      claims.schedule(0)
      log.info({ concurrency: options.concurrency, batch: options.batch }, 'worker started')
    },
    async stop() {
      state.stopping = true
      unsubscribe?.()
      claims.cancel()
      if (sweeper) clearInterval(sweeper)
      const ticking = claims.ticking()
      if (ticking) await ticking.catch(() => 0)
      const unstarted = [...state.waiting.values()].flat().map((t) => t.id)
      state.waiting.clear()
      try {
        await releaseUnstarted(deps.store, id, unstarted, deps.clock.now())
      } catch (error) {
        // The database is gone: the claims stay leased and surface as stuck; the worker still stops.
        log.error({ err: error }, 'releasing unstarted claims failed')
      }
      const inflight = [...state.running.values()]
      if (inflight.length > 0) await waitForInFlight(state, inflight, options.graceMs)
      if (heartbeat) clearInterval(heartbeat)
      notifyIdle(state)
      log.info({ released: unstarted.length }, 'worker stopped')
    },
    idle() {
      if (state.running.size === 0 && waitingCount(state) === 0) return Promise.resolve()
      return new Promise((resolve) => state.idleWaiters.push(resolve))
    },
  }
}

/** What the worker's parts read from its options, with the values derived from them once. */
interface WorkerSettings {
  id: string
  options: WorkerOptions
  /** Taken off each lease this worker trusts, for clocks (see {@link WorkerState.trustedUntil}). */
  margin: number
  /**
   * How long an unknown outcome waits for its first lookup (the network's lists catch up with a new post):
   * after an unanswered call, and after a lease that ran out, which is an unknown outcome like any other.
   */
  lookupDelayMs: number
  leaseClock: LeaseClock
  /** "Now" in the statements that write or compare this worker's leases (see {@link leaseNow}). */
  leaseTime: () => RawBuilder<number>
  /** How many free slots make a claim worth making at once after a send ends. */
  claimThreshold: number
}

function settingsOf(deps: WorkerDeps, options: WorkerOptions): WorkerSettings {
  const leaseClock = deps.leaseClock ?? leaseClockOf(deps.clock)
  return {
    id: options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    options,
    margin: Math.min(1_000, Math.floor(options.leaseMs / 10)),
    lookupDelayMs: options.unknownOutcomeCheckMs ?? 60_000,
    leaseClock,
    leaseTime: () => leaseNow(deps.store.dialect, leaseClock()),
    claimThreshold: Math.max(1, Math.min(Math.floor(options.batch / 4), Math.floor(options.concurrency / 4))),
  }
}

/** A send under way here: its target, the controller that stops it, and its end. */
interface RunningSend {
  target: ClaimedTarget
  controller: AbortController
  done: Promise<void>
}

/** The targets one worker holds, sending or waiting for a slot, and what it knows of their leases. */
interface WorkerState {
  readonly id: string
  readonly log: Logger
  readonly running: Map<string, RunningSend>
  /** Claimed here, waiting for a slot on their network. */
  readonly waiting: Map<Network, ClaimedTarget[]>
  readonly inFlight: Map<Network, number>
  /** Each claimed target's connection, read for the whole claim at once. */
  readonly connectionOf: Map<string, ConnectionRow>
  /**
   * Until when this worker may trust each lease it holds: the start of its last successful claim or
   * renewal plus the lease, less a margin for clocks. Past it (or once a renewal found the lease gone) the
   * target is in `lost`, and the send stops before its next network call (src/platform/egress/send-guard.ts).
   */
  readonly trustedUntil: Map<string, number>
  readonly lost: Set<string>
  readonly idleWaiters: Array<() => void>
  stopping: boolean
  /** True once start() ran; a worker driven by tick() alone (tests) never claims on its own. */
  started: boolean
}

function createWorkerState(deps: WorkerDeps, id: string): WorkerState {
  return {
    id,
    log: deps.logger.child({ subsystem: 'worker', workerId: id }),
    running: new Map(),
    waiting: new Map(),
    inFlight: new Map(),
    connectionOf: new Map(),
    trustedUntil: new Map(),
    lost: new Set(),
    idleWaiters: [],
    stopping: false,
    started: false,
  }
}

const networkLimit = (deps: WorkerDeps, network: Network) =>
  deps.adapters[network]?.capabilities.concurrency ?? DEFAULT_NETWORK_CONCURRENCY
const waitingCount = (state: WorkerState) =>
  [...state.waiting.values()].reduce((n, list) => n + list.length, 0)
const freeSlots = (state: WorkerState, concurrency: number) =>
  concurrency - state.running.size - waitingCount(state)
const heldIds = (state: WorkerState) => [
  ...state.running.keys(),
  ...[...state.waiting.values()].flat().map((t) => t.id),
]

function notifyIdle(state: WorkerState) {
  if (state.running.size === 0 && waitingCount(state) === 0)
    for (const resolve of state.idleWaiters.splice(0)) resolve()
}

type SendOne = (target: ClaimedTarget, signal: AbortSignal, current: () => boolean) => Promise<void>

/**
 * Starts waiting targets while their network and the worker have a free slot. When a send ends it claims
 * again (through `schedule`), or, driven by tick() alone, starts what it already holds.
 */
function createDispatcher(
  deps: WorkerDeps,
  settings: WorkerSettings,
  state: WorkerState,
  send: SendOne,
  schedule: (ms: number) => void,
): () => void {
  const { options, claimThreshold } = settings
  const { running, inFlight, log } = state

  const startSend = (network: Network, target: ClaimedTarget) => {
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
      notifyIdle(state)
      // Claim again once a useful batch of slots is free, so a drain does not claim one target per
      // statement; a short delay otherwise lets a few more finish first.
      // A worker driven by tick() (tests) only starts the targets it already claimed.
      if (!state.stopping && state.started)
        schedule(freeSlots(state, options.concurrency) >= claimThreshold ? 0 : CLAIM_COALESCE_MS)
      else if (!state.stopping) dispatch()
    })
    running.set(target.id, { target, controller, done })
  }

  const dispatch = () => {
    for (const [network, list] of state.waiting) {
      while (
        list.length > 0 &&
        (inFlight.get(network) ?? 0) < networkLimit(deps, network) &&
        running.size < options.concurrency
      ) {
        startSend(network, list.shift() as ClaimedTarget)
      }
    }
  }
  return dispatch
}

/** Throws before a network call once this worker can no longer trust its lease on the target. */
function createLeaseGuard(deps: WorkerDeps, settings: WorkerSettings, state: WorkerState) {
  const { lost, trustedUntil } = state
  return (targetId: string) => () => {
    if (!lost.has(targetId) && deps.clock.now() < (trustedUntil.get(targetId) ?? 0) - settings.margin) return
    lost.add(targetId)
    throw new LeaseExpiredError(
      'This worker no longer holds the lease on the target (it stalled or could not renew it); the send stops here',
    )
  }
}

/** One send: runs sendTarget under the lease guard, then records its outcome. */
function createSend(deps: WorkerDeps, settings: WorkerSettings, state: WorkerState): SendOne {
  const { options, lookupDelayMs, leaseTime } = settings
  const { log } = state
  const guard = createLeaseGuard(deps, settings, state)
  return async (target, signal, current) => {
    const started = deps.clock.now()
    deps.metrics.observeFireLag((started - (target.run_at ?? started)) / 1000)
    try {
      const result = await runGuarded(guard(target.id), () =>
        sendTarget(
          {
            ...deps,
            db: deps.store.db,
            // The send's times (when an item's call began, when to look or retry, a lookup's day) are read
            // on the lease clock, through the offset this claim measured: a lookup then searches the
            // network from when the call really began, and waits its whole delay, whatever this machine's
            // clock says.
            now: () => deps.clock.now() + target.dueClockOffset,
            logger: log,
            ...(options.backoff ? { backoff: options.backoff } : {}),
            unknownOutcomeCheckMs: lookupDelayMs,
            leaseTime,
          },
          target,
          signal,
          state.connectionOf.get(target.id),
        ),
      )
      state.connectionOf.delete(target.id)
      deps.metrics.countOutcome(target.platform, result.kind)
      await recordOutcome(deps, state, target, result, current)
    } catch (error) {
      // Recording the outcome failed (database down): leave the lease to expire so the sweep takes it.
      log.error({ err: error, targetId: target.id }, 'could not record the outcome of a send')
    } finally {
      if (current()) {
        state.trustedUntil.delete(target.id)
        state.lost.delete(target.id)
      }
    }
  }
}

/** Settles one send's outcome and logs it, unless the attempt was superseded or its lease lapsed. */
async function recordOutcome(
  deps: WorkerDeps,
  state: WorkerState,
  target: ClaimedTarget,
  result: SendResult,
  current: () => boolean,
) {
  const { log } = state
  if (!current()) {
    log.warn({ targetId: target.id }, 'superseded attempt ended; its outcome is not recorded')
    return
  }
  if (state.lost.has(target.id) && result.outcome.kind !== 'published') {
    // The lease may be someone else's now (a lookup, another worker): what this attempt saw is not
    // recorded; the sweep turns the lapsed lease into a lookup (or stuck where none can decide).
    log.warn({ targetId: target.id }, 'lease lapsed during the send; its outcome is not recorded here')
    return
  }
  const now = deps.clock.now()
  if (result.throttleUntil) await deferProfile(deps.store.db, result.connectionId, result.throttleUntil, now)
  const kept = await settleTarget(deps.store, {
    targetId: target.id,
    postId: target.post_id,
    workerId: state.id,
    now,
    outcome: result.outcome,
    onlyTarget: target.onlyTarget,
    ...(result.attemptsDelta ? { attemptsDelta: result.attemptsDelta } : {}),
    ...(result.trail ? { trail: result.trail } : {}),
  })
  if (!kept)
    log.warn(
      { targetId: target.id },
      'lease lost before the outcome was recorded; the target was reset meanwhile',
    )
  else logOutcome(log, target, result)
  if (result.outcome.kind !== 'retry' && result.outcome.kind !== 'check') deps.queue.settled(target.post_id)
}

/** One claim-and-dispatch pass: claims due targets, reads their connections, queues and starts them. */
function createClaimPass(
  deps: WorkerDeps,
  settings: WorkerSettings,
  state: WorkerState,
  dispatch: () => void,
) {
  const { id, options, leaseClock } = settings
  const { running, waiting, inFlight } = state
  return async (): Promise<number> => {
    if (state.stopping) return 0
    const free = freeSlots(state, options.concurrency)
    // Every network is claimable: a target on a network without an adapter fails with a clear reason.
    const open = networks.filter(
      (network) =>
        (inFlight.get(network) ?? 0) + (waiting.get(network)?.length ?? 0) < networkLimit(deps, network),
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
      state.trustedUntil.set(target.id, claimedAt + options.leaseMs)
      state.lost.delete(target.id)
    }
    if (claimed.length > 0) await readConnections(deps, state, claimed)
    for (const target of claimed) {
      const network = target.platform as Network
      const list = waiting.get(network) ?? []
      list.push(target)
      waiting.set(network, list)
    }
    dispatch()
    return claimed.length
  }
}

/**
 * One read for the whole batch instead of one per send.
 * When it fails, each send reads its own connection (and retries if that fails too): a claimed
 * target is never left untracked.
 */
async function readConnections(deps: WorkerDeps, state: WorkerState, claimed: ClaimedTarget[]) {
  const ids = [...new Set(claimed.map((t) => t.connection_id))]
  try {
    const rows = await deps.store.db.selectFrom('connections').selectAll().where('id', 'in', ids).execute()
    const byId = new Map(rows.map((row) => [row.id, row]))
    for (const target of claimed) {
      const row = byId.get(target.connection_id)
      if (row) state.connectionOf.set(target.id, row)
    }
  } catch (error) {
    state.log.error({ err: error }, "reading the claimed targets' connections failed")
  }
}

/** Runs claim passes: at once after a full batch, on the poll otherwise, and whenever it is scheduled. */
function createClaimLoop(tick: () => Promise<number>, settings: WorkerSettings, state: WorkerState) {
  const { options } = settings
  let timer: NodeJS.Timeout | undefined
  let timerAt = Number.POSITIVE_INFINITY
  let ticking: Promise<number> | undefined
  let again = false

  const loop = async () => {
    timer = undefined
    if (state.stopping) return
    if (ticking) {
      again = true
      return
    }
    let claimed = 0
    try {
      ticking = tick()
      claimed = await ticking
    } catch (error) {
      state.log.error({ err: error }, 'claiming failed')
    } finally {
      ticking = undefined
    }
    // A full batch suggests more is due: claim again at once; otherwise poll.
    schedule(again || claimed >= options.batch ? 0 : options.pollMs)
    again = false
  }

  /** Runs the loop in `ms`, unless it is already due sooner. */
  const schedule = (ms: number) => {
    if (state.stopping) return
    const at = Date.now() + ms
    if (timer && timerAt <= at) return
    if (timer) clearTimeout(timer)
    timerAt = at
    timer = setTimeout(() => void loop(), ms)
  }

  return {
    schedule,
    /** Clears the pass scheduled next. */
    cancel() {
      if (timer) clearTimeout(timer)
    },
    /** The pass under way, if any. */
    ticking: () => ticking,
  }
}

/** Renews the leases this worker holds; a target whose lease is gone is let go of. */
function createLeaseHeartbeat(deps: WorkerDeps, settings: WorkerSettings, state: WorkerState) {
  const { id, options, leaseClock } = settings
  return async () => {
    const ids = heldIds(state)
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
          if (!state.lost.has(targetId)) state.trustedUntil.set(targetId, began + options.leaseMs)
          continue
        }
        letGoOf(state, targetId)
      }
    } catch (error) {
      state.log.error({ err: error }, 'lease renewal failed')
    }
  }
}

/** A target whose lease a renewal found gone: dropped if waiting, stopped if sending. */
function letGoOf(state: WorkerState, targetId: string) {
  state.lost.add(targetId)
  for (const [network, list] of state.waiting) {
    const rest = list.filter((t) => t.id !== targetId)
    if (rest.length !== list.length) state.waiting.set(network, rest)
  }
  const sending = state.running.get(targetId)
  if (!sending) return
  // Someone else holds the target now (it was reset and may be re-sent): stop before the next
  // network call, so this worker never sends what another may be sending too.
  state.log.warn({ targetId }, 'lease lost; stopping this send, its outcome will not be recorded here')
  sending.controller.abort(new Error('lease lost'))
}

/** Finds expired leases: each becomes a lookup on its network, or stuck where no lookup can decide. */
function createSweep(
  deps: WorkerDeps,
  settings: WorkerSettings,
  state: WorkerState,
  schedule: (ms: number) => void,
) {
  const { log } = state
  const lookupPlatforms = networks.filter((network) => deps.adapters[network]?.findPublished)
  return async () => {
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
        settings.lookupDelayMs,
        settings.leaseClock(),
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
}

/** The graceful stop's wait: in-flight sends get the grace period, then are cut off. */
async function waitForInFlight(state: WorkerState, inflight: RunningSend[], graceMs: number) {
  state.log.info({ inFlight: inflight.length, graceMs }, 'waiting for in-flight sends')
  const grace = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref())
  const outcome = await Promise.race([
    Promise.all(inflight.map((entry) => entry.done)).then(() => 'done' as const),
    grace,
  ])
  if (outcome === 'timeout') {
    // Past the grace period the sends are cut off; their outcome is unknown and they stay leased,
    // so they surface as stuck instead of being sent again.
    for (const entry of state.running.values()) entry.controller.abort()
    await Promise.race([
      Promise.all([...state.running.values()].map((entry) => entry.done)),
      new Promise((r) => setTimeout(r, 2_000).unref()),
    ])
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
