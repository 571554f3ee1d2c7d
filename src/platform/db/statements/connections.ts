import { newId } from '../../ids.js'
import type { Db } from '../db.js'
import type { ConnectionsTable } from '../schema.js'
import { recordEvent } from './events.js'

export type ConnectionRow = ConnectionsTable

export interface NewConnection {
  workspaceId: string
  platform: string
  profileId: string
  username: string
  name: string
  isOrganization: boolean
  avatarUrl?: string | null
  /** Seals the credentials for the row they are stored in (the vault binds each value to its row). */
  sealCredentials(connectionId: string): string
  scopes?: string[]
  tokenExpiresAt: number | null
}

/** Inserts a connection, or refreshes the one already there for the same profile (a reconnect). */
export async function upsertConnection(db: Db, input: NewConnection, now: number): Promise<string> {
  const existing = await db
    .selectFrom('connections')
    .select('id')
    .where('workspace_id', '=', input.workspaceId)
    .where('platform', '=', input.platform)
    .where('profile_id', '=', input.profileId)
    .executeTakeFirst()
  const id = existing?.id ?? newId(now)
  const values = {
    username: input.username,
    name: input.name,
    is_organization: input.isOrganization ? 1 : 0,
    avatar_url: input.avatarUrl ?? null,
    credentials: input.sealCredentials(id),
    scopes: (input.scopes ?? []).join(' '),
    token_expires_at: input.tokenExpiresAt,
    status: 'active' as const,
    last_error: null,
    throttled_until: null,
    updated_at: now,
  }
  if (existing) {
    await db.updateTable('connections').set(values).where('id', '=', id).execute()
    return id
  }
  await db
    .insertInto('connections')
    .values({
      id,
      workspace_id: input.workspaceId,
      platform: input.platform,
      profile_id: input.profileId,
      created_at: now,
      ...values,
    })
    .execute()
  return id
}

/** Connections that are not removed (live or needing reconnect), ordered by network then age. */
export function listConnections(db: Db, workspaceId: string) {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'removed')
    .orderBy('platform')
    .orderBy('id')
    .execute()
}

export function findConnection(db: Db, id: string) {
  return db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Marks a connection `needs_reconnect`. The first time (it was active) an `account.needs_reconnect` event is
 * recorded in the same transaction.
 */
export async function markNeedsReconnect(db: Db, id: string, reason: string, now: number) {
  const unit = async (tx: Db) => {
    const changed = await tx
      .updateTable('connections')
      .set({ status: 'needs_reconnect', last_error: reason, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .returningAll()
      .executeTakeFirst()
    if (!changed) {
      // Already marked (or removed): keep the newest reason, report nothing new.
      await tx
        .updateTable('connections')
        .set({ last_error: reason, updated_at: now })
        .where('id', '=', id)
        .where('status', '=', 'needs_reconnect')
        .execute()
      return
    }
    await recordEvent(tx, {
      workspaceId: changed.workspace_id,
      type: 'account.needs_reconnect',
      data: {
        account: {
          platform: changed.platform,
          username: changed.username,
          name: changed.name,
          profileId: changed.profile_id,
          isOrganization: changed.is_organization === 1,
        },
        reason,
        action: 'Reconnect this profile from the dashboard (Channels) or with the connect link.',
      },
      ids: { profileId: changed.profile_id, platform: changed.platform },
      now,
    })
  }
  if (db.isTransaction) await unit(db)
  else await db.transaction().execute(unit)
}
