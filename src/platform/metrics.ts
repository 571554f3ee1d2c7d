import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** What Herald measures, in prom-client's Prometheus registry (one per app, so tests can run several). */

const FIRE_LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

/** Space used by hosted media (storage) and by the fetch-once cache (the data folder). */
export interface MediaGauges {
  hostedBytes: number
  hostedCount: number
  cacheBytes: number
  cacheCount: number
}

export interface ScrapedGauges {
  queueDepth: number
  stuck: number
  /** Stuck targets by reason code; every known reason is shown, 0 when none. */
  stuckByReason?: Record<string, number>
  lookupsPending?: number
  lookupsFailed?: number
  media?: MediaGauges
  webhooks?: { pending: number; disabledEndpoints: number }
  /** When the last backup that succeeded ended (epoch ms); null when none ever did. */
  lastBackupAt?: number | null
}

export interface Metrics {
  observeFireLag(seconds: number): void
  countOutcome(network: string, kind: string): void
  /** One webhook delivery attempt by outcome (`delivered`, `failed`, `gave_up`, `gone`, `lease_lost`). */
  countWebhookAttempt(outcome: string): void
  /** Seconds from the change an event reports to its receiver's 2xx. */
  observeWebhookLag(seconds: number): void
  /** Prometheus exposition text; the gauges given are the ones read for this scrape. */
  render(gauges: ScrapedGauges): Promise<string>
}

/** Reasons always shown (0 when none), so an alert can watch each; `lease_expired` is one no sweep has seen yet. */
const STUCK_REASON_LABELS = ['worker_lost', 'no_lookup', 'ambiguous', 'lookups_exhausted', 'lease_expired']

export function createMetrics(): Metrics {
  const registry = new Registry()
  const registers = [registry]
  const fireLag = new Histogram({
    name: 'herald_fire_lag_seconds',
    help: 'Time from a target due instant to the start of its send.',
    buckets: FIRE_LAG_BUCKETS,
    registers,
  })
  const outcomes = new Counter({
    name: 'herald_publish_outcomes_total',
    help: 'Send attempts by network and outcome kind.',
    labelNames: ['network', 'kind'],
    registers,
  })
  const setScraped = createScrapedGauges(registry)
  const webhookAttempts = new Counter({
    name: 'herald_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome.',
    labelNames: ['outcome'],
    registers,
  })
  const webhookLag = new Histogram({
    name: 'herald_webhook_lag_seconds',
    help: 'Time from the change an event reports to its delivery.',
    buckets: FIRE_LAG_BUCKETS,
    registers,
  })

  return {
    observeFireLag: (seconds) => fireLag.observe(Math.max(0, seconds)),
    countOutcome: (network, kind) => outcomes.inc({ network, kind }),
    countWebhookAttempt: (outcome) => webhookAttempts.inc({ outcome }),
    observeWebhookLag: (seconds) => webhookLag.observe(Math.max(0, seconds)),
    async render(gauges) {
      setScraped(gauges)
      return registry.metrics()
    },
  }
}

/**
 * The gauges read for each scrape, and the function that sets one scrape's readings on them. The queue
 * depth and stuck count join the registry at once (created between the publishing and webhook metrics,
 * so the scrape lists them in the same order as ever); the others when first read.
 */
function createScrapedGauges(registry: Registry): (gauges: ScrapedGauges) => void {
  const registers = [registry]
  // Gauges a process may never read (a worker-only process has no media, say) join the registry, and so
  // the scrape, the first time they are read.
  const gauge = (name: string, help: string, labelNames: string[] = [], always = false) =>
    new Gauge({ name, help, labelNames, registers: always ? registers : [] })
  const queueDepth = gauge('herald_queue_depth', 'Targets due now that no worker holds.', [], true)
  const stuck = gauge(
    'herald_stuck_targets',
    'Targets whose send was interrupted (outcome unknown) awaiting reset_stuck_post.',
    [],
    true,
  )
  const stuckByReason = gauge(
    'herald_stuck_targets_by_reason',
    'Stuck targets by why they are stuck (docs/adr/0015-stuck-targets-and-reset.md).',
    ['reason'],
  )
  const lookupsPending = gauge(
    'herald_lookups_pending',
    'Targets whose publishing call went unanswered, waiting for a lookup on their network before anything is sent again.',
  )
  const lookupsFailed = gauge(
    'herald_lookups_failed',
    'Of those, the targets whose latest lookup could not ask the network (retried on the lookup backoff).',
  )
  const hostedBytes = gauge(
    'herald_hosted_media_bytes',
    'Bytes of media Herald hosts (converted copies, uploads, generated images).',
  )
  const hostedFiles = gauge('herald_hosted_media_files', 'Files Herald hosts.')
  const cacheBytes = gauge('herald_media_cache_bytes', 'Bytes in the fetch-once cache of media URLs.')
  const cacheFiles = gauge('herald_media_cache_files', 'Files in the fetch-once cache of media URLs.')
  const webhooksPending = gauge('herald_webhook_events_pending', 'Webhook deliveries waiting to succeed.')
  const endpointsDisabled = gauge(
    'herald_webhook_endpoints_disabled',
    'Webhook endpoints disabled (410 or 3 days of failures).',
  )
  const lastBackup = gauge(
    'herald_backup_last_success_timestamp_seconds',
    'When the last backup that succeeded ended (Unix seconds); 0 when none ever did.',
  )
  const shown = new Set<Gauge>()
  const show = (metric: Gauge) => {
    if (shown.has(metric)) return
    shown.add(metric)
    registry.registerMetric(metric)
  }

  return (gauges) => {
    queueDepth.set(gauges.queueDepth)
    stuck.set(gauges.stuck)
    if (gauges.stuckByReason) {
      show(stuckByReason)
      for (const reason of new Set([...STUCK_REASON_LABELS, ...Object.keys(gauges.stuckByReason)]))
        stuckByReason.set({ reason }, gauges.stuckByReason[reason] ?? 0)
    }
    if (gauges.lookupsPending !== undefined) {
      show(lookupsPending)
      show(lookupsFailed)
      lookupsPending.set(gauges.lookupsPending)
      lookupsFailed.set(gauges.lookupsFailed ?? 0)
    }
    if (gauges.media) {
      for (const metric of [hostedBytes, hostedFiles, cacheBytes, cacheFiles]) show(metric)
      hostedBytes.set(gauges.media.hostedBytes)
      hostedFiles.set(gauges.media.hostedCount)
      cacheBytes.set(gauges.media.cacheBytes)
      cacheFiles.set(gauges.media.cacheCount)
    }
    if (gauges.lastBackupAt !== undefined) {
      show(lastBackup)
      lastBackup.set(gauges.lastBackupAt === null ? 0 : Math.floor(gauges.lastBackupAt / 1000))
    }
    if (gauges.webhooks) {
      show(webhooksPending)
      show(endpointsDisabled)
      webhooksPending.set(gauges.webhooks.pending)
      endpointsDisabled.set(gauges.webhooks.disabledEndpoints)
    }
  }
}

/** The content type of {@link Metrics.render}'s text. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE
