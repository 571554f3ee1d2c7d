import type { Config } from '../config.js'
import type { Network } from '../domain/networks.js'
import type { Clock } from '../lib/clock.js'
import type { Logger } from '../logger.js'
import type { NetworkAdapter } from './adapter.js'

/**
 * The adapters this build publishes through, pointed at the networks' real endpoints (or at the sandbox
 * simulators when HERALD_SANDBOX=1). A network without an adapter here fails its targets with a clear reason.
 */
export function createAdapters(
  _config: Config,
  _deps: { logger: Logger; clock: Clock },
): Partial<Record<Network, NetworkAdapter>> {
  return {}
}
