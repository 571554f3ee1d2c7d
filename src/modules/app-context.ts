import type { NetworkAdapter } from '../adapters/adapter.js'
import type { Network } from '../core/networks.js'
import type { Clock, LeaseClock } from '../platform/clock.js'
import type { Config } from '../platform/config.js'
import type { StateSigner } from '../platform/crypto/state-tokens.js'
import type { Vault } from '../platform/crypto/vault.js'
import type { Store } from '../platform/db/db.js'
import type { Logger } from '../platform/logger.js'
import type { Metrics } from '../platform/metrics.js'
import type { Accounts } from './accounts/accounts.js'
import type { KeyAuthenticator } from './accounts/caller.js'
import type { RequestWindows } from './accounts/request-windows.js'
import type { Revocations } from './accounts/revocations.js'
import type { QueueSignal } from './delivery/queue-signal.js'
import type { MediaService } from './media/media-service.js'
import type { NetworkApps } from './network-apps/service.js'
import type { OAuthServer } from './oauth-server/service.js'

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
