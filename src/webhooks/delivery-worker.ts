import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type Vault, webhookSecretAt } from '../connect/vault.js'
import { type Clock, systemClock } from '../lib/clock.js'
import type { Logger } from '../logger.js'
import type { Store } from '../store/db.js'
import {
  type ClaimedDelivery,
  claimDeliveries,
  fanOutEvents,
  recordAttempt,
  releaseDeliveries,
} from '../store/webhooks.js'
import type { Metrics } from '../worker/metrics.js'
import type { QueueSignal } from '../worker/queue-signal.js'
import { postWebhook, type WebhookClientOptions } from './post-webhook.js'
import { signatureHeaders } from './signing.js'

/** How long a busy delivery loop waits for more slots to free before claiming again. */
const CLAIM_COALESCE_MS = 10

export interface WebhookWorkerOptions {
  id?: string
  /** Deliveries in flight at once in this process (default 32). */
  concurrency?: number
  /** Deliveries in flight at once to one endpoint (default 16), so a slow receiver never holds every slot. */
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
  queue?: QueueSignal
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
  const concurrency = options.concurrency ?? 32
  const perEndpoint = options.perEndpoint ?? 16
  const pollMs = options.pollMs ?? 200
  const leaseMs = options.leaseMs ?? 2 * options.client.timeoutMs
  const signingClock = deps.signingClock ?? systemClock
  const running = new Map<string, { delivery: ClaimedDelivery; done: Promise<void> }>()
  const idleWaiters: Array<() => void> = []
  let stopping = true
  let timer: NodeJS.Timeout | undefined
  let timerAt = Number.POSITIVE_INFINITY
  let ticking: Promise<number> | undefined
  let again = false
  let unsubscribe: (() => void) | undefined

  const inFlightTo = (endpointId: string) =>
    [...running.values()].filter((r) => r.delivery.endpointId === endpointId).length

  const deliver = async (delivery: ClaimedDelivery) => {
    let secrets: string[] | undefined
    try {
      secrets = delivery.secrets.map(({ column, sealed }) =>
        deps.vault.open(webhookSecretAt(delivery.endpointId, column), sealed),
      )
    } catch {
      // Sealed under a key this process does not hold, or not for this endpoint: nothing is sent unsigned;
      // the attempt fails visibly.
    }
    const result = secrets
      ? await postWebhook(
          delivery.url,
          delivery.payload,
          signatureHeaders(delivery.eventId, new Date(signingClock.now()), delivery.payload, secrets),
          options.client,
        )
      : {
          statusCode: null,
          latencyMs: 0,
          excerpt:
            "The endpoint's secret cannot be opened with this process's HERALD_SECRET_KEY (or was not sealed for this endpoint); nothing was sent.",
        }
    const now = deps.clock.now()
    const verdict = await recordAttempt(deps.store, { delivery, workerId: id, now, result })
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
    const done = deliver(delivery)
      .catch((error) =>
        log.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        running.delete(delivery.id)
        if (running.size === 0) for (const resolve of idleWaiters.splice(0)) resolve()
        // The next event of the same post may be claimable now. Claim at once when a useful batch of
        // slots is free; otherwise a few more finish first, so a busy loop does not claim one at a time.
        schedule(concurrency - running.size >= Math.min(8, concurrency) ? 0 : CLAIM_COALESCE_MS)
      })
    running.set(delivery.id, { delivery, done })
  }

  const tick = async (): Promise<number> => {
    const now = deps.clock.now()
    while ((await fanOutEvents(deps.store, now)) >= 500) {}
    const free = concurrency - running.size
    if (free <= 0) return 0
    const endpoints = new Set([...running.values()].map((r) => r.delivery.endpointId))
    const busy = [...endpoints].filter((e) => inFlightTo(e) >= perEndpoint)
    const claimed = await claimDeliveries(deps.store, {
      workerId: id,
      now,
      leaseMs,
      limit: free,
      busyEndpoints: busy,
    })
    // A claim may hold more for one endpoint than it may take at once: the rest go back.
    const counts = new Map<string, number>()
    const released: string[] = []
    for (const delivery of claimed) {
      const n = (counts.get(delivery.endpointId) ?? inFlightTo(delivery.endpointId)) + 1
      counts.set(delivery.endpointId, n)
      if (n > perEndpoint) released.push(delivery.id)
      else start(delivery)
    }
    await releaseDeliveries(deps.store, id, released)
    return claimed.length - released.length
  }

  const loop = async () => {
    timer = undefined
    if (stopping) return
    if (ticking) {
      again = true
      return
    }
    try {
      ticking = tick()
      await ticking
    } catch (error) {
      log.error({ err: error }, 'webhook delivery pass failed')
    } finally {
      ticking = undefined
    }
    schedule(again ? 0 : pollMs)
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
    running.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))

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
      unsubscribe = deps.queue?.onSettled(() => schedule(0))
      schedule(0)
      log.info({ concurrency, perEndpoint }, 'webhook worker started')
    },
    async stop() {
      stopping = true
      unsubscribe?.()
      if (timer) clearTimeout(timer)
      if (ticking) await ticking.catch(() => 0)
      // In-flight deliveries end within the client timeout; their outcome is recorded.
      await Promise.all([...running.values()].map((r) => r.done))
      log.info('webhook worker stopped')
    },
  }
}
