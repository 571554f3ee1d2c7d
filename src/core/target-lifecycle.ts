import type { StuckReason } from './post-status.js'

/**
 * A target's life: the one place that says what each way an attempt can end does to the target. A target is
 * `pending` (due at `run_at`, or held by a worker's lease, or waiting for its lookup while its outcome is
 * unknown, or stuck for a person), then `published` or `failed`. The settle writes these changes under the
 * attempt's lease; nothing else moves a claimed target on.
 */

/**
 * How a claimed target ends an attempt. Every settle requires `lease_owner = <worker>`: a worker that lost
 * its lease (it was too slow, and the target was reset) can no longer write the outcome.
 */
export type Outcome =
  | { kind: 'published'; remoteId: string; url: string; uploadError?: string | undefined }
  | { kind: 'failed'; error: string }
  | { kind: 'retry'; error: string; runAt: number }
  /** The network may or may not have the post and no lookup can decide: stuck (lease kept, expired) for a person. */
  | { kind: 'unknown'; error: string; reason: StuckReason }
  /**
   * The network may have the post and can be asked: look for it at `runAt` instead of sending again.
   * `lookupFailed` says the lookup just made could not ask the network; `fresh` starts a new unknown outcome
   * (its lookups counted from zero).
   */
  | {
      kind: 'check'
      error: string
      runAt: number
      unknownSince: number
      lookupFailed?: boolean
      fresh?: boolean
    }

/** A target whose outcome is settled has no lookup pending and is not stuck. */
const settledLookups = { lookups: 0, lookup_failed_at: null, stuck_at: null, stuck_reason: null }

/** The target columns an outcome writes (named as the targets table names them). */
export interface TargetChanges {
  status?: 'pending' | 'published' | 'failed'
  remote_id?: string
  url?: string
  upload_error?: string | null
  error?: string | null
  published_at?: number
  unknown_outcome_at?: number | null
  lookups?: number
  lookup_failed_at?: number | null
  stuck_at?: number | null
  stuck_reason?: string | null
  run_at?: number | null
  lease_owner?: null
  lease_expires_at?: number | null
  updated_at: number
}

/** The target columns an outcome writes. */
export function targetChanges(outcome: Outcome, now: number): TargetChanges {
  switch (outcome.kind) {
    case 'published':
      return {
        status: 'published',
        remote_id: outcome.remoteId,
        url: outcome.url,
        upload_error: outcome.uploadError ?? null,
        error: null,
        published_at: now,
        unknown_outcome_at: null,
        ...settledLookups,
        run_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      }
    case 'failed':
      return {
        status: 'failed',
        error: outcome.error,
        unknown_outcome_at: null,
        ...settledLookups,
        run_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      }
    case 'retry':
      return {
        error: outcome.error,
        unknown_outcome_at: null,
        ...settledLookups,
        run_at: outcome.runAt,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      }
    case 'check':
      return {
        error: outcome.error,
        unknown_outcome_at: outcome.unknownSince,
        lookup_failed_at: outcome.lookupFailed ? now : null,
        ...(outcome.fresh ? { lookups: 0 } : {}),
        stuck_at: null,
        stuck_reason: null,
        run_at: outcome.runAt,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      }
    case 'unknown':
      return {
        error: outcome.error,
        stuck_at: now,
        stuck_reason: outcome.reason,
        lease_expires_at: now - 1,
        updated_at: now,
      }
  }
}
