import type { Outcome } from './target-lifecycle.js'

/**
 * What happened to one profile's post, as Herald records it: one entry per change that moved the target on,
 * written in the transaction of that change (`target_history`, migration 029), so the record is neither lost
 * for a committed change nor kept for a rolled-back one. The post's own facts (made, approved) are on the
 * post; this is the delivery's side: each attempt's end, each lookup and what it found, an interrupted send,
 * a person's reset and a retry.
 */

export const historyKinds = ['lookup', 'attempt', 'interrupted', 'reset', 'retried'] as const
export type HistoryKind = (typeof historyKinds)[number]

/**
 * What each kind of entry says:
 * - lookup: `found` (the post is on the network, so it is not sent again), `absent` (certainly not there:
 *   sent), `ambiguous` (could not tell: stuck for a person), `unreachable` (the network could not be asked:
 *   looked for again later, nothing sent meanwhile);
 * - attempt: `published`, `failed`, `retry` (tried again later), `check` (no clear answer: looked up before
 *   anything is sent again), `stuck` (no clear answer and no lookup can tell);
 * - interrupted (the worker holding the send went away): `check` or `stuck`, as for an attempt;
 * - reset (a person released a stuck send): `look` (looked up first), `release` (marked failed, to retry),
 *   `confirm` (the person saw it on the network);
 * - retried (a failed profile sent again): `now`, `rescheduled` (at a new slot), `approved` (by an owner).
 */
export const historyResults = [
  'found',
  'absent',
  'ambiguous',
  'unreachable',
  'published',
  'failed',
  'retry',
  'check',
  'stuck',
  'look',
  'release',
  'confirm',
  'now',
  'rescheduled',
  'approved',
] as const
export type HistoryResult = (typeof historyResults)[number]

/** One entry as it is written: `sent` says whether an attempt made a publishing call to the network. */
export interface HistoryEntry {
  kind: HistoryKind
  result: HistoryResult
  sent?: boolean
  detail?: string
}

/** What a send saw on its way that its outcome does not say: the lookup's answer, and whether it called out. */
export interface SendTrail {
  lookup?: { result: 'found' | 'absent' | 'ambiguous' | 'unreachable'; detail?: string }
  /** A publishing call (the post's or an item's) was made: the network may have been changed. */
  sent: boolean
}

/** The outcome of an attempt as its history entry names it. */
export function attemptResult(outcome: Outcome): HistoryResult {
  switch (outcome.kind) {
    case 'published':
    case 'failed':
    case 'retry':
    case 'check':
      return outcome.kind
    case 'unknown':
      return 'stuck'
  }
}

/**
 * The entries one settled attempt writes: its lookup (when it looked first), then its end. A lookup that
 * could not ask and leaves the target waiting for the next one says all there is; its `check` is not
 * repeated. The detail is the outcome's error: for a published attempt there is none.
 */
export function settleHistory(outcome: Outcome, trail: SendTrail | undefined): HistoryEntry[] {
  const entries: HistoryEntry[] = []
  const lookup = trail?.lookup
  if (lookup)
    entries.push({
      kind: 'lookup',
      result: lookup.result,
      ...(lookup.detail ? { detail: lookup.detail } : {}),
    })
  if (lookup?.result === 'unreachable' && outcome.kind === 'check') return entries
  entries.push({
    kind: 'attempt',
    result: attemptResult(outcome),
    sent: trail?.sent ?? false,
    ...(outcome.kind === 'published' ? {} : { detail: outcome.error }),
  })
  return entries
}
