import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { startMastodonConnect } from '../../src/modules/connections/mastodon-connect.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { startSimulatedInstance } from '../helpers/mastodon-instance.js'

/**
 * Connecting Mastodon, any instance: Herald reads the instance, registers itself there once (its secret
 * sealed), again when the instance forgot it, signs in with PKCE where the instance takes it, and keeps a
 * token that does not expire. An instance's address is a host a person typed: outside sandbox mode it must
 * be public unless the operator allows private ones.
 */
describe('connecting a Mastodon profile', () => {
  let h: Harness
  /** Runs once, at the token call after the next consent: what happens on the instance meanwhile. */
  let afterConsent: (() => void) | undefined
  let consented = false
  const M = '/sandbox/mastodon'
  const state = async () =>
    (await (await fetch(`${h.baseUrl}${M}/_sandbox/state`)).json()) as {
      instances: Array<{
        host: string
        apps: Array<{ clientId: string; name: string }>
        settings: { legacy: boolean }
      }>
      violations: string[]
    }
  const connect = (username: string) =>
    sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'mastodon', username })
  const instanceRow = (host: string) =>
    h.app.store.db
      .selectFrom('mastodon_instances')
      .selectAll()
      .where('id', '=', host)
      .executeTakeFirstOrThrow()
  const control = (path: string, body: unknown) =>
    fetch(`${h.baseUrl}${M}/_sandbox/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  beforeAll(async () => {
    h = await startHarness({
      sandbox: true,
      faults: {
        decide(call) {
          if (call.operation === 'consent' && call.method === 'POST' && afterConsent) consented = true
          if (call.operation === 'token' && consented && afterConsent) {
            afterConsent()
            afterConsent = undefined
            consented = false
          }
          return undefined
        },
      },
    })
  })
  afterAll(async () => {
    expect((await state()).violations).toEqual([])
    await h?.close()
  })

  it('connects @dana@first.example with PKCE, registering Herald there once for every profile of the instance', async () => {
    const dana = await connect('dana@first.example')
    const erin = await connect('@erin@first.example')
    expect(dana).toMatchObject({ platform: 'mastodon', username: 'dana@first.example', status: 'active' })
    expect(erin.username).toBe('erin@first.example')
    const apps = (await state()).instances.find((i) => i.host === 'first.example')!.apps
    expect(apps).toHaveLength(1)
    const row = await instanceRow('first.example')
    expect(row.client_id).toBe(apps[0]!.clientId)
    // The secret is a vault ciphertext, never the secret itself.
    expect(row.client_secret).toMatch(/^v2\./)
    expect(JSON.parse(row.info).pkce).toBe(true)
    const credentials = h.app.vault.openJson<Credentials>(
      connectionCredentials(dana.connectionId),
      (
        await h.app.store.db
          .selectFrom('connections')
          .selectAll()
          .where('id', '=', dana.connectionId)
          .executeTakeFirstOrThrow()
      ).credentials,
    )
    expect(credentials.expiresAt).toBeUndefined()
    expect(credentials.refreshToken).toBeUndefined()
  })

  it('never lists the connection in account health: a Mastodon token lasts until it is revoked', async () => {
    const { body } = await h.call('get_account_health')
    expect(JSON.stringify(body)).not.toContain('first.example')
  })

  it('registers again on an instance that forgot Herald, and connects', async () => {
    const before = (await instanceRow('first.example')).client_id
    expect((await control('forget-apps', { host: 'first.example' })).status).toBe(200)
    const again = await connect('dana@first.example')
    expect(again.status).toBe('active')
    const after = await instanceRow('first.example')
    expect(after.client_id).not.toBe(before)
    expect((await state()).instances.find((i) => i.host === 'first.example')!.apps).toHaveLength(1)
  })

  it('refuses a sign-in the instance answers with invalid_client, and forgets the app so the next connect registers anew', async () => {
    // The instance forgets Herald's app between the sign-in and Herald's exchange of its code.
    afterConsent = () => h.sandboxes!.mastodon.forgetApps(h.sandboxes!.mastodon.instance('first.example'))
    await expect(connect('dana@first.example')).rejects.toThrow(/no longer knows Herald's registration/)
    expect((await instanceRow('first.example')).client_id).toBeNull()
    expect((await connect('dana@first.example')).status).toBe('active')
    expect((await instanceRow('first.example')).client_id).not.toBeNull()
  })

  it('signs in without PKCE on an instance before 4.3, which names no OAuth metadata', async () => {
    await control('instances', { host: 'legacy.example', legacy: true, version: '4.1.2' })
    const connected = await connect('old@legacy.example')
    expect(connected.status).toBe('active')
    expect(JSON.parse((await instanceRow('legacy.example')).info)).toMatchObject({
      pkce: false,
      tokenPath: '/oauth/token',
    })
  })

  it('keeps the limits the instance sets, which its profiles are then held to', async () => {
    await control('instances', { host: 'long.example', maxCharacters: 5000, maxMedia: 8 })
    await connect('writer@long.example')
    const { body } = await h.call('preflight_post', { content: 'x'.repeat(4000), platforms: ['mastodon'] })
    expect(body.limits.mastodon).toBe(500)
    const only = await h.call('preflight_post', {
      content: 'x'.repeat(4000),
      targetAccounts: [{ platform: 'mastodon', username: 'writer@long.example' }],
    })
    expect(only.body.limits.mastodon).toBe(5000)
    expect(only.body.blockers).toEqual([])
  })

  it('refuses an address that names no instance, and an instance that is not a Mastodon server, connecting nothing', async () => {
    const who = { userId: h.userId, workspaceId: h.workspaceId }
    const bad = await startMastodonConnect(h.app, who, 'https://first.example/@dana')
    expect(bad).toMatchObject({ kind: 'refused', status: 400, title: 'Not an instance address' })
    await expect(connect('someone')).rejects.toThrow(/a handle that names its instance/)
  })
})

describe('a Mastodon instance on this machine, outside sandbox mode', () => {
  let h: Harness
  let instance: Awaited<ReturnType<typeof startSimulatedInstance>>
  beforeAll(async () => {
    instance = await startSimulatedInstance()
    h = await startHarness({ prePickPort: true })
  })
  afterAll(async () => {
    await h?.close()
    await instance?.close()
  })

  it('is refused before anything is sent: Herald reaches only public addresses unless its operator allows private ones', async () => {
    const host = new URL(instance.url).host
    const refused = await startMastodonConnect(h.app, { userId: h.userId, workspaceId: h.workspaceId }, host)
    expect(refused).toMatchObject({ kind: 'refused', status: 400 })
    expect((refused as { message: string }).message).toContain('HERALD_MASTODON_ALLOW_PRIVATE=1')
    expect(instance.sandbox.instances.size).toBe(0)
  })
})
