import path from 'node:path'
import { createAccounts } from '../../modules/accounts/accounts.js'
import { createRevocations } from '../../modules/accounts/revocations.js'
import type { AppContext } from '../../modules/app-context.js'
import { systemClock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import { resolveSecretKey } from '../../platform/crypto/secret-key.js'
import { createVault } from '../../platform/crypto/vault.js'
import { openStore } from '../../platform/db/db.js'
import { announceCopy } from '../../platform/db/sqlite-copy.js'
import type { Logger } from '../../platform/logger.js'

/**
 * What a command that reads or writes a few rows needs: the store and the accounts, opened without loading
 * the server, the adapters, the media pipeline or the OAuth provider, so such a command answers at once.
 */
export type StoreContext = Pick<AppContext, 'config' | 'logger' | 'store' | 'clock' | 'vault' | 'accounts'>

export async function openStoreContext(config: Config, logger: Logger): Promise<StoreContext> {
  const vault = createVault(resolveSecretKey(config.secretKey, config.dataDir, logger), config.oldSecretKeys)
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    poolSize: config.dbPoolSize,
    sqlitePath: path.join(config.dataDir, 'herald.sqlite'),
    vault,
    onCopyBeforeMigrating: (file) => announceCopy(logger, file),
  })
  const clock = systemClock
  return {
    config,
    logger,
    store,
    clock,
    vault,
    accounts: createAccounts(store, clock, createRevocations()),
  }
}
