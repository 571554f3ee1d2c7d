import type { Credentials, NetworkAdapter } from '../../adapters/adapter.js'
import { PublishFailure } from '../../adapters/adapter.js'
import { isNetwork, networkLabels } from '../../core/networks.js'
import { connectionCredentials, type Vault } from '../../platform/crypto/vault.js'
import type { Logger } from '../../platform/logger.js'

/**
 * Withdrawing Herald's access at the networks before its tokens are deleted (a workspace deleted with its
 * data). Best effort: each connection's tokens are opened and handed to its network's `revokeAccess`, a few
 * at a time and each with a short deadline; a network that refuses, fails or does not answer in time is
 * reported in words and stops nothing. Tokens never leave this module except towards their own network.
 */

/** How long one network is given to confirm a revocation: a deletion waits for the slowest. */
export const REVOKE_TIMEOUT_MS = 10_000

/** Revocations in flight at once, over all networks. */
export const REVOKE_CONCURRENCY = 4

/** What became of one connection's access at its network. */
export type RevocationOutcome =
  /** The network confirmed: the tokens no longer work there. */
  | 'revoked'
  /** The network offers no way for an app to withdraw its own access. */
  | 'not_offered'
  /** The network refused, failed or did not answer in time; `reason` says which. */
  | 'failed'

export interface ConnectionRevocation {
  connectionId: string
  platform: string
  username: string
  outcome: RevocationOutcome
  /** Why it failed, or what the person does instead, in words (no token, no API names). */
  reason?: string
}

export interface RevokeDeps {
  vault: Vault
  logger: Logger
  /** The network's adapter as it is now (its app may have changed since the process started). */
  adapterFor(network: string): Promise<NetworkAdapter | undefined>
  /** Test seams; default {@link REVOKE_TIMEOUT_MS} and {@link REVOKE_CONCURRENCY}. */
  timeoutMs?: number
  concurrency?: number
}

export interface RevocableConnection {
  id: string
  platform: string
  username: string
  /** The sealed tokens as stored. */
  credentials: string
}

/**
 * Revokes every connection's access, at most `concurrency` calls at once; the answers in the connections'
 * order. Connections holding the same grant (a Google account's locations, chosen from one sign-in) are
 * revoked once and share the answer: a second call would be refused for a grant already ended.
 */
export async function revokeConnections(
  deps: RevokeDeps,
  connections: readonly RevocableConnection[],
): Promise<ConnectionRevocation[]> {
  const planned = await Promise.all(connections.map((connection) => plan(deps, connection)))
  const calls = new Map<string, Extract<Planned, { kind: 'call' }>>()
  for (const entry of planned)
    if (entry.kind === 'call' && !calls.has(entry.grant)) calls.set(entry.grant, entry)
  const answers = new Map<string, Answer>()
  const queue = [...calls.values()]
  const lane = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift())
      answers.set(entry.grant, await revokeGrant(deps, entry))
  }
  const lanes = Math.max(1, Math.min(deps.concurrency ?? REVOKE_CONCURRENCY, queue.length))
  await Promise.all(Array.from({ length: lanes }, lane))
  return connections.map((connection, index) => {
    const entry = planned[index]!
    const base = { connectionId: connection.id, platform: connection.platform, username: connection.username }
    return { ...base, ...(entry.kind === 'call' ? answers.get(entry.grant)! : entry.answer) }
  })
}

type Answer = Pick<ConnectionRevocation, 'outcome' | 'reason'>
type Planned =
  | { kind: 'answered'; answer: Answer }
  | {
      kind: 'call'
      grant: string
      revoke: NonNullable<NetworkAdapter['revokeAccess']>
      credentials: Credentials
      connection: RevocableConnection
    }

/** What a connection needs: no call (the network offers none, the tokens do not open), or a call for its grant. */
async function plan(deps: RevokeDeps, connection: RevocableConnection): Promise<Planned> {
  const adapter = await deps.adapterFor(connection.platform)
  if (!adapter?.revokeAccess)
    return {
      kind: 'answered',
      answer: {
        outcome: 'not_offered',
        reason: `${networkName(connection.platform)} does not let an app withdraw its own access: remove Herald in its settings.`,
      },
    }
  let credentials: Credentials
  try {
    credentials = deps.vault.openJson<Credentials>(
      connectionCredentials(connection.id),
      connection.credentials,
    )
  } catch {
    return {
      kind: 'answered',
      answer: { outcome: 'failed', reason: 'Its stored tokens could not be opened, so nothing was sent.' },
    }
  }
  const grant = `${connection.platform}\n${credentials.refreshToken ?? credentials.accessToken}`
  return { kind: 'call', grant, revoke: adapter.revokeAccess.bind(adapter), credentials, connection }
}

async function revokeGrant(deps: RevokeDeps, entry: Extract<Planned, { kind: 'call' }>): Promise<Answer> {
  const timeoutMs = deps.timeoutMs ?? REVOKE_TIMEOUT_MS
  const deadline = AbortSignal.timeout(timeoutMs)
  try {
    await entry.revoke(entry.credentials, deadline)
    return { outcome: 'revoked' }
  } catch (error) {
    // The failure's kind and code only: a network's message could quote what was sent.
    deps.logger.warn(
      {
        subsystem: 'revoke',
        connectionId: entry.connection.id,
        network: entry.connection.platform,
        kind: error instanceof PublishFailure ? error.kind : undefined,
        code: error instanceof PublishFailure ? error.options.code : undefined,
      },
      'revoking access at the network failed; the deletion goes on',
    )
    const reason = deadline.aborted
      ? `${networkName(entry.connection.platform)} did not confirm within ${Math.round(timeoutMs / 1000)} s; remove Herald in its settings.`
      : failureInWords(error, entry.connection.platform)
    return { outcome: 'failed', reason }
  }
}

/** What a person reads about a revocation that did not happen. */
function failureInWords(error: unknown, platform: string): string {
  const name = networkName(platform)
  if (!(error instanceof PublishFailure)) return `${name} failed unexpectedly; remove Herald in its settings.`
  if (error.options.code === 'no_app')
    return `Herald is no longer registered on that ${name} server, so nothing could be sent; remove Herald in its settings.`
  switch (error.kind) {
    case 'auth_expired':
      return `${name} no longer accepted these tokens (they may have been withdrawn already); check its settings.`
    case 'rate_limited':
      return `${name} asked Herald to slow down; remove Herald in its settings.`
    default:
      return `${name} could not be reached or failed (${error.options.status ?? error.options.code ?? 'no answer'}); remove Herald in its settings.`
  }
}

const networkName = (platform: string) => (isNetwork(platform) ? networkLabels[platform] : platform)
