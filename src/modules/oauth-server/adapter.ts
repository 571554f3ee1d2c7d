import { createHash } from 'node:crypto'
import type { Adapter, AdapterPayload } from 'oidc-provider'
import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/db.js'
import {
  consumeArtifact,
  deleteArtifact,
  deleteArtifactsOfGrant,
  findArtifact,
  findArtifactByUid,
  upsertArtifact,
} from '../../platform/db/statements/oauth.js'

/** The models whose artifacts belong to a grant and die with it. */
const GRANT_MEMBERS = ['AccessToken', 'AuthorizationCode', 'RefreshToken']

/** A dynamically registered client nobody authorizes within this time is forgotten. */
export const UNUSED_REGISTRATION_MS = 24 * 3_600_000

export const hashArtifactId = (id: string) => createHash('sha256').update(id).digest('hex')

/**
 * The storage `oidc-provider` writes through, on Herald's database (SQLite or Postgres, via Kysely). Every
 * artifact is keyed by the SHA-256 of its id, and its payload is stored without the id (`jti`): an opaque
 * access or refresh token, an authorization code and a registration access token ARE their id, so the
 * database holds no usable credential. The library asks by id, so it still finds them.
 */
export function createAdapterFactory(db: Db, clock: Clock): (model: string) => Adapter {
  return (model) => {
    const key = hashArtifactId
    const restore = (
      id: string,
      row: { payload: string; consumed_at: number | null } | undefined,
    ): AdapterPayload | undefined => {
      if (!row) return undefined
      const payload = JSON.parse(row.payload) as AdapterPayload
      if (model !== 'Client') payload.jti = id
      if (row.consumed_at !== null) payload.consumed = Math.floor(row.consumed_at / 1000)
      return payload
    }
    return {
      async upsert(id, payload, expiresIn) {
        const { jti: _id, ...rest } = payload
        const expiresAt =
          typeof expiresIn === 'number'
            ? clock.now() + expiresIn * 1000
            : model === 'Client'
              ? clock.now() + UNUSED_REGISTRATION_MS
              : null
        await upsertArtifact(db, {
          model,
          idHash: key(id),
          payload: JSON.stringify(rest),
          grantId: GRANT_MEMBERS.includes(model) ? (payload.grantId ?? null) : null,
          uid: payload.uid ?? null,
          expiresAt,
        })
      },
      async find(id) {
        return restore(id, await findArtifact(db, model, key(id), clock.now()))
      },
      async findByUid(uid) {
        const row = await findArtifactByUid(db, model, uid, clock.now())
        if (!row) return undefined
        const payload = JSON.parse(row.payload) as AdapterPayload
        // A session's id is its cookie; it is not stored, and a lookup by uid needs none (the library re-reads it).
        return { ...payload, ...(row.consumed_at !== null ? { consumed: row.consumed_at / 1000 } : {}) }
      },
      async findByUserCode() {
        return undefined
      },
      async consume(id) {
        await consumeArtifact(db, model, key(id), clock.now())
      },
      async destroy(id) {
        await deleteArtifact(db, model, key(id))
      },
      async revokeByGrantId(grantId) {
        await deleteArtifactsOfGrant(db, model, grantId)
      },
    }
  }
}
