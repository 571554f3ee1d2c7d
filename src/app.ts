import path from 'node:path'
import type { NetworkAdapter } from './adapters/adapter.js'
import { createAdapter, createAdapters } from './adapters/registry.js'
import type { Network } from './core/networks.js'
import { tools } from './interfaces/tools/registry.js'
import { createAccounts } from './modules/accounts/accounts.js'
import { createKeyAuthenticator } from './modules/accounts/caller.js'
import { createRequestWindows } from './modules/accounts/request-windows.js'
import { createRevocations } from './modules/accounts/revocations.js'
import type { AppContext } from './modules/app-context.js'
import { revocationApp } from './modules/connections/mastodon-instances.js'
import { createQueueSignal } from './modules/delivery/queue-signal.js'
import { createMediaService } from './modules/media/media-service.js'
import { createNetworkApps, readSavedApps } from './modules/network-apps/service.js'
import { createOAuthServer, type OAuthServerDeps } from './modules/oauth-server/service.js'
import { type Clock, type LeaseClock, leaseClockOf, systemClock } from './platform/clock.js'
import type { Config } from './platform/config.js'
import { resolveSecretKey } from './platform/crypto/secret-key.js'
import { createStateSigner } from './platform/crypto/state-tokens.js'
import { createVault } from './platform/crypto/vault.js'
import { openStore, type Store } from './platform/db/db.js'
import { announceCopy } from './platform/db/sqlite-copy.js'
import { createLogger, type Logger } from './platform/logger.js'
import { createMetrics } from './platform/metrics.js'

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
      onCopyBeforeMigrating: (file) => announceCopy(logger, file),
    }))
  const revocations = createRevocations()
  const media = createMediaService({ config, db: store.db, logger, now: () => clock.now() })
  // The apps saved on the network apps page, read once here; the adapters are built with them.
  const saved = await readSavedApps(store, vault, logger)
  const factory = {
    logger,
    clock,
    media,
    mastodonApps: (host: string) => revocationApp({ db: store.db, vault }, host),
  }
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
