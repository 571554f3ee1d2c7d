import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { twitterScopes } from '../../src/adapters/twitter/index.js'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { createNetworkApps } from '../../src/modules/network-apps/service.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * The X app's secret is replaced (regenerated in X's portal, saved on the network apps page by another
 * Herald process) while this process's worker still holds the adapter built with the old one. A profile
 * whose token is about to expire must be refreshed with the new secret, not marked for reconnecting.
 */
describe('a token refresh after the app’s secret was replaced in another process', () => {
  let h: Harness
  let worker: Worker
  beforeAll(async () => {
    h = await startHarness({ sandbox: true, env: { HERALD_IMMEDIATE_WAIT_MS: '30000' } })
    worker = createAppWorker(h.app, { id: 'apps-worker' })
    worker.start()
  })
  afterAll(async () => {
    await worker.stop()
    await h.close()
  })

  it('refreshes with the new secret and publishes, the profile staying healthy', async () => {
    const x = h.sandboxes!.twitter
    x.registerClient({ clientId: 'acme-x-app', clientSecret: 'secret-one' })
    await h.app.networkApps.save('twitter', { clientId: 'acme-x-app', clientSecret: 'secret-one' }, h.userId)
    const tokens = x.issueTokens({ username: 'rotating', clientId: 'acme-x-app', scopes: [...twitterScopes] })
    const soon = Date.now() + 60_000
    await upsertConnection(
      h.app.store.db,
      {
        workspaceId: h.workspaceId,
        platform: 'twitter',
        profileId: tokens.user.id,
        username: 'rotating',
        name: 'Rotating',
        isOrganization: false,
        sealCredentials: (id) =>
          h.app.vault.sealJson(connectionCredentials(id), {
            accessToken: tokens.access_token,
            refreshToken: tokens.refresh_token,
            expiresAt: soon,
          }),
        scopes: [...twitterScopes],
        tokenExpiresAt: soon,
      },
      Date.now(),
    )

    // X now knows only the new secret; another process saves it; this one has not looked since.
    x.registerClient({ clientId: 'acme-x-app', clientSecret: 'secret-two' })
    const elsewhere = createNetworkApps({
      config: h.app.config,
      store: h.app.store,
      vault: h.app.vault,
      clock: h.app.clock,
      logger: h.app.logger,
      adapters: {},
      initial: {},
    })
    await elsewhere.save('twitter', { clientId: 'acme-x-app', clientSecret: 'secret-two' }, h.userId)
    expect(h.app.networkApps.saved().twitter?.clientSecret).toBe('secret-one')

    const { status, body } = await h.call('create_post', {
      content: 'Published after the secret changed',
      platforms: ['twitter'],
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts[0].status, JSON.stringify(body.posts[0])).toBe('published')
    // What X holds: the post, once, by that profile.
    const posts = (await (await fetch(`${h.baseUrl}/sandbox/twitter/_sandbox/tweets`)).json()) as {
      text: string
      username: string
    }[]
    expect(posts.filter((p) => p.text === 'Published after the secret changed')).toHaveLength(1)
    const row = await h.app.store.db
      .selectFrom('connections')
      .select(['status', 'last_error'])
      .where('username', '=', 'rotating')
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ status: 'active', last_error: null })
  })
})
