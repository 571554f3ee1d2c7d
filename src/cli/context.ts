import path from 'node:path'
import type { AppContext } from '../app-context.js'
import { createAccounts } from '../auth/accounts.js'
import { createRevocations } from '../auth/revocations.js'
import type { Config } from '../config.js'
import { createVault } from '../connect/vault.js'
import { systemClock } from '../lib/clock.js'
import type { Logger } from '../logger.js'
import { resolveSecretKey } from '../secret-key.js'
import { openStore } from '../store/db.js'

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

/** The whole application, for the commands that run tools, send events or reach the networks. */
export async function openAppContext(config: Config, logger: Logger): Promise<AppContext> {
  const { createAppContext } = await import('../app.js')
  return createAppContext(config, { logger })
}
