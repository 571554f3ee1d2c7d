import type { Db } from '../db.js'
import type { OauthGrantsTable } from '../schema.js'

/** The SQL behind Herald's OAuth server: the library's artifacts (hashed ids) and Herald's grants. */

export interface ArtifactRow {
  payload: string
  consumed_at: number | null
  expires_at: number | null
}

export async function upsertArtifact(
  db: Db,
  row: {
    model: string
    idHash: string
    payload: string
    grantId: string | null
    uid: string | null
    expiresAt: number | null
  },
) {
  const values = {
    model: row.model,
    id_hash: row.idHash,
    payload: row.payload,
    grant_id: row.grantId,
    uid: row.uid,
    consumed_at: null,
    expires_at: row.expiresAt,
  }
  await db
    .insertInto('oauth_artifacts')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['model', 'id_hash']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grantId,
        uid: row.uid,
        expires_at: row.expiresAt,
      }),
    )
    .execute()
}

/** An artifact that has not expired (an expired one is as good as gone, whether or not it was swept). */
export function findArtifact(db: Db, model: string, idHash: string, now: number) {
  return db
    .selectFrom('oauth_artifacts')
    .select(['payload', 'consumed_at', 'expires_at'])
    .where('model', '=', model)
    .where('id_hash', '=', idHash)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst()
}

export function findArtifactByUid(db: Db, model: string, uid: string, now: number) {
  return db
    .selectFrom('oauth_artifacts')
    .select(['payload', 'consumed_at', 'expires_at', 'id_hash'])
    .where('model', '=', model)
    .where('uid', '=', uid)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst()
}

/** Marks a code or refresh token used; only the first caller changes the row. */
export async function consumeArtifact(db: Db, model: string, idHash: string, now: number) {
  await db
    .updateTable('oauth_artifacts')
    .set({ consumed_at: now })
    .where('model', '=', model)
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .execute()
}

export async function deleteArtifact(db: Db, model: string, idHash: string) {
  await db.deleteFrom('oauth_artifacts').where('model', '=', model).where('id_hash', '=', idHash).execute()
}

export async function deleteArtifactsOfGrant(db: Db, model: string, grantId: string) {
  await db.deleteFrom('oauth_artifacts').where('model', '=', model).where('grant_id', '=', grantId).execute()
}

/** Lets a registered client live as long as it is in use (registrations nobody authorized expire). */
export async function keepArtifact(db: Db, model: string, idHash: string) {
  await db
    .updateTable('oauth_artifacts')
    .set({ expires_at: null })
    .where('model', '=', model)
    .where('id_hash', '=', idHash)
    .execute()
}

/** Drops expired artifacts (codes, tokens, interactions, unused registrations). */
export async function purgeExpiredArtifacts(db: Db, now: number) {
  await db.deleteFrom('oauth_artifacts').where('expires_at', '<=', now).execute()
}

export async function insertGrant(
  db: Db,
  grant: Omit<OauthGrantsTable, 'first_used_at' | 'last_used_at' | 'revoked_at'>,
) {
  await db
    .insertInto('oauth_grants')
    .values({ ...grant, first_used_at: null, last_used_at: null, revoked_at: null })
    .execute()
}

export function findGrant(db: Db, id: string) {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The person's live grants, newest first, with the workspace's name. */
export function listGrants(db: Db, userId: string) {
  return db
    .selectFrom('oauth_grants')
    .innerJoin('workspaces', 'workspaces.id', 'oauth_grants.workspace_id')
    .selectAll('oauth_grants')
    .select('workspaces.name as workspace_name')
    .where('oauth_grants.user_id', '=', userId)
    .where('oauth_grants.revoked_at', 'is', null)
    .orderBy('oauth_grants.created_at', 'desc')
    .execute()
}

/** Ends a grant; true when it was live. Its tokens are deleted by the caller in the same breath. */
export async function revokeGrantRow(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function touchGrant(db: Db, id: string, now: number) {
  await db
    .updateTable('oauth_grants')
    .set((eb) => ({
      last_used_at: now,
      first_used_at: eb.fn.coalesce('first_used_at', eb.val(now)),
    }))
    .where('id', '=', id)
    .execute()
}
