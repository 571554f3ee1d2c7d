import type { RawBuilder } from 'kysely'
import type { Db } from '../../platform/db/db.js'
import { writeTargetProgress } from './sql/write-target-progress.js'

/** What an adapter recorded mid-attempt on a target (a Meta container id, photo ids), or undefined. */
export function readProgress(raw: string | null): Record<string, string> | undefined {
  if (!raw) return undefined
  try {
    const parsed = JSON.parse(raw) as unknown
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    )
  } catch {
    return undefined
  }
}

export class LeaseLostError extends Error {
  override name = 'LeaseLostError'
}

/**
 * The `saveProgress` the worker hands an adapter: merges the entries into the target's `progress` the
 * moment the network reports the work, and only while this worker still holds the target's lease (a
 * worker whose lease was taken over must stop: the attempt belongs to someone else now).
 */
export function progressSaver(
  db: Db,
  target: { id: string; lease_owner: string | null; progress: string | null },
  now: () => number,
  /** The lease clock's now, in SQL (see `leaseNow`). */
  leaseTime: () => RawBuilder<number>,
): (entries: Record<string, string>) => Promise<void> {
  let current = readProgress(target.progress) ?? {}
  return async (entries) => {
    const next = { ...current, ...entries }
    const held = { id: target.id, leaseOwner: target.lease_owner ?? '' }
    if (!(await writeTargetProgress(db, held, JSON.stringify(next), now(), leaseTime())))
      throw new LeaseLostError('The lease on this target was lost; the attempt stops here')
    current = next
  }
}
