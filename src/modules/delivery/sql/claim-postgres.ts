import { sql } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled.js'
import type { Db } from '../../../platform/db/db.js'
import { claimParts } from './claim-parts.js'

/**
 * Postgres claims in one statement: candidates are ranked once in a materialised CTE (four times the limit,
 * so a worker racing another still finds unlocked ones), then locked with `FOR UPDATE SKIP LOCKED` (an
 * IN (subquery) may be re-run per row, which would ignore the LIMIT), so workers claim side by side without
 * ever taking the same row. The same statement counts the attempt on the claimed targets' posts, and each
 * target's siblings.
 */
export const postgresClaim = compiledOnce(
  8,
  (db: Db, now, platforms, exclude, candidates, limit, workerId, leaseAt, leaseMs) => {
    const { claimable, due, lease } = claimParts('postgres', {
      now,
      platforms,
      exclude,
      workerId,
      leaseNow: leaseAt,
      leaseMs,
    })
    // `picked` ranks four times the limit, so a worker racing another still finds unlocked ones. It reads the
    // statement's snapshot, which may be older than the lock: a target another worker claimed, sent and
    // settled meanwhile looks unleased there. So candidates are locked one by one, by primary key, in rank
    // order until the limit, and the claimable test is applied to what the lock returns, the row's latest
    // version. A join, or the test inside the locking subquery (its LIMIT keeps the test out), lets the
    // planner pick a claim index scan per candidate when its statistics are stale, as they are right after a
    // large schedule lands; the update finds its rows by primary key for the same reason.
    return {
      compile: () =>
        sql`
      WITH picked AS MATERIALIZED (${due(candidates)}),
      due AS (
        SELECT locked.id FROM (SELECT id, turn, run_at FROM picked ORDER BY turn, run_at) p
          CROSS JOIN LATERAL (
            SELECT t.id, t.lease_owner, t.status, t.run_at, t.platform, t.connection_id
              FROM targets t WHERE t.id = p.id LIMIT 1
            FOR UPDATE OF t SKIP LOCKED) locked
         WHERE ${claimable('locked')}
         LIMIT ${limit}),
      claimed AS (
        UPDATE targets SET ${lease}
         WHERE targets.id = ANY (ARRAY(SELECT id FROM due))
        RETURNING targets.*),
      per_post AS (SELECT post_id, count(*) AS n FROM claimed GROUP BY post_id),
      touched AS (
        UPDATE posts SET status = 'processing', attempts = posts.attempts + per_post.n, updated_at = ${now}
          FROM per_post WHERE posts.id = per_post.post_id)
      SELECT claimed.*, (SELECT count(*) FROM targets s WHERE s.post_id = claimed.post_id) AS siblings
        FROM claimed`.compile(db),
    }
  },
)
