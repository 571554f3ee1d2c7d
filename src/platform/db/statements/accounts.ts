import { sql } from 'kysely'
import { newId } from '../../ids.js'
import { compiledOnce } from '../compiled.js'
import type { Db } from '../db.js'
import type { Dialect } from '../dialect.js'
import type { MembershipsTable } from '../schema.js'

export type MemberRole = MembershipsTable['role']

export interface WorkspaceSummary {
  id: string
  name: string
  role: MemberRole
  isOwner: boolean
  connectedPlatforms: string[]
  memberCount: number
}

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst()
}

export function findUserById(db: Db, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Adds a person inside a transaction that holds {@link lockPeople}: the first person the instance ever has
 * is its administrator, and with them the setup codes printed for a fresh instance are spent.
 */
export async function insertUser(
  tx: Db,
  input: { email: string; name: string; passwordHash: string },
  now: number,
): Promise<{ id: string; isAdmin: boolean }> {
  const id = newId(now)
  const isAdmin = !(await anyPerson(tx))
  await tx
    .insertInto('users')
    .values({
      id,
      email: input.email.trim().toLowerCase(),
      name: input.name,
      password_hash: input.passwordHash,
      created_at: now,
      is_admin: isAdmin ? 1 : 0,
    })
    .execute()
  if (isAdmin) await tx.deleteFrom('setup_codes').execute()
  return { id, isAdmin }
}

/** True once the instance has any person (nobody is ever removed, so it stays true). */
export async function anyPerson(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined
}

/**
 * Holds back every other writer of people until the transaction ends, so "is anyone here yet?" is answered
 * on what the transaction then writes. Postgres: a table lock that conflicts with itself and with inserts
 * (reads go on); SQLite: the transaction's BEGIN IMMEDIATE already holds the database's write lock.
 */
export async function lockPeople(tx: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE`.execute(tx)
}

export async function insertWorkspace(
  db: Db,
  input: { name: string; plan: string },
  now: number,
): Promise<string> {
  const id = newId(now)
  await db
    .insertInto('workspaces')
    .values({ id, name: input.name, plan: input.plan, credit_balance: 0, created_at: now })
    .execute()
  return id
}

export function findWorkspace(db: Db, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function addMember(db: Db, workspaceId: string, userId: string, role: MemberRole, now: number) {
  await db
    .insertInto('memberships')
    .values({ workspace_id: workspaceId, user_id: userId, role, created_at: now })
    .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role }))
    .execute()
}

const membershipQuery = compiledOnce(2, (db: Db, workspaceId: string, userId: string) =>
  db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select([
      'workspaces.id',
      'workspaces.name',
      'workspaces.plan',
      'workspaces.credit_balance',
      'memberships.role',
    ])
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.user_id', '=', userId),
)

/** The workspace and the person's role in it, or undefined when they are not a member (every tool call). */
export async function findMembership(db: Db, workspaceId: string, userId: string) {
  return (await membershipQuery(db, workspaceId, userId)).rows[0]
}

/** Every workspace the person belongs to, owned and shared, oldest first. */
export async function listWorkspacesForUser(db: Db, userId: string): Promise<WorkspaceSummary[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select([
      'w.id',
      'w.name',
      'm.role',
      (eb) =>
        eb
          .selectFrom('memberships as all_m')
          .whereRef('all_m.workspace_id', '=', 'w.id')
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('member_count'),
    ])
    .where('m.user_id', '=', userId)
    .orderBy('w.id')
    .execute()
  if (rows.length === 0) return []
  const platforms = await db
    .selectFrom('connections')
    .select(['workspace_id', 'platform'])
    .distinct()
    .where(
      'workspace_id',
      'in',
      rows.map((r) => r.id),
    )
    .where('status', '=', 'active')
    .orderBy('platform')
    .execute()
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    role: row.role,
    isOwner: row.role === 'owner',
    connectedPlatforms: platforms.filter((p) => p.workspace_id === row.id).map((p) => p.platform),
    memberCount: Number(row.member_count),
  }))
}

export async function insertApiKey(
  db: Db,
  input: { userId: string; defaultWorkspaceId: string; name: string; prefix: string; hash: string },
  now: number,
): Promise<string> {
  const id = newId(now)
  await db
    .insertInto('api_keys')
    .values({
      id,
      user_id: input.userId,
      default_workspace_id: input.defaultWorkspaceId,
      name: input.name,
      prefix: input.prefix,
      key_hash: input.hash,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    })
    .execute()
  return id
}

const apiKeyQuery = compiledOnce(1, (db: Db, hash: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'default_workspace_id', 'last_used_at', 'revoked_at'])
    .where('key_hash', '=', hash),
)

/** What authentication needs of the key with a SHA-256 hash (every authenticated request). */
export async function findApiKeyByHash(db: Db, hash: string) {
  return (await apiKeyQuery(db, hash)).rows[0]
}

export function listApiKeys(db: Db, userId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'default_workspace_id', 'created_at', 'last_used_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute()
}

export async function revokeApiKey(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function touchApiKey(db: Db, id: string, now: number) {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute()
}

/** The people of a workspace with their role, owners first. */
export function listMembers(db: Db, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('memberships.role', 'desc')
    .orderBy('users.email')
    .execute()
}

/** Removes an editor from a workspace; an owner is never removed this way. True when someone was removed. */
export async function removeEditor(db: Db, workspaceId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('memberships')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('role', '=', 'editor')
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** The workspace's longest-standing owner (who the admin CLI acts as unless told otherwise). */
export function firstOwner(db: Db, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .select(['user_id', 'role'])
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .orderBy('user_id')
    .executeTakeFirst()
}
