import { createHash } from 'node:crypto'
import type { NetworkAdapter } from '../../adapters/adapter.js'
import {
  type AppNetwork,
  appNetworks,
  canConnect,
  type ResolvedApp,
  resolveApp,
  type SavedApps,
} from '../../adapters/apps.js'
import { adapterSettings } from '../../adapters/registry.js'
import type { Network } from '../../core/networks.js'
import type { Clock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import { networkAppSecretAt, type Vault, VaultError } from '../../platform/crypto/vault.js'
import type { Store } from '../../platform/db/db.js'
import {
  deleteNetworkApp,
  listNetworkAppRows,
  type SecretChange,
  writeNetworkApp,
} from '../../platform/db/statements/network-apps.js'
import { invalid } from '../../platform/errors.js'
import type { Logger } from '../../platform/logger.js'
import { type AppCheck, checkApp } from './check.js'

/**
 * The developer apps of the network apps page: saved in the database (the secret sealed by the vault),
 * resolved against the environment (which wins), and handed to the adapters. An adapter is built with its
 * app; when an app changes, {@link NetworkApps.refresh} builds that network's adapter again in the shared
 * adapter record, so the connect flow, the worker and the tools all sign in with the app in force. Every
 * process refreshes on each connect, before each token refresh ({@link NetworkApps.adapterFor}) and every
 * minute (src/main.ts), so a change made in one process reaches the others.
 */
export interface NetworkApps {
  /** The saved apps as last read (at boot, after a change here, or at the last refresh). */
  saved(): SavedApps
  /** Reads the saved apps again and builds again the adapter of every network whose app changed. */
  refresh(): Promise<SavedApps>
  /** The app a network signs in with now (see {@link resolveApp}). */
  resolve(network: Network): ResolvedApp | undefined
  /** The network's adapter with the app in force now (the saved apps read again first). */
  adapterFor(network: string): Promise<NetworkAdapter | undefined>
  canConnect(network: Network): boolean
  /** What the page shows of each saved app: never the secret, only whether one is set. */
  records(): Promise<Partial<Record<AppNetwork, SavedAppRecord>>>
  save(network: AppNetwork, input: AppInput, by: string): Promise<void>
  remove(network: AppNetwork): Promise<boolean>
  /** Asks the network whether the app in force is one it knows, where it offers a safe way to ask. */
  check(network: AppNetwork): Promise<AppCheck>
}

export interface AppInput {
  clientId: string
  /** Empty: keep the stored secret (while the client id stays the same). */
  clientSecret: string
  communityManagement?: boolean
  /** TikTok: TikTok has audited the app. */
  audited?: boolean
}

export interface SavedAppRecord {
  clientId: string
  secretSet: boolean
  /** The stored secret does not open with the configured vault keys: it must be entered again. */
  unreadable: boolean
  communityManagement: boolean
  audited: boolean
  updatedAt: number
}

export interface NetworkAppsDeps {
  config: Config
  store: Store
  vault: Vault
  clock: Clock
  logger: Logger
  /** The adapter record every part of Herald reads (`app.adapters`). */
  adapters: Partial<Record<Network, NetworkAdapter>>
  /** Builds a network's adapter with these apps; absent when the adapters were given (tests' scripted ones). */
  build?: (network: Network, saved: SavedApps) => NetworkAdapter
  /** The apps as read at boot (see {@link readSavedApps}). */
  initial: SavedApps
}

/** X's apps may be public (no secret); every other network's app has one. */
export const secretRequired = (network: AppNetwork) => network !== 'twitter'

const PRINTABLE = /^[\x21-\x7e]+$/

function parseOptions(text: string): { communityManagement?: boolean; audited?: boolean } {
  try {
    const value = JSON.parse(text) as { communityManagement?: unknown; audited?: unknown }
    return {
      ...(value.communityManagement === true ? { communityManagement: true } : {}),
      ...(value.audited === true ? { audited: true } : {}),
    }
  } catch {
    return {}
  }
}

/** What else an app was registered with, as the row keeps it. */
const optionsOf = (network: AppNetwork, input: AppInput) =>
  network === 'linkedin' && input.communityManagement
    ? { communityManagement: true }
    : network === 'tiktok' && input.audited
      ? { audited: true }
      : {}

/**
 * The saved apps with their secrets opened. A secret that does not open (sealed under a key that is no longer
 * configured, or copied from elsewhere) leaves that network without its saved app, and the page says so.
 */
export async function readSavedApps(store: Store, vault: Vault, logger?: Logger): Promise<SavedApps> {
  const saved: SavedApps = {}
  for (const row of await listNetworkAppRows(store.db)) {
    if (!(appNetworks as readonly string[]).includes(row.id)) continue
    const network = row.id as AppNetwork
    let clientSecret: string | undefined
    if (row.client_secret !== null) {
      try {
        clientSecret = vault.open(networkAppSecretAt(network), row.client_secret)
      } catch (error) {
        if (!(error instanceof VaultError)) throw error
        logger?.warn(
          { subsystem: 'network-apps', network, reason: error.reason },
          'saved app secret unreadable',
        )
        continue
      }
    }
    saved[network] = { clientId: row.client_id, clientSecret, ...parseOptions(row.options) }
  }
  return saved
}

/** The form's values checked (a 400 naming the problem otherwise), the new secret sealed for its row. */
function readInput(vault: Vault, network: AppNetwork, input: AppInput) {
  const clientId = input.clientId.trim()
  const clientSecret = input.clientSecret.trim()
  if (!clientId) throw invalid('Enter the app’s client ID.')
  if (clientId.length > 200 || !PRINTABLE.test(clientId))
    throw invalid('The client ID is up to 200 letters, digits and signs, without spaces.')
  if (clientSecret && (clientSecret.length > 500 || !PRINTABLE.test(clientSecret)))
    throw invalid('The client secret is up to 500 letters, digits and signs, without spaces.')
  const secret: SecretChange = clientSecret
    ? { kind: 'new', sealed: vault.seal(networkAppSecretAt(network), clientSecret) }
    : { kind: 'keep' }
  return { clientId, secret }
}

/** A digest of what an adapter is built from, so a change of app (and only that) builds it again. */
const fingerprint = (config: Config, network: Network, saved: SavedApps) =>
  createHash('sha256')
    .update(JSON.stringify(adapterSettings(config, network, saved)))
    .digest('hex')

export function createNetworkApps(deps: NetworkAppsDeps): NetworkApps {
  const { config, store, vault } = deps
  let current = deps.initial
  const built = new Map<Network, string>(
    appNetworks.map((network) => [network, fingerprint(config, network, current)]),
  )

  const adopt = (saved: SavedApps) => {
    current = saved
    if (!deps.build) return saved
    for (const network of appNetworks) {
      const print = fingerprint(config, network, saved)
      if (built.get(network) === print) continue
      deps.adapters[network] = deps.build(network, saved)
      built.set(network, print)
      deps.logger.info({ subsystem: 'network-apps', network }, 'network app changed: adapter rebuilt')
    }
    return saved
  }
  const refresh = async () => adopt(await readSavedApps(store, vault, deps.logger))

  return {
    saved: () => current,
    refresh,
    resolve: (network) => resolveApp(config, network, current),
    async adapterFor(network) {
      await refresh()
      return deps.adapters[network as Network]
    },
    canConnect: (network) => canConnect(config, network, current),

    async records() {
      const records: Partial<Record<AppNetwork, SavedAppRecord>> = {}
      for (const row of await listNetworkAppRows(store.db)) {
        if (!(appNetworks as readonly string[]).includes(row.id)) continue
        const network = row.id as AppNetwork
        let unreadable = false
        if (row.client_secret !== null) {
          try {
            vault.open(networkAppSecretAt(network), row.client_secret)
          } catch {
            unreadable = true
          }
        }
        records[network] = {
          clientId: row.client_id,
          secretSet: row.client_secret !== null,
          unreadable,
          communityManagement: parseOptions(row.options).communityManagement === true,
          audited: parseOptions(row.options).audited === true,
          updatedAt: row.updated_at,
        }
      }
      return records
    },

    async save(network, input, by) {
      const { clientId, secret } = readInput(vault, network, input)
      const outcome = await writeNetworkApp(store, {
        id: network,
        clientId,
        secret,
        secretRequired: secretRequired(network),
        options: JSON.stringify(optionsOf(network, input)),
        updatedBy: by,
        now: deps.clock.now(),
      })
      if (outcome === 'secret_needed')
        throw invalid('Enter the client secret too: a new client ID comes with its own secret.')
      deps.logger.info({ subsystem: 'network-apps', network, by }, 'network app saved')
      await refresh()
    },

    async remove(network) {
      const removed = await deleteNetworkApp(store.db, network)
      if (removed) deps.logger.info({ subsystem: 'network-apps', network }, 'network app removed')
      await refresh()
      return removed
    },

    async check(network) {
      await refresh()
      const result = await checkApp(config, network, current)
      deps.logger.info(
        { subsystem: 'network-apps', network, outcome: result.outcome, status: result.status },
        'network app checked',
      )
      return result
    },
  }
}
