import type { Db } from '../../../platform/db/db.js'

/** Marks the connection throttled until `until`: the claim takes none of its targets before then. */
export async function throttleConnection(db: Db, connectionId: string, until: number, now: number) {
  await db
    .updateTable('connections')
    .set({ throttled_until: until, updated_at: now })
    .where('id', '=', connectionId)
    .execute()
}
