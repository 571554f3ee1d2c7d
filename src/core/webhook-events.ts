/**
 * The event catalog and the delivery rules of webhooks (docs/adr/0019-webhook-delivery-and-signing.md). Pure:
 * no I/O, tested without a server.
 */

/** Every event type Herald sends, in the order the docs list them. */
export const eventTypes = Object.freeze([
  'post.published',
  'post.partially_published',
  'post.failed',
  'target.published',
  'target.failed',
  'target.stuck',
  'account.needs_reconnect',
  'account.expiring',
  'credits.low',
  'endpoint.disabled',
  'webhook.test',
] as const)

export type EventType = (typeof eventTypes)[number]

export const isEventType = (value: string): value is EventType =>
  (eventTypes as readonly string[]).includes(value)

/**
 * How long after each failed attempt the next one is made: twelve attempts over about three and a half
 * days (83.6 hours), so an endpoint that fails them all has failed for more than the 3 days that disable
 * it. After the last one fails the delivery is given up (it stays in the log and can be redelivered).
 */
export const RETRY_SCHEDULE_MS = Object.freeze([
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  14 * 3_600_000,
  14 * 3_600_000,
  14 * 3_600_000,
])

/** An endpoint whose attempts have all failed for this long is disabled and its owner told. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000

/** A 2xx within this time is a success; anything slower is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 15_000

/** A payload over this many bytes is cut down to ids (receivers fetch the rest with get_post). */
export const MAX_PAYLOAD_BYTES = 20_000

/** Rotating a secret keeps signing with the old one too, for this long. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000

export const MAX_ENDPOINT_URL_LENGTH = 2_000
export const MAX_ENDPOINT_DESCRIPTION_LENGTH = 500

/** When attempt number `attempts` (1-based, just failed) should be followed by another, or undefined: give up. */
export function nextAttemptAt(attempts: number, now: number): number | undefined {
  const wait = RETRY_SCHEDULE_MS[attempts - 1]
  return wait === undefined ? undefined : now + wait
}

/** What the post events say once every target of a post has settled. */
export function postSettledEvent(statuses: string[]): EventType | undefined {
  if (statuses.length === 0 || statuses.includes('pending')) return undefined
  const published = statuses.filter((s) => s === 'published').length
  if (published === statuses.length) return 'post.published'
  return published > 0 ? 'post.partially_published' : 'post.failed'
}
