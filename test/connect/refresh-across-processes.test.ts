import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Credentials, PublishFailure } from '../../src/adapters/adapter.js'
import { refreshOnce } from '../../src/modules/connections/credentials.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/**
 * X rotates refresh tokens: each one works once. Two worker processes that both find the token expiring
 * must not both spend it. `refreshOnce` is the part that runs in each process (the in-process map that
 * merges refreshes of one process sits in front of it), so calling it twice at once plays two processes.
 */
describe.each(backends)('refreshing a rotating token from two processes on $name', (backend) => {
  let h: Harness

  beforeAll(async () => {
    h = await startHarness({ backend })
  })
  afterAll(() => h.close())

  it('one process refreshes, the other uses its new tokens; the profile stays healthy', async () => {
    const twitter = scriptedAdapter('twitter')
    let valid = 'refresh-0'
    let refreshes = 0
    twitter.refresh = async (credentials: Credentials) => {
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (credentials.refreshToken !== valid)
        throw new PublishFailure('auth_expired', 'invalid_grant: Value passed for the token was invalid')
      refreshes += 1
      valid = `refresh-${refreshes}`
      return { accessToken: `access-${refreshes}`, refreshToken: valid, expiresAt: Date.now() + 7_200_000 }
    }
    const connectionId = await connectProfile(h, 'twitter', 'tw-rot', 'rotating')
    const seen: Credentials = {
      accessToken: 'access-0',
      refreshToken: 'refresh-0',
      expiresAt: Date.now() + 1_000,
    }
    await h.app.store.db
      .updateTable('connections')
      .set({ credentials: h.app.vault.sealJson(connectionCredentials(connectionId), seen) })
      .where('id', '=', connectionId)
      .execute()
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
    const deps = { db: h.app.store.db, vault: h.app.vault, now: () => Date.now() }

    const [a, b] = await Promise.all([
      refreshOnce(deps, twitter, row, seen),
      refreshOnce(deps, twitter, row, seen),
    ])
    expect(refreshes).toBe(1)
    expect(a).toEqual(b)
    expect(a.accessToken).toBe('access-1')
    const after = await h.app.store.db
      .selectFrom('connections')
      .select(['status', 'refreshing_until', 'credentials'])
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
    expect(after.status).toBe('active')
    expect(after.refreshing_until).toBeNull()
    expect(
      h.app.vault.openJson<Credentials>(connectionCredentials(connectionId), after.credentials).refreshToken,
    ).toBe('refresh-1')
  })
})
