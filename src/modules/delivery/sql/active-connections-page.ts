import type { Db } from '../../../platform/db/db.js'

/** Up to `limit` active connections after the id `after`, by id: a page of the expiring sweep. */
export function activeConnectionsPage(db: Db, after: string, limit: number) {
  return db
    .selectFrom('connections')
    .select([
      'id',
      'workspace_id',
      'platform',
      'profile_id',
      'username',
      'name',
      'is_organization',
      'credentials',
      'token_expires_at',
      'expiring_notice_end',
      'expiring_notice_stage',
    ])
    .where('status', '=', 'active')
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute()
}
