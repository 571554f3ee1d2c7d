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
  const id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}:webhooks`
  const log = deps.logger.child({ subsystem: 'webhooks', workerId: id })
  const concurrency = options.concurrency ?? 64
  const perEndpoint = options.perEndpoint ?? Math.max(1, Math.floor(concurrency / 2))
  const pollMs = options.pollMs ?? 200
  const leaseMs = options.leaseMs ?? 2 * options.client.timeoutMs
  const signingClock = deps.signingClock ?? systemClock
  const running = new Map<string, { delivery: ClaimedDelivery; done: Promise<void> }>()
  /** Claimed here, in event order, waiting for a slot (with when the claim was made). */
  let queued: Array<{ delivery: ClaimedDelivery; claimedAt: number }> = []
  const queueBudgetMs = leaseMs - options.client.timeoutMs - LEASE_MARGIN_MS
  const ahead = queueBudgetMs > 0 ? CLAIM_AHEAD : 1
  const idleWaiters: Array<() => void> = []
  let stopping = true
  /** stop() was called: a claim that comes back after it goes straight back (tick() may run unstarted). */
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let timerAt = Number.POSITIVE_INFINITY
  let ticking: Promise<number> | undefined
  let again = false
  /** An event was written in this process since the last pass began. */
  let nudged = false
  /** The looks still due after the last such event. */
  let rechecks: number[] = []
  let unlisten: (() => void) | undefined

  /**
   * 2xx answers waiting to be recorded. Those that arrive while a record is being written share the next
   * transaction, so a busy loop writes one transaction per batch of deliveries, not one per delivery.
   */
  let toRecord: Array<{
    delivery: ClaimedDelivery
    result: AttemptResult
    now: number
    done: (verdict: AttemptVerdict) => void
    failed: (error: unknown) => void
  }> = []
  let recording = false
  let recordTimer: NodeJS.Timeout | undefined
  /**
   * Deliveries whose HTTP call is under way. A delivery's slot (of `concurrency`, and of `perEndpoint`) is
   * held by its call only: one whose answer waits to be recorded gives its slot to the next at once.
   */
  let calls = 0

  const flushRecords = async () => {
    const batch = toRecord
    toRecord = []
    try {
      // One time for the batch: the latest answer's (each waited at most one transaction for it).
      const now = Math.max(...batch.map((item) => item.now))
      let kept: Set<string> | undefined
      try {
        kept = await recordDelivered(deps.store, { workerId: id, now, items: batch })
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
          item.done(await recordAttempt(deps.store, { ...item, workerId: id }))
        } catch (error) {
          item.failed(error)
        }
      }
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
    if (calls <= 0) start()
    else recordTimer ??= setTimeout(start, RECORD_COALESCE_MS)
  }

  const recordSuccess = (delivery: ClaimedDelivery, result: AttemptResult, now: number) =>
    new Promise<AttemptVerdict>((done, failed) => {
      toRecord.push({ delivery, result, now, done, failed })
      scheduleRecord()
    })

  /** Calls under way per endpoint (kept with `calls`: the pump asks for every queued delivery). */
  const inFlight = new Map<string, number>()
  const inFlightTo = (endpointId: string) => inFlight.get(endpointId) ?? 0
  const heldFor = (endpointId: string) =>
    inFlightTo(endpointId) + queued.filter((q) => q.delivery.endpointId === endpointId).length

  /** Starts queued deliveries while slots are free; those whose lease no longer covers a call go back. */
  const pump = () => {
    const now = deps.clock.now()
    const expired: string[] = []
    const rest: typeof queued = []
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

  /**
   * Each endpoint secret is opened once per sealed value (a rotation seals a new one) rather than once per
   * delivery: opening and decoding it cost a busy loop more than signing.
   */
  const signers = new Map<string, Signer>()
  const signerFor = (endpointId: string, column: 'secret' | 'previous_secret', sealed: string) => {
    const key = `${endpointId}\u0000${column}\u0000${sealed}`
    const kept = signers.get(key)
    if (kept) return kept
    const signer = signerOf(deps.vault.open(webhookSecretAt(endpointId, column), sealed))
    if (signers.size >= SIGNERS_KEPT) signers.clear()
    signers.set(key, signer)
    return signer
  }

  /** The call to the receiver (or why none was made); its slot is free again when it resolves. */
  const send = async (delivery: ClaimedDelivery): Promise<AttemptResult> => {
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
          options.client,
        )
      : {
          statusCode: null,
          latencyMs: 0,
          excerpt: body.ok
            ? "The endpoint's secret cannot be opened with this process's HERALD_SECRET_KEY (or was not sealed for this endpoint); nothing was sent."
            : `The event's body could not be made from its snapshot (${body.reason}); nothing was sent.`,
        }
  }

  /**
   * A 2xx gives its slot to the next delivery as soon as it arrives: it waits for a batched record, one
   * transaction for many. Any other answer keeps the slot until its own record commits, so a receiver
   * failing fast cannot queue more than `concurrency` single-attempt transactions ahead of the settles.
   */
  const deliver = async (delivery: ClaimedDelivery) => {
    let slotHeld = true
    const freeSlot = () => {
      if (!slotHeld) return
      slotHeld = false
      calls--
      const left = inFlightTo(delivery.endpointId) - 1
      if (left > 0) inFlight.set(delivery.endpointId, left)
      else inFlight.delete(delivery.endpointId)
      pump()
    }
    let result: AttemptResult
    let verdict: AttemptVerdict
    let now: number
    try {
      result = await send(delivery)
      now = deps.clock.now()
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
      if (ok) freeSlot()
      verdict = ok
        ? await recordSuccess(delivery, result, now)
        : await recordAttempt(deps.store, { delivery, workerId: id, now, result })
    } finally {
      freeSlot()
    }
    deps.metrics.countWebhookAttempt(verdict)
    if (verdict === 'delivered') deps.metrics.observeWebhookLag((now - delivery.createdAt) / 1000)
    else if (verdict !== 'lease_lost')
      log.warn(
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

  const start = (delivery: ClaimedDelivery) => {
    calls++
    inFlight.set(delivery.endpointId, inFlightTo(delivery.endpointId) + 1)
    const done = deliver(delivery)
      .catch((error) =>
        log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        running.delete(delivery.id)
        pump()
        // The next event of the same post may be claimable now. Claim at once when a useful batch of
        // room is free; otherwise a few more finish first, so a busy loop does not claim one at a time.
        const room = concurrency * ahead - running.size - queued.length
        schedule(room >= Math.min(8, concurrency) ? 0 : CLAIM_COALESCE_MS)
      })
    running.set(delivery.id, { delivery, done })
  }

  /** The last pass claimed something: the next one claims without asking first whether anything waits. */
  let productive = false
  /** When the last pass asked; a busy loop still asks once per poll, so old events get fanned out. */
  let askedAt = Number.NEGATIVE_INFINITY

  const tick = async (fresh = false): Promise<number> => {
    const now = deps.clock.now()
    // An idle poll asks (one read) whether anything waits before the claim, a write. A pass that expects
    // work (an event was just written here, or the last pass claimed some) skips the question.
    const ask = !(fresh || productive) || now - askedAt >= pollMs
    if (ask) askedAt = now
    productive = false
    const waiting = ask
      ? await outboxWaiting(deps.store.db, now)
      : // On Postgres events are written with their deliveries (only an older version's need fanning out).
        { events: fresh && deps.store.dialect !== 'postgres', deliveries: true }
    if (!waiting.events && !waiting.deliveries) return 0
    if (waiting.events) while ((await fanOutEvents(deps.store, now)) >= 500) {}
    const free = concurrency * ahead - running.size - queued.length
    if (free <= 0) return 0
    const endpoints = new Set([
      ...[...running.values()].map((r) => r.delivery.endpointId),
      ...queued.map((q) => q.delivery.endpointId),
    ])
    const most = perEndpoint * ahead
    const busy = [...endpoints].filter((e) => heldFor(e) >= most)
    const claimed = await claimDeliveries(deps.store, {
      workerId: id,
      now,
      leaseMs,
      limit: free,
      busyEndpoints: busy,
      perEndpoint: most,
      inFlight: Object.fromEntries([...endpoints].map((e) => [e, heldFor(e)])),
    })
    // A call of this worker that outlived its lease (a stalled event loop) came back with it: the claim
    // renewed the lease for the call under way, which records the outcome. Starting it again would send
    // it twice from one worker.
    const mine = new Set([...running.keys(), ...queued.map((q) => q.delivery.id)])
    const taken = claimed.filter((delivery) => !mine.has(delivery.id))
    if (stopped && taken.length > 0) {
      await releaseDeliveries(
        deps.store,
        id,
        taken.map((d) => d.id),
      )
      return 0
    }
    for (const delivery of taken) queued.push({ delivery, claimedAt: now })
    productive = taken.length > 0
    pump()
    return taken.length
  }

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

  const idle = () =>
    running.size === 0 && queued.length === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => idleWaiters.push(resolve))

  return {
    id,
    tick,
    idle,
    async drain() {
      for (;;) {
        const started = await tick()
        await idle()
        if (started === 0) {
          // Fan-out of events recorded by the attempts just made (endpoint.disabled) happens next pass.
          if ((await tick()) === 0) return
          await idle()
        }
      }
    },
    start() {
      stopping = false
      stopped = false
      unlisten = onEventRecorded(() => {
        nudged = true
        schedule(WAKE_COALESCE_MS)
      })
      schedule(0)
      log.info({ concurrency, perEndpoint }, 'webhook worker started')
    },
    async stop() {
      stopping = true
      stopped = true
      unlisten?.()
      if (timer) clearTimeout(timer)
      if (ticking) await ticking.catch(() => 0)
      // Claimed but not started: back to the outbox for any worker.
      const unstarted = queued.map((q) => q.delivery.id)
      queued = []
      await releaseDeliveries(deps.store, id, unstarted).catch((error) =>
        log.error({ err: error }, 'releasing queued webhook deliveries failed'),
      )
      // In-flight deliveries end within the client timeout; their outcome is recorded.
      await Promise.all([...running.values()].map((r) => r.done))
      log.info('webhook worker stopped')
    },
  }
}
