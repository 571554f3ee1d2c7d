import { STUCK_REASONS } from './post-status.js'
import { type DeliveryItem, readItems } from './thread-items.js'

/**
 * What reset_stuck_post does with one stuck target. A reset never declares `failed` a send that may be on
 * the network unless the person says it is not there: Herald's word is what a person (or an agent) acts on,
 * and a `failed` post that is live gets sent again by whoever trusts it.
 *
 * - `look`: the target goes back behind its lookup (which sends nothing): found, it is published; absent,
 *   it is sent again, as after any interrupted send. The default wherever the network can be asked.
 * - `release`: `failed`, for publish_post_now to retry: the person said the post is not there, or the
 *   network cannot be asked at all (its unknown-outcome mark is then kept, so a retry looks first where it can).
 * - `confirm`: the person says the post (or the item in doubt) is there, and names its id on the network.
 * - `ask`: a lookup already read the profile and could not tell; only the person can, so the reset waits for
 *   their word rather than guess either way.
 */
export type ResetStep =
  | { kind: 'look' }
  | { kind: 'release'; keepsMark: boolean }
  | { kind: 'confirm' }
  | { kind: 'ask'; why: string }

export interface StuckTarget {
  stuck_reason?: string | null | undefined
  error?: string | null | undefined
}

/** The person's word on a reset: `true`, the post is on the network; `false`, it is not; unset, Herald decides. */
export type OnNetwork = boolean | undefined

export function resetStep(target: StuckTarget, canLookUp: boolean, onNetwork: OnNetwork): ResetStep {
  if (onNetwork === true) return { kind: 'confirm' }
  if (onNetwork === false) return { kind: 'release', keepsMark: false }
  if (target.stuck_reason === STUCK_REASONS.ambiguous)
    return { kind: 'ask', why: target.error ?? 'a lookup could not tell whether the post went out' }
  return canLookUp && lookupCanDecide(target) ? { kind: 'look' } : { kind: 'release', keepsMark: true }
}

/**
 * A lookup can still settle the target: its lease ran out before any sweep (the worker died mid-call) or
 * its lookups could not reach the network for a day. `no_lookup` and `worker_lost` say no lookup exists for
 * what the send did, and `ambiguous` that one read the profile and could not tell.
 */
const lookupCanDecide = (target: StuckTarget) =>
  !target.stuck_reason || target.stuck_reason === STUCK_REASONS.lookups_exhausted

/** The items of a confirmed target, the one in doubt recorded as live under the id the person gave. */
export interface ConfirmedItems {
  items: DeliveryItem[]
  /** Items left to send after the confirmed one: the target goes back to the worker to send them. */
  remaining: number
}

/**
 * Records an item in doubt as live (the person saw it): its `remoteId`, so the items after it reply under
 * it. Answers null when the target has no item in doubt (the post itself was the send in doubt).
 */
export function confirmItemInDoubt(
  raw: string | null | undefined,
  remote: { remoteId: string; url?: string | undefined; now: number },
): ConfirmedItems | null {
  const items = readItems(raw)
  const index = items.findIndex((item) => item.status !== 'published' && item.startedAt !== undefined)
  if (index < 0) return null
  const confirmed = items.map((item, i) =>
    i === index
      ? {
          ...item,
          status: 'published' as const,
          remoteId: remote.remoteId,
          ...(remote.url ? { url: remote.url } : {}),
          publishedAt: remote.now,
          error: undefined,
        }
      : item,
  )
  return { items: confirmed, remaining: unsent(confirmed) }
}

/** Items not live yet. */
export const unsent = (items: readonly DeliveryItem[]) =>
  items.filter((item) => item.status !== 'published').length
