import { createOAuthAPIClient, createRestAPIClient } from 'masto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SimulatedInstance, startSimulatedInstance } from '../../helpers/mastodon-instance.js'
import { noisePng, solidImage } from '../../media/fixtures.js'

/**
 * masto (a well-kept Mastodon client no one here wrote) holds the simulator to the real API: it registers
 * an app, signs in with the code the authorize page sends back, uploads an image and waits for it to be
 * processed as it does with a real server, posts a status with it behind a content warning, and reads the
 * status, the account and its statuses back. Whatever masto cannot read is the simulator's to fix.
 */
describe('masto against the Mastodon simulator', () => {
  let instance: SimulatedInstance
  const redirectUri = 'https://client.example/callback'

  beforeAll(async () => {
    instance = await startSimulatedInstance()
  })
  afterAll(async () => {
    expect(instance.sandbox.violations).toEqual([])
    await instance.close()
  })

  it('registers an app, signs in, uploads an image waiting for its processing, posts a status with it and reads it back', async () => {
    const anonymous = createRestAPIClient({ url: instance.url })
    const app = await anonymous.v1.apps.create({
      clientName: 'masto test',
      redirectUris: redirectUri,
      scopes: 'read write',
      website: 'https://client.example',
    })
    expect(app.clientId).toBeTruthy()
    const code = await instance.signIn({
      clientId: app.clientId!,
      redirectUri,
      scope: 'read write',
      username: 'masto_user',
    })
    const oauth = createOAuthAPIClient({ url: instance.url })
    const token = await oauth.token.create({
      grantType: 'authorization_code',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri,
      code,
    })
    const masto = createRestAPIClient({ url: instance.url, accessToken: token.accessToken })
    const me = await masto.v1.accounts.verifyCredentials()
    expect(me.username).toBe('masto_user')

    // Over a megabyte: the instance answers 202 and masto polls until the attachment has its URL.
    const large = await noisePng(900, 700)
    expect(large.length).toBeGreaterThan(1024 * 1024)
    const media = await masto.v2.media.create({
      file: new Blob([new Uint8Array(large)], { type: 'image/png' }),
      description: 'Noise, for a test',
    })
    expect(media.url).toMatch(/^http/)
    expect(media.description).toBe('Noise, for a test')
    const small = await masto.v2.media.create({
      file: new Blob([new Uint8Array(await solidImage(64, 64, 'jpeg'))], { type: 'image/jpeg' }),
    })

    const status = await masto.v1.statuses.create({
      status: 'Hello from masto, see https://example.com/a/long/path/to/read and #tests',
      mediaIds: [media.id, small.id],
      spoilerText: 'noise',
      visibility: 'unlisted',
      language: 'en',
    })
    expect(status).toMatchObject({
      spoilerText: 'noise',
      visibility: 'unlisted',
      language: 'en',
      sensitive: true,
    })
    expect(status.mediaAttachments.map((m) => m.id)).toEqual([media.id, small.id])
    expect(status.application?.name).toBe('masto test')

    const read = await masto.v1.statuses.$select(status.id).fetch()
    expect(read.content).toContain('<a href="https://example.com/a/long/path/to/read"')
    expect(read.account.acct).toBe('masto_user')
    const listed = await masto.v1.accounts.$select(me.id).statuses.list({ limit: 5 })
    expect(listed.map((s) => s.id)).toContain(status.id)
  }, 60_000)

  it('pages an account statuses by the Link header as masto follows it', async () => {
    const app = await createRestAPIClient({ url: instance.url }).v1.apps.create({
      clientName: 'masto pager',
      redirectUris: redirectUri,
      scopes: 'read write',
    })
    const code = await instance.signIn({
      clientId: app.clientId!,
      redirectUri,
      scope: 'read write',
      username: 'pager',
    })
    const token = await createOAuthAPIClient({ url: instance.url }).token.create({
      grantType: 'authorization_code',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri,
      code,
    })
    const masto = createRestAPIClient({ url: instance.url, accessToken: token.accessToken })
    const me = await masto.v1.accounts.verifyCredentials()
    for (let i = 0; i < 5; i++) await masto.v1.statuses.create({ status: `page test ${i}` })
    const seen: string[] = []
    for await (const page of masto.v1.accounts.$select(me.id).statuses.list({ limit: 2 }))
      seen.push(...page.map((s) => s.content))
    expect(seen).toEqual([4, 3, 2, 1, 0].map((i) => `<p>page test ${i}</p>`))
  }, 60_000)
})
