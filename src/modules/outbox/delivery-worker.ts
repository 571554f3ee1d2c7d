import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type Clock, systemClock } from '../../platform/clock.js'
import { type Vault, webhookSecretAt } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import { onEventRecorded } from '../../platform/db/statements/events.js'
import {
  type AttemptResult,
  type AttemptVerdict,
  type ClaimedDelivery,
  claimDeliveries,
  fanOutEvents,
  outboxWaiting,
  recordAttempt,
  recordDelivered,
  releaseDeliveries,
} from '../../platform/db/statements/webhooks.js'
import type { Logger } from '../../platform/logger.js'
import type { Metrics } from '../../platform/metrics.js'
import { postWebhook, type WebhookClientOptions } from './post-webhook.js'
import { renderSnapshot } from './settle-events.js'
import { type Signer, signatureHeaders, signerOf } from './signing.js'

/** How long a busy delivery loop waits for more slots to free before claiming again. */
const CLAIM_COALESCE_MS = 10
/**
 * How long the loop waits, once told of new work (an event written here, a settle's included), before it
 * looks: a busy worker settles hundreds of targets a second, and a look per settle spent more on claims
 * (a write transaction each) than on deliveries. Well inside the delivery lag anyone notices.
 */
const WAKE_COALESCE_MS = 20
/**
 * A claim takes up to this many times the slots (per endpoint, and in all), and keeps those it cannot
 * start at once in a local queue that starts them as slots free: a fast receiver gets its deliveries from
 * a quarter as many claims and records. A queued delivery starts only while its lease still covers a
 * whole call (the client's timeout); otherwise it goes back unclaimed.
 */
const CLAIM_AHEAD = 4
const LEASE_MARGIN_MS = 1_000
/**
 * After an event was written in this process, the loop looks at once and again after each of these
 * pauses (unless its poll comes sooner): the first look may come before the writing transaction commits
 * (Postgres), a later one finds it then.
 */
const RECORDED_RECHECKS_MS = Object.freeze([20, 100, 250])
/** How long a 2xx waits for others to share its record's transaction while more answers are due. */
const RECORD_COALESCE_MS = 5

/** Opened endpoint secrets kept by one worker at most; past it the cache starts over. */
const SIGNERS_KEPT = 1_000

/** What a delivery sends: the event's body, rendered from its snapshot when it was written as one. */
function bodyOf(delivery: ClaimedDelivery): { ok: true; text: string } | { ok: false; reason: string } {
  if (delivery.snapshot === null) return { ok: true, text: delivery.payload }
  try {
    return {
      ok: true,
      text: renderSnapshot({
        id: delivery.eventId,
        type: delivery.eventType,
        createdAt: delivery.createdAt,
        snapshot: delivery.snapshot,
      }),
    }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) }
  }
}

export interface WebhookWorkerOptions {
  id?: string
  /** Deliveries in flight at once in this process (default 64). */
  concurrency?: number
  /**
   * Deliveries in flight at once to one endpoint (default half of `concurrency`), so a slow receiver never
   * holds every slot.
   */
  perEndpoint?: number
  /** How often the outbox is looked at when nothing wakes the worker (default 200 ms). */
  pollMs?: number
  /** Default twice the client's timeout: a lease that runs out means the worker died mid-call. */
  leaseMs?: number
  client: WebhookClientOptions
}

export interface WebhookWorkerDeps {
  store: Store
  vault: Vault
  /** Schedules attempts and measures lag (a fake clock in tests). */
  clock: Clock
  /** The `webhook-timestamp` receivers check against their own clock: always real time. */
  signingClock?: Clock
  logger: Logger
  metrics: Metrics
}

export interface WebhookWorker {
  readonly id: string
  start(): void
  stop(): Promise<void>
  /** Fans out new events and starts the due deliveries; returns how many it started. */
  tick(): Promise<number>
  /** Resolves when no delivery is in flight. */
  idle(): Promise<void>
  /** Ticks until nothing is due now (tests with a fake clock). */
  drain(): Promise<void>
}

/**
 * Delivers the outbox: each event to each subscribed endpoint, signed, through the guarded client, at
 * least once with the same `webhook-id`, retried on the documented schedule. Runs beside the publishing
 * worker in the same process but on its own slots, so a slow receiver never slows publishing.
 */
export function createWebhookWorker(deps: WebhookWorkerDeps, options: WebhookWorkerOptions): WebhookWorker {
  const settings = settingsOf(options)
  const { id, concurrency, perEndpoint } = settings
  const log = deps.logger.child({ subsystem: 'webhooks', workerId: id })
  /** stop() was called: a claim that comes back after it goes straight back (tick() may run unstarted). */
  let stopped = false
  let unlisten: (() => void) | undefined
  const pool = createDeliveryPool(deps, settings, log, () => {
    // The next event of the same post may be claimable now. Claim at once when a useful batch of
    // room is free; otherwise a few more finish first, so a busy loop does not claim one at a time.
    passes.schedule(pool.room() >= Math.min(8, concurrency) ? 0 : CLAIM_COALESCE_MS)
  })
  const tick = createClaimPass(deps, settings, pool, () => stopped)
  const passes = createPassLoop(tick, settings.pollMs, log)

  return {
    id,
    tick,
    idle: pool.idle,
    async drain() {
      for (;;) {
        const started = await tick()
        await pool.idle()
        if (started === 0) {
          // Fan-out of events recorded by the attempts just made (endpoint.disabled) happens next pass.
          if ((await tick()) === 0) return
          await pool.idle()
        }
      }
    },
    start() {
      passes.resume()
      stopped = false
      unlisten = onEventRecorded(() => passes.nudge())
      log.info({ concurrency, perEndpoint }, 'webhook worker started')
    },
    async stop() {
      stopped = true
      unlisten?.()
      await passes.halt()
      // Claimed but not started: back to the outbox for any worker.
      await pool.releaseQueued()
      // In-flight deliveries end within the client timeout; their outcome is recorded.
      await pool.settled()
      log.info('webhook worker stopped')
    },
  }
}

interface WorkerSettings {
  id: string
  concurrency: number
  perEndpoint: number
  pollMs: number
  leaseMs: number
  /** How long a claimed delivery may wait for a slot and still have its lease cover a whole call. */
  queueBudgetMs: number
  /** How many times its slots a claim takes: {@link CLAIM_AHEAD}, or 1 when the lease leaves no budget. */
  ahead: number
  client: WebhookClientOptions
}

function settingsOf(options: WebhookWorkerOptions): WorkerSettings {
  const concurrency = options.concurrency ?? 64
  const leaseMs = options.leaseMs ?? 2 * options.client.timeoutMs
  const queueBudgetMs = leaseMs - options.client.timeoutMs - LEASE_MARGIN_MS
  return {
    id: options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}:webhooks`,
    concurrency,
    perEndpoint: options.perEndpoint ?? Math.max(1, Math.floor(concurrency / 2)),
    pollMs: options.pollMs ?? 200,
    leaseMs,
    queueBudgetMs,
    ahead: queueBudgetMs > 0 ? CLAIM_AHEAD : 1,
    client: options.client,
  }
}

/** Claimed here, waiting for a slot, with when the claim was made. */
interface Queued {
  delivery: ClaimedDelivery
  claimedAt: number
}

/** The deliveries one worker holds: running (a call under way, or its record) and queued for a slot. */
interface DeliveryPool {
  /** How many more a claim may take: the claim-ahead capacity less what is running or queued. */
  room(): number
  /** The endpoints with a delivery running or queued here. */
  endpointsHeld(): string[]
  /** An endpoint's calls under way plus its queued deliveries. */
  heldFor(endpointId: string): number
  /** The deliveries running or queued here. */
  heldIds(): Set<string>
  /** Queues claimed deliveries (in event order) and starts those that have a slot. */
  enqueue(deliveries: ClaimedDelivery[], claimedAt: number): void
  /** Resolves when no delivery is running or queued. */
  idle(): Promise<void>
  /** Hands the queued, unstarted deliveries back to the outbox. */
  releaseQueued(): Promise<void>
  /** Resolves when every running delivery has recorded its outcome. */
  settled(): Promise<void>
}

function createDeliveryPool(
  deps: WebhookWorkerDeps,
  settings: WorkerSettings,
  log: Logger,
  onDeliveryEnded: () => void,
): DeliveryPool {
  const { id, concurrency, perEndpoint, queueBudgetMs, ahead } = settings
  const running = new Map<string, { delivery: ClaimedDelivery; done: Promise<void> }>()
  /** In event order. */
  let queued: Queued[] = []
  const idleWaiters: Array<() => void> = []
  /**
   * Deliveries whose HTTP call is under way. A delivery's slot (of `concurrency`, and of `perEndpoint`) is
   * held by its call only: one whose answer waits to be recorded gives its slot to the next at once.
   */
  let calls = 0
  /** Calls under way per endpoint (kept with `calls`: the pump asks for every queued delivery). */
  const inFlight = new Map<string, number>()
  const inFlightTo = (endpointId: string) => inFlight.get(endpointId) ?? 0
  const heldFor = (endpointId: string) =>
    inFlightTo(endpointId) + queued.filter((q) => q.delivery.endpointId === endpointId).length
  const recordSuccess = createSuccessRecorder(deps.store, id, log, () => calls)
  const send = createSender(deps, settings.client)

  const takeSlot = (endpointId: string) => {
    calls++
    inFlight.set(endpointId, inFlightTo(endpointId) + 1)
  }
  const freeSlot = (endpointId: string) => {
    calls--
    const left = inFlightTo(endpointId) - 1
    if (left > 0) inFlight.set(endpointId, left)
    else inFlight.delete(endpointId)
    pump()
  }

  /** Starts queued deliveries while slots are free; those whose lease no longer covers a call go back. */
  const pump = () => {
    const now = deps.clock.now()
    const expired: string[] = []
    const rest: Queued[] = []
    for (const q of queued) {
      // Without a budget (a timeout near the lease) a claim takes only what starts at once: nothing expires.
      if (queueBudgetMs > 0 && q.claimedAt + queueBudgetMs < now) expired.push(q.delivery.id)
      else if (calls < concurrency && inFlightTo(q.delivery.endpointId) < perEndpoint) start(q.delivery)
      else rest.push(q)
    }
    queued = rest
    if (running.size === 0 && queued.length === 0) for (const resolve of idleWaiters.splice(0)) resolve()
    if (expired.length > 0)
      releaseDeliveries(deps.store, id, expired).catch((error) =>
        log.error({ err: error }, 'releasing queued webhook deliveries failed'),
      )
  }

  const start = (delivery: ClaimedDelivery) => {
    takeSlot(delivery.endpointId)
    const done = deliver(delivery, { deps, workerId: id, log, send, recordSuccess, freeSlot })
      .catch((error) =>
        log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        running.delete(delivery.id)
        pump()
        onDeliveryEnded()
      })
    running.set(delivery.id, { delivery, done })
  }

  return {
    room: () => concurrency * ahead - running.size - queued.length,
    endpointsHeld: () => [
      ...new Set([
        ...[...running.values()].map((r) => r.delivery.endpointId),
        ...queued.map((q) => q.delivery.endpointId),
      ]),
    ],
    heldFor,
    heldIds: () => new Set([...running.keys(), ...queued.map((q) => q.delivery.id)]),
    enqueue(deliveries, claimedAt) {
      for (const delivery of deliveries) queued.push({ delivery, claimedAt })
      pump()
    },
    idle: () =>
      running.size === 0 && queued.length === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async releaseQueued() {
      const unstarted = queued.map((q) => q.delivery.id)
      queued = []
      await releaseDeliveries(deps.store, id, unstarted).catch((error) =>
        log.error({ err: error }, 'releasing queued webhook deliveries failed'),
      )
    },
    async settled() {
      await Promise.all([...running.values()].map((r) => r.done))
    },
  }
}

interface DeliverySteps {
  deps: WebhookWorkerDeps
  workerId: string
  log: Logger
  send(delivery: ClaimedDelivery): Promise<AttemptResult>
  recordSuccess(delivery: ClaimedDelivery, result: AttemptResult, now: number): Promise<AttemptVerdict>
  /** Gives the delivery's slot to the next one. */
  freeSlot(endpointId: string): void
}

/**
 * One delivery: the call, its record, its metrics. A 2xx gives its slot to the next delivery as soon as it
 * arrives: it waits for a batched record, one transaction for many. Any other answer keeps the slot until
 * its own record commits, so a receiver failing fast cannot queue more than `concurrency` single-attempt
 * transactions ahead of the settles.
 */
async function deliver(delivery: ClaimedDelivery, steps: DeliverySteps): Promise<void> {
  const { deps, workerId } = steps
  let slotHeld = true
  const freeSlot = () => {
    if (!slotHeld) return
    slotHeld = false
    steps.freeSlot(delivery.endpointId)
  }
  let result: AttemptResult
  let verdict: AttemptVerdict
  let now: number
  try {
    result = await steps.send(delivery)
    now = deps.clock.now()
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
    if (ok) freeSlot()
    verdict = ok
      ? await steps.recordSuccess(delivery, result, now)
      : await recordAttempt(deps.store, { delivery, workerId, now, result })
  } finally {
    freeSlot()
  }
  deps.metrics.countWebhookAttempt(verdict)
  if (verdict === 'delivered') deps.metrics.observeWebhookLag((now - delivery.createdAt) / 1000)
  else if (verdict !== 'lease_lost')
    steps.log.warn(
      {
        endpointId: delivery.endpointId,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        attempt: delivery.attempts + 1,
        statusCode: result.statusCode,
        outcome: verdict,
        reason: result.excerpt.slice(0, 200),
      },
      'webhook delivery failed',
    )
}

/** The call to the receiver (or why none was made); its slot is free again when it resolves. */
function createSender(deps: WebhookWorkerDeps, client: WebhookClientOptions) {
  const signingClock = deps.signingClock ?? systemClock
  const signerFor = createSignerCache(deps.vault)
  return async (delivery: ClaimedDelivery): Promise<AttemptResult> => {
    let secrets: Signer[] | undefined
    try {
      secrets = delivery.secrets.map(({ column, sealed }) => signerFor(delivery.endpointId, column, sealed))
    } catch {
      // Sealed under a key this process does not hold, or not for this endpoint: nothing is sent unsigned;
      // the attempt fails visibly.
    }
    const body = bodyOf(delivery)
    return secrets && body.ok
      ? await postWebhook(
          delivery.url,
          body.text,
          signatureHeaders(delivery.eventId, new Date(signingClock.now()), body.text, secrets),
          client,
        )
      : {
          statusCode: null,
          latencyMs: 0,
          excerpt: body.ok
            ? "The endpoint's secret cannot be opened with this process's HERALD_SECRET_KEY (or was not sealed for this endpoint); nothing was sent."
            : `The event's body could not be made from its snapshot (${body.reason}); nothing was sent.`,
        }
  }
}

/**
 * Each endpoint secret is opened once per sealed value (a rotation seals a new one) rather than once per
 * delivery: opening and decoding it cost a busy loop more than signing.
 */
function createSignerCache(vault: Vault) {
  const signers = new Map<string, Signer>()
  return (endpointId: string, column: 'secret' | 'previous_secret', sealed: string) => {
    const key = `${endpointId}\u0000${column}\u0000${sealed}`
    const kept = signers.get(key)
    if (kept) return kept
    const signer = signerOf(vault.open(webhookSecretAt(endpointId, column), sealed))
    if (signers.size >= SIGNERS_KEPT) signers.clear()
    signers.set(key, signer)
    return signer
  }
}

interface PendingRecord {
  delivery: ClaimedDelivery
  result: AttemptResult
  now: number
  done: (verdict: AttemptVerdict) => void
  failed: (error: unknown) => void
}

/**
 * Records 2xx answers in batches. Those that arrive while a record is being written share the next
 * transaction, so a busy loop writes one transaction per batch of deliveries, not one per delivery.
 */
function createSuccessRecorder(store: Store, workerId: string, log: Logger, callsUnderWay: () => number) {
  let toRecord: PendingRecord[] = []
  let recording = false
  let recordTimer: NodeJS.Timeout | undefined

  const flushRecords = async () => {
    const batch = toRecord
    toRecord = []
    try {
      await recordBatch(store, workerId, log, batch)
    } finally {
      recording = false
      if (toRecord.length > 0) scheduleRecord()
    }
  }

  /**
   * Records at once when no other answer is coming (every delivery in flight is waiting to be recorded),
   * otherwise within {@link RECORD_COALESCE_MS}, so the answers of one claim share one transaction.
   */
  const scheduleRecord = () => {
    if (recording) return
    const start = () => {
      if (recordTimer) clearTimeout(recordTimer)
      recordTimer = undefined
      recording = true
      void flushRecords()
    }
    if (callsUnderWay() <= 0) start()
    else recordTimer ??= setTimeout(start, RECORD_COALESCE_MS)
  }

  return (delivery: ClaimedDelivery, result: AttemptResult, now: number) =>
    new Promise<AttemptVerdict>((done, failed) => {
      toRecord.push({ delivery, result, now, done, failed })
      scheduleRecord()
    })
}

async function recordBatch(store: Store, workerId: string, log: Logger, batch: PendingRecord[]) {
  // One time for the batch: the latest answer's (each waited at most one transaction for it).
  const now = Math.max(...batch.map((item) => item.now))
  let kept: Set<string> | undefined
  try {
    kept = await recordDelivered(store, { workerId, now, items: batch })
  } catch (error) {
    log.error({ err: error, deliveries: batch.length }, 'recording a batch of deliveries failed')
  }
  for (const item of batch) {
    if (kept) {
      item.done(kept.has(item.delivery.id) ? 'delivered' : 'lease_lost')
      continue
    }
    // The batch failed as a whole: each is recorded on its own, so one cannot hold back the others.
    try {
      item.done(await recordAttempt(store, { ...item, workerId }))
    } catch (error) {
      item.failed(error)
    }
  }
}

/** One pass: fans out new events, then claims due deliveries into the pool; returns how many it took. */
function createClaimPass(
  deps: WebhookWorkerDeps,
  settings: WorkerSettings,
  pool: DeliveryPool,
  isStopped: () => boolean,
) {
  const { id, pollMs, leaseMs, perEndpoint, ahead } = settings
  /** The last pass claimed something: the next one claims without asking first whether anything waits. */
  let productive = false
  /** When the last pass asked; a busy loop still asks once per poll, so old events get fanned out. */
  let askedAt = Number.NEGATIVE_INFINITY

  const whatWaits = async (now: number, fresh: boolean) => {
    // An idle poll asks (one read) whether anything waits before the claim, a write. A pass that expects
    // work (an event was just written here, or the last pass claimed some) skips the question.
    const ask = !(fresh || productive) || now - askedAt >= pollMs
    if (ask) askedAt = now
    productive = false
    return ask
      ? await outboxWaiting(deps.store.db, now)
      : // On Postgres events are written with their deliveries (only an older version's need fanning out).
        { events: fresh && deps.store.dialect !== 'postgres', deliveries: true }
  }

  const claim = async (now: number, limit: number) => {
    const endpoints = pool.endpointsHeld()
    const most = perEndpoint * ahead
    const claimed = await claimDeliveries(deps.store, {
      workerId: id,
      now,
      leaseMs,
      limit,
      busyEndpoints: endpoints.filter((e) => pool.heldFor(e) >= most),
      perEndpoint: most,
      inFlight: Object.fromEntries(endpoints.map((e) => [e, pool.heldFor(e)])),
    })
    // A call of this worker that outlived its lease (a stalled event loop) came back with it: the claim
    // renewed the lease for the call under way, which records the outcome. Starting it again would send
    // it twice from one worker.
    const mine = pool.heldIds()
    return claimed.filter((delivery) => !mine.has(delivery.id))
  }

  return async (fresh = false): Promise<number> => {
    const now = deps.clock.now()
    const waiting = await whatWaits(now, fresh)
    if (!waiting.events && !waiting.deliveries) return 0
    if (waiting.events) while ((await fanOutEvents(deps.store, now)) >= 500) {}
    const free = pool.room()
    if (free <= 0) return 0
    const taken = await claim(now, free)
    if (isStopped() && taken.length > 0) {
      await releaseDeliveries(
        deps.store,
        id,
        taken.map((d) => d.id),
      )
      return 0
    }
    productive = taken.length > 0
    pool.enqueue(taken, now)
    return taken.length
  }
}

/** Runs passes: on a poll, soon after an event written here (and on its rechecks), and when slots free. */
function createPassLoop(tick: (fresh: boolean) => Promise<number>, pollMs: number, log: Logger) {
  let stopping = true
  let timer: NodeJS.Timeout | undefined
  let timerAt = Number.POSITIVE_INFINITY
  let ticking: Promise<number> | undefined
  let again = false
  /** An event was written in this process since the last pass began. */
  let nudged = false
  /** The looks still due after the last such event. */
  let rechecks: number[] = []

  const loop = async () => {
    timer = undefined
    if (stopping) return
    if (ticking) {
      again = true
      return
    }
    const fresh = nudged
    if (nudged) rechecks = [...RECORDED_RECHECKS_MS]
    nudged = false
    try {
      ticking = tick(fresh)
      await ticking
    } catch (error) {
      log.error({ err: error }, 'webhook delivery pass failed')
    } finally {
      ticking = undefined
    }
    const recheck = again ? undefined : rechecks.shift()
    schedule(again ? 0 : Math.min(recheck ?? pollMs, pollMs))
    again = false
  }

  const schedule = (ms: number) => {
    if (stopping) return
    const at = Date.now() + ms
    if (timer && timerAt <= at) return
    if (timer) clearTimeout(timer)
    timerAt = at
    timer = setTimeout(() => void loop(), ms)
  }

  return {
    schedule,
    /** An event was written in this process: look within {@link WAKE_COALESCE_MS}, then on the rechecks. */
    nudge() {
      nudged = true
      schedule(WAKE_COALESCE_MS)
    },
    resume() {
      stopping = false
      schedule(0)
    },
    /** Stops scheduling passes and waits for the one under way. */
    async halt() {
      stopping = true
      if (timer) clearTimeout(timer)
      if (ticking) await ticking.catch(() => 0)
    },
  }
}
