/** Post and target states, exactly as the spec spells them. */
export const postStatuses = ['scheduled', 'published', 'draft', 'failed', 'processing'] as const
export type PostStatus = (typeof postStatuses)[number]

export const targetStatuses = ['pending', 'published', 'failed'] as const
export type TargetStatus = (typeof targetStatuses)[number]

/** Statuses update_post may set. */
export const settableStatuses = ['scheduled', 'draft', 'failed'] as const

/** Statuses whose content and targets may still change (update_post, delete_post for the first two). */
export const editableStatuses: readonly PostStatus[] = ['scheduled', 'draft', 'failed']
export const deletableStatuses: readonly PostStatus[] = ['scheduled', 'draft']

/**
 * A post's status once its targets have settled: `published` when at least one target reached its
 * network, `failed` when none did. Null while some target is still pending (the post stays processing).
 */
export function settledStatus(targets: readonly { status: string }[]): 'published' | 'failed' | null {
  if (targets.some((t) => t.status === 'pending')) return null
  return targets.some((t) => t.status === 'published') ? 'published' : 'failed'
}

/**
 * Why a target is stuck (`targets.stuck_reason`, the `reason` label of `herald_stuck_targets`). Stuck means
 * the outcome of a publishing call is unknown and nothing Herald can do will settle it: a person checks the
 * profile, then reset_stuck_post (and publish_post_now to send it again if it is not there).
 */
export const STUCK_REASONS = {
  /** The worker sending it went away (lease ran out) and its network has no lookup. */
  worker_lost: 'worker_lost',
  /** The publishing call went unanswered and its network has no lookup. */
  no_lookup: 'no_lookup',
  /** A lookup read the profile but could not tell whether one of its posts is this one. */
  ambiguous: 'ambiguous',
  /** Lookups could not ask the network for a whole day (LOOKUP_WINDOW_MS). */
  lookups_exhausted: 'lookups_exhausted',
} as const
export type StuckReason = keyof typeof STUCK_REASONS

/** The message a stuck target carries, and reset_stuck_post writes when it releases one. */
export const STUCK_MESSAGE =
  'Publishing stopped mid-send (the worker holding it went away); the outcome is unknown. Check the profile, then reset_stuck_post and publish_post_now to retry.'
export const RESET_MESSAGE =
  'The outcome of the interrupted send is unknown: it may or may not have reached the network. Check the profile before retrying with publish_post_now.'

/**
 * A target a worker holds (being sent, or stuck with its outcome unknown). It is never deleted, replaced
 * or re-armed by a tool; the one place that says what "in flight" means.
 */
export function isInFlight(target: {
  lease_owner: string | null
  unknown_outcome_at?: number | null
  status?: string
}): boolean {
  return (
    target.lease_owner !== null ||
    ((target.unknown_outcome_at ?? null) !== null && (target.status ?? 'pending') === 'pending')
  )
}

/**
 * A target whose post is on its network: published, or its remote id recorded (a thread or first comment
 * stopped partway). It never publishes its post again, and its post is never deleted nor put back in the
 * queue (`scheduled` or `draft`): the network holds it.
 */
export function isLive(target: { status: string; remote_id: string | null }): boolean {
  return target.status === 'published' || target.remote_id !== null
}

/**
 * A target whose last send may have reached its network and has not been looked up since (a lookup is due,
 * or was kept by reset_stuck_post): the lookup searches for what that send carried, so it must not change.
 */
export const outcomeUnknown = (target: { unknown_outcome_at: number | null }) =>
  target.unknown_outcome_at !== null

/**
 * The status of a post re-armed to go out (publish_post_now, an approval): `scheduled` until a worker
 * claims it, or `processing` when part of it is on the network already (it never goes back to the queue).
 */
export const rearmedStatus = (targets: readonly { status: string; remote_id: string | null }[]) =>
  targets.some(isLive) ? 'processing' : 'scheduled'
