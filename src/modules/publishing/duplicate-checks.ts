import { comparableCopy, DUPLICATE_WINDOW_MS, refusesDuplicateCopy } from '../../core/duplicate-copy.js'
import type { PlannedTarget } from '../../core/post-plan.js'
import type { Db } from '../../platform/db/db.js'
import { recentCopies } from '../../platform/db/statements/recent-copies.js'

/** A post goes out after its slot, never before; retries may take this long past it and still count. */
const LATE_SEND_MS = 3 * DUPLICATE_WINDOW_MS

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

/**
 * The same copy to the same profile within 24 hours of `at` (the new post's slot, or now): each target
 * whose copy, compared as the network compares it, matches a post that profile published or has queued
 * in that window. A warning naming the post; a blocker on networks that refuse the repeat (X).
 */
export async function duplicateFindings(
  db: Db,
  workspaceId: string,
  targets: Pick<PlannedTarget, 'connection' | 'content'>[],
  at: number | ((connectionId: string) => number),
  options: { ignorePostIds?: ReadonlySet<string> } = {},
): Promise<{ blockers: string[]; warnings: string[] }> {
  const blockers: string[] = []
  const warnings: string[] = []
  const withCopy = targets.filter((t) => comparableCopy(t.content) !== '')
  if (withCopy.length === 0) return { blockers, warnings }
  const atOf = (t: (typeof withCopy)[number]) => (typeof at === 'number' ? at : at(t.connection.id))
  const moments = withCopy.map(atOf)
  // One read for every target (their moments differ only with queue slots), each compared in its own window.
  const copies = await recentCopies(
    db,
    workspaceId,
    withCopy.map((t) => t.connection.id),
    {
      from: Math.min(...moments) - DUPLICATE_WINDOW_MS,
      to: Math.max(...moments) + DUPLICATE_WINDOW_MS,
      lookBackMs: LATE_SEND_MS,
    },
  )
  for (const target of withCopy) {
    const copy = comparableCopy(target.content)
    const moment = atOf(target)
    const same = copies.find(
      (c) =>
        c.connectionId === target.connection.id &&
        Math.abs(c.at - moment) <= DUPLICATE_WINDOW_MS &&
        !options.ignorePostIds?.has(c.postId) &&
        comparableCopy(c.content) === copy,
    )
    if (!same) continue
    const who = `${target.connection.platform} @${target.connection.username.replace(/^@+/, '')}`
    const what = same.published ? `was published at ${when(same.at)}` : `is scheduled for ${when(same.at)}`
    if (refusesDuplicateCopy(target.connection.platform))
      blockers.push(
        `${who}: the same copy ${what} (post ${same.postId}); ${target.connection.platform === 'twitter' ? 'X' : target.connection.platform} refuses a repeated post within 24 hours, so change the copy or the day`,
      )
    else
      warnings.push(
        `${who}: the same copy ${what} (post ${same.postId}), within 24 hours of this one; followers would see it twice`,
      )
  }
  return { blockers, warnings }
}
