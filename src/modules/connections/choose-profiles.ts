import type { GrantProfile } from '../../adapters/adapter.js'
import type { Network } from '../../core/networks.js'
import { networkLabels } from '../../core/networks.js'
import { VaultError } from '../../platform/crypto/vault.js'
import { newId } from '../../platform/ids.js'
import type { AppContext } from '../app-context.js'

/**
 * The choose-profiles step (DESIGN.md "Networks"): a grant that reaches several profiles (a LinkedIn
 * member and the pages they administer, a Facebook user's Pages and their Instagram accounts) is kept,
 * sealed, for a few minutes while its person ticks the profiles to connect; each ticked one becomes its
 * own connection. The pending grant is single-use and belongs to the person who started the connection.
 */

const LIFETIME_MS = 15 * 60_000

const grantAt = (id: string) => ({ table: 'pending_grants', column: 'sealed', id })

interface Sealed {
  profiles: GrantProfile[]
  scopes: string[]
}

export interface PendingGrant {
  id: string
  network: Network
  workspaceId: string
  profiles: GrantProfile[]
  scopes: string[]
}

export async function holdGrant(
  app: AppContext,
  input: {
    userId: string
    workspaceId: string
    network: Network
    profiles: GrantProfile[]
    scopes: string[]
  },
): Promise<string> {
  const now = app.clock.now()
  const id = newId(now)
  const sealed: Sealed = { profiles: input.profiles, scopes: input.scopes }
  await app.store.db.deleteFrom('pending_grants').where('expires_at', '<', now).execute()
  await app.store.db
    .insertInto('pending_grants')
    .values({
      id,
      user_id: input.userId,
      workspace_id: input.workspaceId,
      platform: input.network,
      sealed: app.vault.sealJson(grantAt(id), sealed),
      expires_at: now + LIFETIME_MS,
      created_at: now,
    })
    .execute()
  return id
}

/** The person's own unexpired grant, or undefined (another person's grant does not exist for them). */
export async function readGrant(
  app: AppContext,
  id: string,
  userId: string,
): Promise<PendingGrant | undefined> {
  const row = await app.store.db
    .selectFrom('pending_grants')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('expires_at', '>', app.clock.now())
    .executeTakeFirst()
  if (!row) return undefined
  let sealed: Sealed
  try {
    sealed = app.vault.openJson<Sealed>(grantAt(row.id), row.sealed)
  } catch (error) {
    // Not sealed for this grant (copied from another row, or altered): there is no grant to offer.
    if (!(error instanceof VaultError)) throw error
    app.logger.warn(
      { subsystem: 'connect', grantId: row.id, reason: error.reason },
      'pending grant refused by the vault',
    )
    return undefined
  }
  return {
    id: row.id,
    network: row.platform as Network,
    workspaceId: row.workspace_id,
    profiles: sealed.profiles,
    scopes: sealed.scopes,
  }
}

/** Spends the grant: exactly one of two racing submissions gets it. */
export async function spendGrant(app: AppContext, id: string, userId: string): Promise<boolean> {
  const result = await app.store.db
    .deleteFrom('pending_grants')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) === 1
}

/** How a profile reads in the list: its name, its handle once, and what it is. */
export function describeProfile(grant: GrantProfile): string {
  const handle = grant.profile.username.replace(/^@+/, '')
  const label = networkLabels[grant.network]
  const kind = grant.kind.includes(label) ? grant.kind : `${label} ${grant.kind}`
  return `${grant.profile.name} (@${handle}) · ${kind}`
}
