import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Adapters, createAdapter, createAdapters } from '../../src/adapters/registry.js'
import type { MediaPort } from '../../src/core/media-port.js'
import { createNetworkApps, type NetworkApps, readSavedApps } from '../../src/modules/network-apps/service.js'
import { systemClock } from '../../src/platform/clock.js'
import { type Config, loadConfig } from '../../src/platform/config.js'
import { createVault, networkAppSecretAt } from '../../src/platform/crypto/vault.js'
import type { Store } from '../../src/platform/db/db.js'
import { createLogger } from '../../src/platform/logger.js'
import { backends } from '../helpers/backends.js'

const media: MediaPort = {
  prepare: async () => {
    throw new Error('not used')
  },
}
const key = Buffer.alloc(32, 9)
const factory = { logger: createLogger('silent'), clock: systemClock, media }

/** The client id an adapter puts in its authorize URL: what the network is told the app is. */
const clientIdOf = (adapters: Adapters, network: 'twitter' | 'linkedin') =>
  new URL(
    adapters[network]!.oauth!.authorizeUrl({
      state: 's',
      codeChallenge: 'c',
      redirectUri: 'https://herald.example.com/connect/x/callback',
    }),
  ).searchParams.get('client_id')

function service(store: Store, config: Config, adapters: Adapters): NetworkApps {
  return createNetworkApps({
    config,
    store,
    vault: createVault(key),
    clock: systemClock,
    logger: factory.logger,
    adapters,
    initial: {},
    build: (network, saved) => createAdapter(network, config, factory, saved),
  })
}

describe.each(backends)('network apps saved in the database on $name', (backend) => {
  let store: Store
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://herald.example.com' })
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('stores the secret sealed for its row, never as the plaintext, and reads it back', async () => {
    const apps = service(store, config, createAdapters(config, factory))
    await apps.save('youtube', { clientId: 'g-client.apps', clientSecret: 'GOCSPX-plain-secret' }, 'u1')
    const row = await store.db
      .selectFrom('network_apps')
      .selectAll()
      .where('id', '=', 'youtube')
      .executeTakeFirstOrThrow()
    expect(row.client_id).toBe('g-client.apps')
    expect(row.client_secret).not.toContain('GOCSPX-plain-secret')
    expect(row.client_secret).toMatch(/^v2\./)
    const vault = createVault(key)
    expect(vault.open(networkAppSecretAt('youtube'), row.client_secret!)).toBe('GOCSPX-plain-secret')
    // Bound to its place: the same ciphertext does not open as another network's secret.
    expect(() => vault.open(networkAppSecretAt('linkedin'), row.client_secret!)).toThrow()
    expect((await readSavedApps(store, vault)).youtube).toEqual({
      clientId: 'g-client.apps',
      clientSecret: 'GOCSPX-plain-secret',
    })
    const records = await apps.records()
    expect(records.youtube).toMatchObject({ clientId: 'g-client.apps', secretSet: true, unreadable: false })
    expect(JSON.stringify(records)).not.toContain('GOCSPX-plain-secret')
  })

  it('keeps the stored secret when it is left empty for the same client id, and asks for one for a new id', async () => {
    const apps = service(store, config, createAdapters(config, factory))
    await apps.save('linkedin', { clientId: 'li-1', clientSecret: 'li-secret-1' }, 'u1')
    await apps.save('linkedin', { clientId: 'li-1', clientSecret: '', communityManagement: true }, 'u1')
    expect(apps.saved().linkedin).toEqual({
      clientId: 'li-1',
      clientSecret: 'li-secret-1',
      communityManagement: true,
    })
    await expect(apps.save('linkedin', { clientId: 'li-2', clientSecret: '' }, 'u1')).rejects.toThrow(
      /secret too/,
    )
    // Nothing changed.
    expect((await readSavedApps(store, createVault(key))).linkedin?.clientId).toBe('li-1')
    // X allows a public app: a new id without a secret drops the old app's secret.
    await apps.save('twitter', { clientId: 'x-1', clientSecret: 'x-secret' }, 'u1')
    await apps.save('twitter', { clientId: 'x-public', clientSecret: '' }, 'u1')
    expect(apps.saved().twitter).toEqual({ clientId: 'x-public', clientSecret: undefined })
  })

  it.each([
    ['an empty client id', { clientId: '  ', clientSecret: 's' }, /client ID/],
    ['a client id with spaces', { clientId: 'a b', clientSecret: 's' }, /without spaces/],
    ['a secret with a newline', { clientId: 'abc', clientSecret: 'a\nb' }, /without spaces/],
  ])('refuses %s with a clear message and changes nothing', async (_name, input, message) => {
    const apps = service(store, config, createAdapters(config, factory))
    const before = await store.db.selectFrom('network_apps').selectAll().orderBy('id').execute()
    await expect(apps.save('threads', input, 'u1')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(message),
    })
    expect(await store.db.selectFrom('network_apps').selectAll().orderBy('id').execute()).toEqual(before)
  })

  it('builds the adapter again when its app changes, and removes the app', async () => {
    const adapters = createAdapters(config, factory)
    const apps = service(store, config, adapters)
    await apps.refresh()
    await apps.save('twitter', { clientId: 'x-before', clientSecret: 'x-secret' }, 'u1')
    const before = adapters.twitter
    expect(clientIdOf(adapters, 'twitter')).toBe('x-before')
    await apps.save('twitter', { clientId: 'x-after', clientSecret: 'x-secret-2' }, 'u1')
    expect(adapters.twitter).not.toBe(before)
    expect(clientIdOf(adapters, 'twitter')).toBe('x-after')
    // Another network's change leaves this adapter as it is.
    const unchanged = adapters.twitter
    await apps.save('threads', { clientId: 'th-1', clientSecret: 'th-secret' }, 'u1')
    expect(adapters.twitter).toBe(unchanged)

    expect(await apps.remove('twitter')).toBe(true)
    expect(apps.canConnect('twitter')).toBe(false)
    expect(clientIdOf(adapters, 'twitter')).toBe('')
    expect(await apps.remove('twitter')).toBe(false)
  })

  it('sees an app saved by another process once it refreshes', async () => {
    const here = service(store, config, createAdapters(config, factory))
    const elsewhere = createAdapters(config, factory)
    const there = service(store, config, elsewhere)
    await here.save('facebook', { clientId: '1234567890', clientSecret: 'meta-secret' }, 'u1')
    expect(there.canConnect('facebook')).toBe(false)
    await there.refresh()
    expect(there.canConnect('facebook')).toBe(true)
    expect(there.resolve('facebook')).toMatchObject({ source: 'saved', clientId: '1234567890' })
  })
})
