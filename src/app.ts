import path from 'node:path'
import type { AppContext } from './app-context.js'
import { createAccounts } from './auth/accounts.js'
import { createKeyAuthenticator } from './auth/caller.js'
import { createRequestWindows } from './auth/request-windows.js'
import { createRevocations } from './auth/revocations.js'
import type { Config } from './config.js'
import { createStateSigner } from './connect/state.js'
import { createVault } from './connect/vault.js'
import type { Network } from './domain/networks.js'
import { type Clock, type LeaseClock, leaseClockOf, systemClock } from './lib/clock.js'
import { createLogger, type Logger } from './logger.js'
import { createMediaService } from './media/media-service.js'
import { createNetworkApps, readSavedApps } from './network-apps/service.js'
import type { NetworkAdapter } from './networks/adapter.js'
import { createAdapter, createAdapters } from './networks/registry.js'
import { createOAuthServer, type OAuthServerDeps } from './oauth/service.js'
import { resolveSecretKey } from './secret-key.js'
import { openStore, type Store } from './store/db.js'
import { tools } from './tools/registry.js'
import { createMetrics } from './worker/metrics.js'
import { createQueueSignal } from './worker/queue-signal.js'

export interface AppOptions {
  logger?: Logger
  clock?: Clock
  /** The clock leases use; by default the database's own, or `clock` when that is not the system clock. */
  leaseClock?: LeaseClock
  /** An already-open store (tests); otherwise one is opened from the config. */
  store?: Store
  /** Adapters to publish through (tests); otherwise the real ones, built from the config. */
  adapters?: Partial<Record<Network, NetworkAdapter>>
  /** Test seam: how the OAuth server resolves and trusts a client ID metadata document's host. */
  oauthMetadataFetcher?: OAuthServerDeps['metadataFetcher']
}

/** The composition root: builds every dependency once. Choosing SQLite or Postgres happens here only. */
export async function createAppContext(config: Config, options: AppOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config.logLevel)
  const clock = options.clock ?? systemClock
  const secretKey = resolveSecretKey(config.secretKey, config.dataDir, logger)
  const vault = createVault(secretKey, config.oldSecretKeys)
  const store =
    options.store ??
    (await openStore({
      databaseUrl: config.databaseUrl,
      poolSize: config.dbPoolSize,
      sqlitePath: path.join(config.dataDir, 'herald.sqlite'),
      vault,
    }))
  const revocations = createRevocations()
  const media = createMediaService({ config, db: store.db, logger, now: () => clock.now() })
  // The apps saved on the network apps page, read once here; the adapters are built with them.
  const saved = await readSavedApps(store, vault, logger)
  const factory = { logger, clock, media }
  const adapters = options.adapters ?? createAdapters(config, factory, saved)
  const networkApps = createNetworkApps({
    config,
    store,
    vault,
    clock,
    logger,
    adapters,
    initial: saved,
    ...(options.adapters ? {} : { build: (network, apps) => createAdapter(network, config, factory, apps) }),
  })
  return {
    config,
    logger,
    store,
    clock,
    leaseClock: options.leaseClock ?? leaseClockOf(clock),
    vault,
    signer: createStateSigner(secretKey),
    oauth: createOAuthServer({
      config,
      db: store.db,
      clock,
      logger,
      secretKey,
      revocations,
      ...(options.oauthMetadataFetcher ? { metadataFetcher: options.oauthMetadataFetcher } : {}),
    }),
    accounts: createAccounts(store, clock, revocations),
    revocations,
    keys: createKeyAuthenticator(store.db, clock),
    rateLimiter: createRequestWindows(config.rateLimitPerMinute, clock),
    queue: createQueueSignal(),
    metrics: createMetrics(),
    adapters,
    networkApps,
    media,
    toolNames: new Set(tools.map((tool) => tool.name)),
  }
}
