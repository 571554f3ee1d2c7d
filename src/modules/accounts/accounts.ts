import type { Clock } from '../../platform/clock.js'
import type { Db, Store } from '../../platform/db/db.js'
import {
  addMember,
  anyPerson,
  findUserByEmail,
  findWorkspace,
  insertApiKey,
  insertUser,
  insertWorkspace,
  listApiKeys,
  lockPeople,
  type MemberRole,
  revokeApiKey,
} from '../../platform/db/statements/accounts.js'
import { credit } from '../../platform/db/statements/credits.js'
import { writeTransaction } from '../../platform/db/write-transaction.js'
import { AppError, invalid, notFound } from '../../platform/errors.js'
import { generateApiKey } from './api-keys.js'
import { hashPassword } from './passwords.js'
import type { Revocations } from './revocations.js'
import { setupCodeMatches } from './setup-codes.js'

/** The administrative operations behind the CLI (and the tests' fixtures). */
export interface Accounts {
  bootstrap(input: {
    email: string
    password: string
    workspace: string
    name?: string
    credits?: number
    plan?: string
  }): Promise<{
    userId: string
    workspaceId: string
    apiKey: string
  }>
  /**
   * The setup page: the instance's first person, its administrator, and their first workspace (no credits,
   * as `bootstrap` gives none unless asked). Refused with `conflict` once anyone exists and with `forbidden`
   * when `access` is a code that does not match, both decided in the transaction that writes.
   */
  setUpOwner(input: {
    email: string
    password: string
    workspace: string
    name?: string
    /** The route's finding: a request from this machine, or the one-time code it was sent with. */
    access: { local: true } | { code: string }
  }): Promise<{ userId: string; workspaceId: string }>
  createUser(input: { email: string; password: string; name?: string }): Promise<{ userId: string }>
  createWorkspace(input: {
    name: string
    ownerEmail: string
    credits?: number
    plan?: string
  }): Promise<{ workspaceId: string }>
  addMember(input: {
    workspaceId: string
    email: string
    role: MemberRole
  }): Promise<{ workspaceId: string; userId: string; role: MemberRole }>
  createKey(input: {
    email: string
    workspaceId?: string
    name?: string
  }): Promise<{ id: string; apiKey: string; prefix: string; defaultWorkspaceId: string }>
  listKeys(input: { email: string }): Promise<
    Array<{
      id: string
      name: string
      prefix: string
      defaultWorkspaceId: string
      createdAt: string
      lastUsedAt: string | null
      revoked: boolean
    }>
  >
  revokeKey(input: { id: string }): Promise<{ id: string; revoked: true }>
  addCredits(input: {
    workspaceId: string
    amount: number
    reason?: string
  }): Promise<{ workspaceId: string; balance: number }>
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
/** What the columns hold (Postgres enforces these lengths). */
const MAX_EMAIL = 320
const MAX_NAME = 200
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const nameOf = (input: { email: string; name?: string }) =>
  input.name?.trim() || (input.email.trim().split('@')[0] ?? '')

/** `revocations`, when given, hears every key revoked here (the server closes the key's open MCP sessions). */
export function createAccounts(store: Store, clock: Clock, revocations?: Revocations): Accounts {
  const db = store.db

  return {
    bootstrap: (input) => bootstrap(store, clock, input),
    setUpOwner: (input) => setUpOwner(store, clock, input),

    async createUser(input) {
      await checkNewUser(db, input.email, input.password, input.name)
      const passwordHash = await hashPassword(input.password)
      const { id: userId } = await writeTransaction(store, async (tx) => {
        await lockPeople(tx, store.dialect)
        return addPerson(tx, clock, input, passwordHash)
      })
      return { userId }
    },

    async createWorkspace(input) {
      checkCredits(input.credits)
      checkWorkspaceName(input.name)
      const owner = await requireUser(db, input.ownerEmail)
      const workspaceId = await db.transaction().execute(async (tx) => {
        const now = clock.now()
        const id = await insertWorkspace(tx, { name: input.name.trim(), plan: input.plan ?? 'free' }, now)
        await addMember(tx, id, owner.id, 'owner', now)
        if (input.credits)
          await credit(tx, { workspaceId: id, amount: input.credits, reason: 'workspace_created' }, now)
        return id
      })
      return { workspaceId }
    },

    async addMember(input) {
      if (input.role !== 'owner' && input.role !== 'editor') throw invalid('The role must be owner or editor')
      if (!(await findWorkspace(db, input.workspaceId))) throw notFound(`No workspace ${input.workspaceId}`)
      const user = await requireUser(db, input.email)
      await addMember(db, input.workspaceId, user.id, input.role, clock.now())
      return { workspaceId: input.workspaceId, userId: user.id, role: input.role }
    },

    createKey: (input) => createKey(db, clock, input),

    async listKeys(input) {
      const user = await requireUser(db, input.email)
      const rows = await listApiKeys(db, user.id)
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        defaultWorkspaceId: row.default_workspace_id,
        createdAt: iso(row.created_at) as string,
        lastUsedAt: iso(row.last_used_at),
        revoked: row.revoked_at !== null,
      }))
    },

    async revokeKey(input) {
      if (!(await revokeApiKey(db, input.id, clock.now())))
        throw notFound(`No active API key with id ${input.id}`)
      revocations?.revoked(input.id)
      return { id: input.id, revoked: true }
    },

    async addCredits(input) {
      if (!Number.isSafeInteger(input.amount) || input.amount <= 0)
        throw invalid('The amount must be a whole number above 0')
      if (!(await findWorkspace(db, input.workspaceId))) throw notFound(`No workspace ${input.workspaceId}`)
      const balance = await db
        .transaction()
        .execute((tx) =>
          credit(
            tx,
            { workspaceId: input.workspaceId, amount: input.amount, reason: input.reason ?? 'top_up' },
            clock.now(),
          ),
        )
      return { workspaceId: input.workspaceId, balance }
    },
  }
}

async function requireUser(db: Db, email: string) {
  const user = await findUserByEmail(db, email)
  if (!user) throw notFound(`No user with email ${email}`)
  return user
}

async function checkNewUser(db: Db, email: string, password: string, name?: string) {
  if (!EMAIL.test(email) || email.length > MAX_EMAIL) throw invalid(`Not an email address: ${email}`)
  if (password.length < 8) throw invalid('The password must be at least 8 characters')
  if (nameOf({ email, name }).length > MAX_NAME)
    throw invalid(`The name must be at most ${MAX_NAME} characters`)
  if (await findUserByEmail(db, email)) throw emailTaken(email)
}

const emailTaken = (email: string) =>
  new AppError('conflict', `A user with email ${email.trim().toLowerCase()} already exists`)

function checkWorkspaceName(name: string) {
  if (!name.trim()) throw invalid('The workspace needs a name')
  if (name.trim().length > MAX_NAME)
    throw invalid(`The workspace name must be at most ${MAX_NAME} characters`)
}

function checkCredits(amount: number | undefined) {
  if (amount !== undefined && (!Number.isSafeInteger(amount) || amount < 0))
    throw invalid('Credits must be a whole number, 0 or more')
}

/** A person inside a transaction that holds the people lock (the first one is the administrator). */
async function addPerson(
  tx: Db,
  clock: Clock,
  input: { email: string; name?: string },
  passwordHash: string,
) {
  if (await findUserByEmail(tx, input.email)) throw emailTaken(input.email)
  return insertUser(tx, { email: input.email, name: nameOf(input), passwordHash }, clock.now())
}

/** The first user, their workspace (with its opening credits) and a default API key, in one transaction. */
async function bootstrap(store: Store, clock: Clock, input: Parameters<Accounts['bootstrap']>[0]) {
  await checkNewUser(store.db, input.email, input.password, input.name)
  checkCredits(input.credits)
  checkWorkspaceName(input.workspace)
  const passwordHash = await hashPassword(input.password)
  const key = generateApiKey()
  return writeTransaction(store, async (tx) => {
    const now = clock.now()
    await lockPeople(tx, store.dialect)
    const { id: userId } = await addPerson(tx, clock, input, passwordHash)
    const workspaceId = await insertWorkspace(
      tx,
      { name: input.workspace.trim(), plan: input.plan ?? 'free' },
      now,
    )
    await addMember(tx, workspaceId, userId, 'owner', now)
    if (input.credits) await credit(tx, { workspaceId, amount: input.credits, reason: 'bootstrap' }, now)
    await insertApiKey(
      tx,
      { userId, defaultWorkspaceId: workspaceId, name: 'default', prefix: key.prefix, hash: key.hash },
      now,
    )
    return { userId, workspaceId, apiKey: key.key }
  })
}

/** The first-run owner from the setup page: only while nobody exists, and with the printed code if asked. */
async function setUpOwner(store: Store, clock: Clock, input: Parameters<Accounts['setUpOwner']>[0]) {
  await checkNewUser(store.db, input.email, input.password, input.name)
  checkWorkspaceName(input.workspace)
  const passwordHash = await hashPassword(input.password)
  return writeTransaction(store, async (tx) => {
    await lockPeople(tx, store.dialect)
    if (await anyPerson(tx))
      throw new AppError('conflict', 'This Herald already has its owner: sign in instead')
    if ('code' in input.access && !(await setupCodeMatches(tx, input.access.code)))
      throw new AppError('forbidden', 'That setup code does not match the one Herald printed at start')
    const now = clock.now()
    const { id: userId } = await addPerson(tx, clock, input, passwordHash)
    const workspaceId = await insertWorkspace(tx, { name: input.workspace.trim(), plan: 'free' }, now)
    await addMember(tx, workspaceId, userId, 'owner', now)
    return { userId, workspaceId }
  })
}

/** A key for a member, defaulting to the named workspace or their first. */
async function createKey(db: Db, clock: Clock, input: Parameters<Accounts['createKey']>[0]) {
  const user = await requireUser(db, input.email)
  const workspaces = await db
    .selectFrom('memberships')
    .select('workspace_id')
    .where('user_id', '=', user.id)
    .orderBy('workspace_id')
    .execute()
  const defaultWorkspaceId = input.workspaceId ?? workspaces[0]?.workspace_id
  if (!defaultWorkspaceId || !workspaces.some((w) => w.workspace_id === defaultWorkspaceId)) {
    throw notFound(
      input.workspaceId
        ? `${input.email} is not a member of workspace ${input.workspaceId}`
        : `${input.email} has no workspace`,
    )
  }
  const key = generateApiKey()
  const id = await insertApiKey(
    db,
    {
      userId: user.id,
      defaultWorkspaceId,
      name: input.name ?? 'cli',
      prefix: key.prefix,
      hash: key.hash,
    },
    clock.now(),
  )
  return { id, apiKey: key.key, prefix: key.prefix, defaultWorkspaceId }
}
