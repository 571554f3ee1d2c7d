import { describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import { useFaultRig } from '../helpers/fault-rig.js'
import { before500 } from '../helpers/fault-script.js'
import { connectSandboxProfile } from '../helpers/sandbox-adapters.js'

/** The simulator's name for each network's revocation call. */
const revokeOperation: Partial<Record<Network, string>> = {
  twitter: 'oauth2Revoke',
  youtube: 'revoke',
  googlebusiness: 'revoke',
  tiktok: 'oauth/revoke',
  mastodon: 'revoke',
}

const offering = Object.keys(revokeOperation) as Network[]

/** A user name each simulator accepts: a handle on an instance, an e-mail for YouTube, a plain name elsewhere. */
const nameOn = (network: Network, who: string) =>
  network === 'mastodon'
    ? `${who}@instance.example`
    : network === 'youtube'
      ? `${who}@example.com`
      : `${who}_${network}`

const kindOf = async (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'worked',
    (error: { kind?: string }) => error.kind ?? 'thrown',
  )

/**
 * Each network that documents a revocation endpoint, against its simulator: after `revokeAccess` the
 * tokens Herald held no longer work there (the profile lookup and the refresh are refused), and a fault on
 * the revocation call is a failure that leaves the tokens working.
 */
describe('withdrawing Herald’s access at the networks', () => {
  const rig = useFaultRig([
    ...offering.map((network) => ({
      network,
      username: nameOn(network, 'revoked'),
    })),
  ])
  const adapter = (network: Network) => rig.h.app.adapters[network] as NetworkAdapter

  it.each(offering)('revokes on %s, after which the token no longer works there', async (network) => {
    const who = rig.profile(network)
    expect(await kindOf(adapter(network).resolveProfile(who.credentials))).toBe('worked')
    await adapter(network).revokeAccess!(who.credentials, AbortSignal.timeout(10_000))
    expect(
      rig.script.calls.filter(
        (call) => call.network === network && call.operation === revokeOperation[network],
      ),
    ).not.toHaveLength(0)
    expect(await kindOf(adapter(network).resolveProfile(who.credentials))).toBe('auth_expired')
    // Mastodon has no refresh; elsewhere the refresh token went with the grant.
    if (who.credentials.refreshToken)
      expect(await kindOf(adapter(network).refresh(who.credentials))).toBe('auth_expired')
  })

  it.each(offering)(
    'reports a revocation %s fails as a failure, and the token keeps working',
    async (network) => {
      const who = await connectSandboxProfile(rig.h, network, nameOn(network, 'kept'))
      rig.script.on({ network, operation: revokeOperation[network] }, before500)
      expect(await kindOf(adapter(network).revokeAccess!(who.credentials, AbortSignal.timeout(10_000)))).toBe(
        'transient',
      )
      expect(await kindOf(adapter(network).resolveProfile(who.credentials))).toBe('worked')
    },
  )

  it.each(['facebook', 'instagram', 'linkedin', 'threads', 'bluesky', 'pinterest'] as const)(
    'offers no revocation on %s, whose reference documents none Herald can use',
    (network) => {
      expect(adapter(network).revokeAccess).toBeUndefined()
    },
  )
})
