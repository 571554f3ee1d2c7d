import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { type Credentials, type NetworkAdapter, PublishFailure } from '../../src/adapters/adapter.js'
import { revokeConnections } from '../../src/modules/accounts/revoke-access.js'
import { connectionCredentials, createVault } from '../../src/platform/crypto/vault.js'
import { createLogger } from '../../src/platform/logger.js'

const vault = createVault(randomBytes(32))

const sealed = (id: string, credentials: Credentials) => ({
  id,
  username: id,
  credentials: vault.sealJson(connectionCredentials(id), credentials),
})

/** A network whose revocations take `ms`, counting how many run at once and which tokens each was given. */
function slowNetwork(ms: number, fail?: (token: string) => PublishFailure | undefined) {
  const seen: string[] = []
  let running = 0
  let most = 0
  const adapter = {
    network: 'twitter',
    async revokeAccess(credentials: Credentials) {
      seen.push(credentials.refreshToken ?? credentials.accessToken)
      most = Math.max(most, ++running)
      await new Promise((resolve) => setTimeout(resolve, ms))
      running--
      const failure = fail?.(credentials.accessToken)
      if (failure) throw failure
    },
  } as unknown as NetworkAdapter
  return { adapter, seen, most: () => most }
}

describe('revoking connections before their tokens are deleted', () => {
  it('runs at most the given number of revocations at once and answers in the connections’ order', async () => {
    const net = slowNetwork(30)
    const connections = Array.from({ length: 9 }, (_, i) => ({
      ...sealed(`con_${i}`, { accessToken: `secret-access-${i}` }),
      platform: 'twitter',
    }))
    const answers = await revokeConnections(
      { vault, logger: createLogger('silent'), adapterFor: async () => net.adapter, concurrency: 3 },
      connections,
    )
    expect(net.most()).toBe(3)
    expect(answers.map((a) => [a.connectionId, a.outcome])).toEqual(connections.map((c) => [c.id, 'revoked']))
  })

  it('revokes a grant several profiles share once, and gives each of them its answer', async () => {
    const net = slowNetwork(1)
    const shared = { accessToken: 'ya29-shared', refreshToken: '1//shared' }
    const answers = await revokeConnections(
      { vault, logger: createLogger('silent'), adapterFor: async () => net.adapter },
      [
        { ...sealed('loc_a', shared), platform: 'googlebusiness' },
        { ...sealed('loc_b', shared), platform: 'googlebusiness' },
        {
          ...sealed('loc_c', { accessToken: 'other', refreshToken: '1//other' }),
          platform: 'googlebusiness',
        },
      ],
    )
    expect(net.seen).toEqual(['1//shared', '1//other'])
    expect(answers.map((a) => a.outcome)).toEqual(['revoked', 'revoked', 'revoked'])
  })

  it('reports a refusal, a network without revocation and unreadable tokens in words, never logging a token', async () => {
    const net = slowNetwork(1, (token) =>
      token === 'secret-refused'
        ? new PublishFailure('transient', 'X answered 503', { status: 503 })
        : undefined,
    )
    const lines: string[] = []
    const answers = await revokeConnections(
      {
        vault,
        logger: createLogger('info', { write: (line: string) => lines.push(line) }),
        adapterFor: async (network) =>
          network === 'twitter' ? net.adapter : ({ network } as unknown as NetworkAdapter),
      },
      [
        { ...sealed('con_refused', { accessToken: 'secret-refused' }), platform: 'twitter' },
        { ...sealed('con_bsky', { accessToken: 'secret-bsky' }), platform: 'bluesky' },
        { id: 'con_broken', username: 'broken', platform: 'twitter', credentials: 'not-a-sealed-value' },
      ],
    )
    expect(answers.map((a) => [a.outcome, a.reason])).toEqual([
      ['failed', 'X could not be reached or failed (503); remove Herald in its settings.'],
      ['not_offered', 'Bluesky does not let an app withdraw its own access: remove Herald in its settings.'],
      ['failed', 'Its stored tokens could not be opened, so nothing was sent.'],
    ])
    expect(lines.join('')).toContain('revoking access at the network failed')
    expect(lines.join('')).not.toContain('secret-')
  })
})
