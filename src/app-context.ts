import type { Accounts } from './auth/accounts.js'
import type { KeyAuthenticator } from './auth/caller.js'
import type { RequestWindows } from './auth/request-windows.js'
import type { Revocations } from './auth/revocations.js'
import type { Config } from './config.js'
import type { StateSigner } from './connect/state.js'
import type { Vault } from './connect/vault.js'
import type { Network } from './domain/networks.js'
import type { Clock, LeaseClock } from './lib/clock.js'
import type { Logger } from './logger.js'
import type { MediaService } from './media/media-service.js'
import type { NetworkApps } from './network-apps/service.js'
import type { NetworkAdapter } from './networks/adapter.js'
import type { OAuthServer } from './oauth/service.js'
import type { Store } from './store/db.js'
import type { Metrics } from './worker/metrics.js'
import type { QueueSignal } from './worker/queue-signal.js'

/** Every dependency, built once by the composition root (`createApp`) and handed to handlers. */
export interface AppContext {
  config: Config
  logger: Logger
  store: Store
  clock: Clock
  /** The clock leases are written and compared with: the database's own, unless the clock is a fake. */
  leaseClock: LeaseClock
  vault: Vault
  /** Signs and checks the connect flow's OAuth `state` (a key derived from the vault key). */
  signer: StateSigner
  accounts: Accounts
  keys: KeyAuthenticator
  /** Herald's own OAuth 2.1 authorization server (tokens for MCP clients and REST); absent in a worker. */
  oauth?: OAuthServer
  /** Revoked credentials, announced to the transports that hold sessions open (MCP SSE). */
  revocations: Revocations
  /** The API's request counts per credential (`HERALD_RATE_LIMIT_PER_MINUTE`), behind @fastify/rate-limit. */
  rateLimiter: RequestWindows
  /** One adapter per network this build can publish to. */
  adapters: Partial<Record<Network, NetworkAdapter>>
  /** The networks' developer apps (environment, then the network apps page); rebuilds adapters on a change. */
  networkApps: NetworkApps
  /** Worker measurements served at /metrics. */
  metrics: Metrics
  /** Wakes the worker and tells waiters when posts settle. */
  queue: QueueSignal
  /** Media pipeline: safe fetch, probe, convert, host, generate images (also the adapters' MediaPort). */
  media: MediaService
  /** Names of every registered tool (multicall validates against it before running anything). */
  toolNames: ReadonlySet<string>
}
