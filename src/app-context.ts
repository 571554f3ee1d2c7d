import type { Accounts } from './auth/accounts.js'
import type { KeyAuthenticator } from './auth/caller.js'
import type { RateLimiter } from './auth/rate-limit.js'
import type { Config } from './config.js'
import type { Vault } from './connect/vault.js'
import type { Clock } from './lib/clock.js'
import type { Logger } from './logger.js'
import type { Store } from './store/db.js'
import type { QueueSignal } from './worker/queue-signal.js'

/** Every dependency, built once by the composition root (`createApp`) and handed to handlers. */
export interface AppContext {
  config: Config
  logger: Logger
  store: Store
  clock: Clock
  vault: Vault
  accounts: Accounts
  keys: KeyAuthenticator
  rateLimiter: RateLimiter
  /** Wakes the worker and tells waiters when posts settle. */
  queue: QueueSignal
  /** Names of every registered tool (multicall validates against it before running anything). */
  toolNames: ReadonlySet<string>
}
