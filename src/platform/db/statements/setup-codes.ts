import type { Db } from '../db.js'

/**
 * The one-time setup codes of a fresh instance, as SHA-256 hashes (src/modules/accounts/setup-codes.ts makes and
 * checks them). Every person-inserting transaction that makes the first person deletes them all
 * (src/platform/db/statements/accounts.ts `insertUser`).
 */

export async function insertSetupCode(db: Db, codeHash: string, now: number): Promise<void> {
  await db.insertInto('setup_codes').values({ code_hash: codeHash, created_at: now }).execute()
}

export async function setupCodeHashes(db: Db): Promise<string[]> {
  return (await db.selectFrom('setup_codes').select('code_hash').execute()).map((row) => row.code_hash)
}

export async function deleteSetupCode(db: Db, codeHash: string): Promise<void> {
  await db.deleteFrom('setup_codes').where('code_hash', '=', codeHash).execute()
}

/** Codes printed before a person existed and never used (the person came from the CLI): of no use now. */
export async function deleteAllSetupCodes(db: Db): Promise<void> {
  await db.deleteFrom('setup_codes').execute()
}
