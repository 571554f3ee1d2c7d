import type { Store } from '../../../platform/db/db.js'

/** Due targets nobody holds: the queue depth gauge. */
export async function queueDepth(store: Store, now: number): Promise<number> {
  const row = await store.db
    .selectFrom('targets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('lease_owner', 'is', null)
    .where('status', '=', 'pending')
    .where('run_at', '<=', now)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
