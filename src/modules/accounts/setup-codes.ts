import { createHash } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import type { Db, Store } from '../../platform/db/db.js'
import { anyPerson, lockPeople } from '../../platform/db/statements/accounts.js'
import {
  deleteAllSetupCodes,
  deleteSetupCode,
  insertSetupCode,
  setupCodeHashes,
} from '../../platform/db/statements/setup-codes.js'
import { writeTransaction } from '../../platform/db/write-transaction.js'
import { type Logger, logDeliberately } from '../../platform/logger.js'
import { randomToken } from './sessions.js'

/**
 * The one-time setup code that guards a fresh instance's setup page (docs/security.md, "The setup page").
 *
 * Each process that serves the dashboard (`npm start`, `herald api`) makes one at start while the instance
 * has no person, and prints it once as the setup page's URL. Only its SHA-256 is stored, in the database
 * every process shares, so the page accepts a code whichever of several API processes printed it; a
 * worker-only process serves no dashboard and prints none. A code lasts until the owner exists (the
 * transaction that makes the first person deletes them all) or until the process that printed it stops.
 */

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex')

/** Makes and stores a code while no person exists (decided with people locked); undefined otherwise. */
export async function issueSetupCode(store: Store, now: number): Promise<string | undefined> {
  return writeTransaction(store, async (tx) => {
    await lockPeople(tx, store.dialect)
    if (await anyPerson(tx)) {
      await deleteAllSetupCodes(tx)
      return undefined
    }
    const code = randomToken(18)
    await insertSetupCode(tx, hashOf(code), now)
    return code
  })
}

/** A stopping process takes its code with it. */
export async function withdrawSetupCode(db: Db, code: string): Promise<void> {
  await deleteSetupCode(db, hashOf(code))
}

/**
 * True when `code` is one of the stored codes. Compared in constant time against every stored hash, so
 * neither the time taken nor an early exit tells how much of a guess matched.
 */
export async function setupCodeMatches(db: Db, code: string): Promise<boolean> {
  if (code === '') return false
  const sent = hashOf(code)
  let matches = false
  for (const stored of await setupCodeHashes(db)) matches = safeEqual(sent, stored) || matches
  return matches
}

/** The setup page's address with the code, as the start line prints it. */
export const setupUrl = (publicBaseUrl: string, code: string) =>
  `${publicBaseUrl}/setup?code=${encodeURIComponent(code)}`

/**
 * At the start of a process that serves the dashboard: while no person exists, one log line with the URL
 * to open (the code in it on purpose: this line is how the operator gets it). Answers the code, so the
 * process withdraws it when it stops.
 */
export async function announceSetup(deps: {
  store: Store
  clock: Clock
  logger: Logger
  publicBaseUrl: string
}): Promise<string | undefined> {
  const code = await issueSetupCode(deps.store, deps.clock.now())
  if (!code) return undefined
  logDeliberately(
    deps.logger,
    { setup: `${deps.publicBaseUrl}/setup` },
    `Open ${setupUrl(deps.publicBaseUrl, code)} to create the owner`,
  )
  return code
}
