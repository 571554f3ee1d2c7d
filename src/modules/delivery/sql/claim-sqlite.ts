import { sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'
import { claimParts } from './claim-parts.js'

/** SQLite has one writer at a time, so a short transaction of UPDATE ... WHERE id IN (SELECT ...) is just as atomic. */
export const sqliteClaim = compiledOnce(
  7,
  (db: Db, now, platforms, exclude, limit, workerId, leaseAt, leaseMs) => {
    const { due, lease } = claimParts('sqlite', {
      now,
      platforms,
      exclude,
      workerId,
      leaseNow: leaseAt,
      leaseMs,
    })
    return {
      compile: () =>
        sql`
      UPDATE targets SET ${lease}
       WHERE id IN (SELECT id FROM (${due(limit)}) due) AND lease_owner IS NULL
      RETURNING *, (SELECT count(*) FROM targets s WHERE s.post_id = targets.post_id) AS siblings`.compile(
          db,
        ),
    }
  },
)
