/** A small Prometheus text-format registry: what Herald measures, without a dependency. */

const FIRE_LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/** Space used by hosted media (storage) and by the fetch-once cache (the data folder). */
export interface MediaGauges {
  hostedBytes: number
  hostedCount: number
  cacheBytes: number
  cacheCount: number
}

export interface Metrics {
  observeFireLag(seconds: number): void
  countOutcome(network: string, kind: string): void
  /** One webhook delivery attempt by outcome (`delivered`, `failed`, `gave_up`, `gone`, `lease_lost`). */
  countWebhookAttempt(outcome: string): void
  /** Seconds from the change an event reports to its receiver's 2xx. */
  observeWebhookLag(seconds: number): void
  /** Prometheus exposition text; gauges are read when scraped. */
  render(gauges: {
    queueDepth: number
    stuck: number
    /** Stuck targets by reason code; every known reason is shown, 0 when none. */
    stuckByReason?: Record<string, number>
    lookupsPending?: number
    lookupsFailed?: number
    media?: MediaGauges
    webhooks?: { pending: number; disabledEndpoints: number }
  }): string
}

export function createMetrics(): Metrics {
  const buckets = FIRE_LAG_BUCKETS.map(() => 0)
  let lagCount = 0
  let lagSum = 0
  const outcomes = new Map<string, number>()
  const webhookAttempts = new Map<string, number>()
  const webhookLag = { buckets: FIRE_LAG_BUCKETS.map(() => 0), count: 0, sum: 0 }
  return {
    countWebhookAttempt(outcome) {
      webhookAttempts.set(outcome, (webhookAttempts.get(outcome) ?? 0) + 1)
    },
    observeWebhookLag(seconds) {
      const value = Math.max(0, seconds)
      webhookLag.count += 1
      webhookLag.sum += value
      FIRE_LAG_BUCKETS.forEach((bound, i) => {
        if (value <= bound) webhookLag.buckets[i] = (webhookLag.buckets[i] ?? 0) + 1
      })
    },
    observeFireLag(seconds) {
      const value = Math.max(0, seconds)
      lagCount += 1
      lagSum += value
      FIRE_LAG_BUCKETS.forEach((bound, i) => {
        if (value <= bound) buckets[i] = (buckets[i] ?? 0) + 1
      })
    },
    countOutcome(network, kind) {
      const key = `${network}\u0000${kind}`
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
    },
    render(gauges) {
      const lines = [
        '# HELP herald_fire_lag_seconds Time from a target due instant to the start of its send.',
        '# TYPE herald_fire_lag_seconds histogram',
        ...FIRE_LAG_BUCKETS.map((bound, i) => `herald_fire_lag_seconds_bucket{le="${bound}"} ${buckets[i]}`),
        `herald_fire_lag_seconds_bucket{le="+Inf"} ${lagCount}`,
        `herald_fire_lag_seconds_sum ${lagSum}`,
        `herald_fire_lag_seconds_count ${lagCount}`,
        '# HELP herald_publish_outcomes_total Send attempts by network and outcome kind.',
        '# TYPE herald_publish_outcomes_total counter',
        ...[...outcomes.entries()].map(([key, n]) => {
          const [network, kind] = key.split('\u0000') as [string, string]
          return `herald_publish_outcomes_total{network="${escapeLabel(network)}",kind="${escapeLabel(kind)}"} ${n}`
        }),
        '# HELP herald_queue_depth Targets due now that no worker holds.',
        '# TYPE herald_queue_depth gauge',
        `herald_queue_depth ${gauges.queueDepth}`,
        '# HELP herald_stuck_targets Targets whose send was interrupted (outcome unknown) awaiting reset_stuck_post.',
        '# TYPE herald_stuck_targets gauge',
        `herald_stuck_targets ${gauges.stuck}`,
        ...(gauges.stuckByReason ? stuckLines(gauges.stuckByReason) : []),
        ...(gauges.lookupsPending !== undefined
          ? [
              '# HELP herald_lookups_pending Targets whose publishing call went unanswered, waiting for a lookup on their network before anything is sent again.',
              '# TYPE herald_lookups_pending gauge',
              `herald_lookups_pending ${gauges.lookupsPending}`,
              '# HELP herald_lookups_failed Of those, the targets whose latest lookup could not ask the network (retried on the lookup backoff).',
              '# TYPE herald_lookups_failed gauge',
              `herald_lookups_failed ${gauges.lookupsFailed ?? 0}`,
            ]
          : []),
        ...(gauges.media ? mediaLines(gauges.media) : []),
        '# HELP herald_webhook_attempts_total Webhook delivery attempts by outcome.',
        '# TYPE herald_webhook_attempts_total counter',
        ...[...webhookAttempts.entries()].map(
          ([outcome, n]) => `herald_webhook_attempts_total{outcome="${escapeLabel(outcome)}"} ${n}`,
        ),
        '# HELP herald_webhook_lag_seconds Time from the change an event reports to its delivery.',
        '# TYPE herald_webhook_lag_seconds histogram',
        ...FIRE_LAG_BUCKETS.map(
          (bound, i) => `herald_webhook_lag_seconds_bucket{le="${bound}"} ${webhookLag.buckets[i]}`,
        ),
        `herald_webhook_lag_seconds_bucket{le="+Inf"} ${webhookLag.count}`,
        `herald_webhook_lag_seconds_sum ${webhookLag.sum}`,
        `herald_webhook_lag_seconds_count ${webhookLag.count}`,
        ...(gauges.webhooks
          ? [
              '# HELP herald_webhook_events_pending Webhook deliveries waiting to succeed.',
              '# TYPE herald_webhook_events_pending gauge',
              `herald_webhook_events_pending ${gauges.webhooks.pending}`,
              '# HELP herald_webhook_endpoints_disabled Webhook endpoints disabled (410 or 3 days of failures).',
              '# TYPE herald_webhook_endpoints_disabled gauge',
              `herald_webhook_endpoints_disabled ${gauges.webhooks.disabledEndpoints}`,
            ]
          : []),
      ]
      return `${lines.join('\n')}\n`
    },
  }
}

/** Reasons always shown (0 when none), so an alert can watch each; `lease_expired` is one no sweep has seen yet. */
const STUCK_REASON_LABELS = ['worker_lost', 'no_lookup', 'ambiguous', 'lookups_exhausted', 'lease_expired']

const stuckLines = (byReason: Record<string, number>) => [
  '# HELP herald_stuck_targets_by_reason Stuck targets by why they are stuck (docs/decisions.md, issue 22 worker side).',
  '# TYPE herald_stuck_targets_by_reason gauge',
  ...[...new Set([...STUCK_REASON_LABELS, ...Object.keys(byReason)])].map(
    (reason) => `herald_stuck_targets_by_reason{reason="${escapeLabel(reason)}"} ${byReason[reason] ?? 0}`,
  ),
]

const mediaLines = (media: MediaGauges) => [
  '# HELP herald_hosted_media_bytes Bytes of media Herald hosts (converted copies, uploads, generated images).',
  '# TYPE herald_hosted_media_bytes gauge',
  `herald_hosted_media_bytes ${media.hostedBytes}`,
  '# HELP herald_hosted_media_files Files Herald hosts.',
  '# TYPE herald_hosted_media_files gauge',
  `herald_hosted_media_files ${media.hostedCount}`,
  '# HELP herald_media_cache_bytes Bytes in the fetch-once cache of media URLs.',
  '# TYPE herald_media_cache_bytes gauge',
  `herald_media_cache_bytes ${media.cacheBytes}`,
  '# HELP herald_media_cache_files Files in the fetch-once cache of media URLs.',
  '# TYPE herald_media_cache_files gauge',
  `herald_media_cache_files ${media.cacheCount}`,
]
