import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_NAME_MAX } from '../../src/modules/oauth-server/provider.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { register } from '../helpers/oauth.js'

/** A dynamic registration's client_name is shown on the consent page: it is held to 200 characters. */
describe('the client name of a dynamic registration', () => {
  let h: Harness
  const redirectUri = 'http://127.0.0.1:1/callback'
  const clients = async () =>
    Number(
      (
        await h.app.store.db
          .selectFrom('oauth_artifacts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('model', '=', 'Client')
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    h = await startHarness({ prePickPort: true })
  })
  afterAll(() => h.close())

  it('registers a client whose name is 200 characters', async () => {
    expect(CLIENT_NAME_MAX).toBe(200)
    const answer = await register(h, redirectUri, { client_name: 'n'.repeat(200) })
    expect(answer.status, JSON.stringify(answer.body)).toBe(201)
    expect(answer.body.client_name).toHaveLength(200)
  })

  it('refuses a name over 200 characters with 400 invalid_client_metadata, storing nothing', async () => {
    const before = await clients()
    const answer = await register(h, redirectUri, { client_name: 'n'.repeat(201) })
    expect(answer.status).toBe(400)
    expect(answer.body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'client_name: at most 200 characters (got 201)',
    })
    expect(await clients()).toBe(before)
  })
})
