import type { Db } from '../../../platform/db/db.js'

/**
 * Marks the warning `stage` for the end `end` as sent on the connection. Only while the credentials are the
 * ones read (a reconnect or refresh meanwhile: the next sweep decides on the new ones) and no other sweep has
 * sent this warning, or a later one, for this end: one transaction wins. True when this one did.
 */
export async function markExpiringNotice(
  db: Db,
  connection: { id: string; credentials: string },
  end: number,
  stage: number,
): Promise<boolean> {
  const marked = await db
    .updateTable('connections')
    .set({ expiring_notice_end: end, expiring_notice_stage: stage })
    .where('id', '=', connection.id)
    .where('status', '=', 'active')
    .where('credentials', '=', connection.credentials)
    .where((eb) =>
      eb.or([
        eb('expiring_notice_end', 'is', null),
        eb('expiring_notice_end', '!=', end),
        eb('expiring_notice_stage', 'is', null),
        eb('expiring_notice_stage', '<', stage),
      ]),
    )
    .executeTakeFirst()
  return Number(marked.numUpdatedRows) === 1
}
