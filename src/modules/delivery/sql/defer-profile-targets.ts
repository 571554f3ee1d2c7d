import type { Db } from '../../../platform/db/db.js'

/** Pushes the connection's waiting targets (pending, unleased, due before `until`) to `until`. */
export async function deferProfileTargets(db: Db, connectionId: string, until: number, now: number) {
  await db
    .updateTable('targets')
    .set({ run_at: until, updated_at: now })
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .where('run_at', '<', until)
    .execute()
}
