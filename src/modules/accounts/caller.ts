import type { Clock } from '../../platform/clock.js'
import type { Db } from '../../platform/db/db.js'
import { findApiKeyByHash, touchApiKey } from '../../platform/db/statements/accounts.js'
import { AppError } from '../../platform/errors.js'
import { hashApiKey } from './api-keys.js'

/**
 * Who is calling: a person, through one of their API keys (keys authenticate people, not workspaces), a
 * dashboard session, or an OAuth access token (which acts in one workspace, within its scopes).
 */
export interface Caller {
  userId: string
  /** What rate limits and logs name the credential by: the key id, `session:<id>` or `oauth:<grantId>`. */
  apiKeyId: string
  defaultWorkspaceId: string
  /** OAuth only: the grant behind the token. Absent for keys and sessions, which may do everything. */
  grant?: {
    id: string
    /** The workspace chosen on the consent page; the token acts there and nowhere else. */
    workspaceId: string
    /** `posts:read` and/or `posts:write` (src/modules/oauth-server/scopes.ts). */
    scopes: readonly string[]
  }
}

/** lastUsedAt is written at most this often per key, so the request path stays read-only. */
const TOUCH_INTERVAL_MS = 60_000

export interface KeyAuthenticator {
  authenticate(key: string | undefined): Promise<Caller>
}

export function createKeyAuthenticator(db: Db, clock: Clock): KeyAuthenticator {
  const lastTouched = new Map<string, number>()
  return {
    async authenticate(key) {
      if (!key)
        throw new AppError(
          'unauthorized',
          'An API key is required: send it as x-api-key or Authorization: Bearer',
        )
      const row = await findApiKeyByHash(db, hashApiKey(key))
      if (!row) throw new AppError('unauthorized', 'The API key is not valid')
      if (row.revoked_at !== null) throw new AppError('unauthorized', 'The API key has been revoked')
      const now = clock.now()
      if (now - (lastTouched.get(row.id) ?? row.last_used_at ?? 0) >= TOUCH_INTERVAL_MS) {
        lastTouched.set(row.id, now)
        await touchApiKey(db, row.id, now)
      }
      return { userId: row.user_id, apiKeyId: row.id, defaultWorkspaceId: row.default_workspace_id }
    },
  }
}

/** Reads the key from `x-api-key` or `Authorization: Bearer`. */
export function keyFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const header = headers['x-api-key']
  if (typeof header === 'string' && header.trim()) return header.trim()
  const authorization = headers.authorization
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim())
    if (match?.[1]) return match[1].trim()
  }
  return undefined
}
