import type { Db } from '../../../platform/db/db.js'

/**
 * The lookups: due or waiting (`pending`), and of those, the ones whose latest lookup could not ask the
 * network (`failed`).
 */
export async function countLookups(db: Db): Promise<{ pending: number; failed: number }> {
  const row = await db
    .selectFrom('targets')
    .select((eb) => [
      eb.fn.countAll<number>().as('pending'),
      eb.fn.count<number>('lookup_failed_at').as('failed'),
    ])
    .where('status', '=', 'pending')
    .where('unknown_outcome_at', 'is not', null)
    .where('stuck_at', 'is', null)
    .executeTakeFirstOrThrow()
  return { pending: Number(row.pending), failed: Number(row.failed) }
}
