import { createHmac, randomBytes } from 'node:crypto'
import type { Network } from '../../core/networks.js'
import type { Db } from '../db/db.js'
import type { OauthStatesTable } from '../db/schema.js'
import { codeChallengeS256, createCodeVerifier } from './pkce.js'
import { safeEqual } from './safe-equal.js'
import { type Vault, VaultError } from './vault.js'

/**
 * The OAuth `state` of the connect flow: `<id>.<mac>`, where `id` names an `oauth_states` row (who
 * started the flow, for which workspace and network, the sealed PKCE verifier, expiry, use) and `mac` is
 * an HMAC of the id under a key derived from the vault key. The state is signed (a forged one fails the
 * MAC), single-use (`used_at` is set by one conditional UPDATE) and short-lived ({@link STATE_TTL_MS}).
 */

export const STATE_TTL_MS = 10 * 60_000
/** Rows this long past their expiry are deleted when new flows start. */
const STATE_RETENTION_MS = 24 * 3_600_000

export interface StateSigner {
  sign(id: string): string
  /** The id inside a well-formed, correctly signed state; undefined otherwise. */
  verify(state: string): string | undefined
}

/** An HMAC-SHA256 signer whose key is derived from (never equal to) the vault key. */
export function createStateSigner(secretKey: Buffer): StateSigner {
  const key = createHmac('sha256', secretKey).update('herald/oauth-state/v1').digest()
  const mac = (id: string) => createHmac('sha256', key).update(id).digest('base64url')
  return {
    sign: (id) => `${id}.${mac(id)}`,
    verify(state) {
      const match = /^([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(state)
      if (!match) return undefined
      return safeEqual(mac(match[1]!), match[2]!) ? match[1] : undefined
    },
  }
}

const verifierAt = (id: string) => ({ table: 'oauth_states', column: 'code_verifier', id })

export interface StateDeps {
  db: Db
  vault: Vault
  signer: StateSigner
  now(): number
}

/** Records a new flow and returns the `state` and PKCE challenge for the authorize URL. */
export async function issueState(
  deps: StateDeps,
  input: {
    workspaceId: string
    userId: string
    platform: Network
    redirectUri: string
    /** The Mastodon instance the flow runs against. */
    instance?: string
  },
): Promise<{ state: string; codeChallenge: string }> {
  const now = deps.now()
  const id = randomBytes(24).toString('base64url')
  const verifier = createCodeVerifier()
  await deps.db
    .deleteFrom('oauth_states')
    .where('expires_at', '<', now - STATE_RETENTION_MS)
    .execute()
  await deps.db
    .insertInto('oauth_states')
    .values({
      id,
      workspace_id: input.workspaceId,
      user_id: input.userId,
      platform: input.platform,
      code_verifier: deps.vault.seal(verifierAt(id), verifier),
      redirect_uri: input.redirectUri,
      created_at: now,
      expires_at: now + STATE_TTL_MS,
      used_at: null,
      ...(input.instance ? { instance: input.instance } : {}),
    })
    .execute()
  return { state: deps.signer.sign(id), codeChallenge: codeChallengeS256(verifier) }
}

export type StateRefusal = 'missing' | 'forged' | 'replayed' | 'expired' | 'wrong_user'

export type ConsumedState =
  | { ok: true; row: OauthStatesTable; codeVerifier: string }
  | { ok: false; reason: StateRefusal }

/**
 * Checks a callback's state and spends it. In order: present; signature; a row of this network; not used
 * before; not expired; started by the person now signed in. A state started by someone else is spent
 * too, so it cannot be tried again.
 */
export async function consumeState(
  deps: StateDeps,
  input: { state: string | undefined; platform: Network; userId: string },
): Promise<ConsumedState> {
  if (!input.state) return { ok: false, reason: 'missing' }
  const id = deps.signer.verify(input.state)
  if (!id) return { ok: false, reason: 'forged' }
  const row = await deps.db.selectFrom('oauth_states').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row || row.platform !== input.platform) return { ok: false, reason: 'forged' }
  if (row.used_at !== null) return { ok: false, reason: 'replayed' }
  const now = deps.now()
  if (Number(row.expires_at) <= now) return { ok: false, reason: 'expired' }
  // One conditional UPDATE: of two callbacks racing with the same state, exactly one gets the row.
  const spent = await deps.db
    .updateTable('oauth_states')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst()
  if (Number(spent.numUpdatedRows) !== 1) return { ok: false, reason: 'replayed' }
  if (row.user_id !== input.userId) return { ok: false, reason: 'wrong_user' }
  try {
    return { ok: true, row, codeVerifier: deps.vault.open(verifierAt(id), row.code_verifier) }
  } catch (error) {
    // A verifier not sealed for this state (copied from another row, or altered) proves nothing.
    if (error instanceof VaultError) return { ok: false, reason: 'forged' }
    throw error
  }
}
