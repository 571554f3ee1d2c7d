import { describe, expect, it } from 'vitest'
import type { NetworkAdapter } from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'
import { deleteWorkspace } from '../../src/modules/accounts/delete-workspace.js'
import { useFaultRig } from '../helpers/fault-rig.js'
import { before500 } from '../helpers/fault-script.js'

const kindOf = async (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'worked',
    (error: { kind?: string }) => error.kind ?? 'thrown',
  )

/**
 * Deleting a workspace withdraws Herald's access at each network that allows it before the rows and tokens
 * go, counted at the simulators: a revoked token no longer works there; a network that fails, or does not
 * answer in time, is reported and stops nothing; a network that offers no revocation says so.
 */
describe('deleting a workspace revokes its connections at the networks first', () => {
  const rig = useFaultRig([
    { network: 'twitter', username: 'gone_twitter' },
    { network: 'mastodon', username: 'gone@instance.example' },
    { network: 'googlebusiness', username: 'gone_business' },
    { network: 'tiktok', username: 'kept_tiktok' },
    { network: 'youtube', username: 'slow@example.com' },
    { network: 'bluesky', username: 'gone.bsky.social' },
  ])
  const adapter = (network: Network) => rig.h.app.adapters[network] as NetworkAdapter
  const works = (network: Network) =>
    kindOf(adapter(network).resolveProfile(rig.profile(network).credentials))

  it('revokes where it can, reports each profile, and still deletes every row', async () => {
    const { app, workspaceId } = rig.h
    const name = (
      await app.store.db
        .selectFrom('workspaces')
        .select('name')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).name
    for (const network of ['twitter', 'mastodon', 'googlebusiness', 'tiktok', 'youtube'] as const)
      expect(await works(network), network).toBe('worked')
    rig.script.on({ network: 'tiktok', operation: 'oauth/revoke' }, before500)
    rig.script.on({ network: 'youtube', operation: 'revoke' }, { timing: 'before', answer: { kind: 'hang' } })

    const done = await deleteWorkspace(
      {
        ...app,
        storage: app.media.storage,
        adapterFor: async (network) => app.adapters[network as Network],
        timeoutMs: 2000,
      },
      { workspaceId, confirmName: name },
    )

    const outcomes = Object.fromEntries(done.connections.map((c) => [c.platform, c]))
    expect(outcomes.twitter!.outcome).toBe('revoked')
    expect(outcomes.mastodon!.outcome).toBe('revoked')
    expect(outcomes.googlebusiness!.outcome).toBe('revoked')
    expect(outcomes.tiktok).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(/^TikTok .*500/),
    })
    expect(outcomes.youtube).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(/^YouTube did not confirm within 2 s/),
    })
    expect(outcomes.bluesky).toMatchObject({
      outcome: 'not_offered',
      reason: expect.stringMatching(/^Bluesky does not let an app withdraw its own access/),
    })
    // The oracle is the networks: the revoked tokens are refused there, the failed ones still work.
    expect(await works('twitter')).toBe('auth_expired')
    expect(await works('mastodon')).toBe('auth_expired')
    expect(await works('googlebusiness')).toBe('auth_expired')
    expect(await works('tiktok')).toBe('worked')
    expect(await works('youtube')).toBe('worked')
    // Herald's rows went all the same, tokens with them.
    const db = app.store.db
    expect(
      await db.selectFrom('connections').select('id').where('workspace_id', '=', workspaceId).execute(),
    ).toEqual([])
    expect(await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).execute()).toEqual([])
    // No token reached the logs.
    for (const network of ['twitter', 'tiktok', 'youtube'] as const)
      expect(rig.h.logs.join('\n')).not.toContain(rig.profile(network).credentials.accessToken)
  }, 30_000)
})
