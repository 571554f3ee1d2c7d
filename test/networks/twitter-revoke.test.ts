import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import {
  reportSkippedWithoutOpenApi,
  startTwitterFixture,
  type TwitterFixture,
  xOpenApiAvailable,
} from './twitter-fixture.js'

reportSkippedWithoutOpenApi('X access revocation (adapter against the sandbox)')

describe.runIf(xOpenApiAvailable)('X access revocation (adapter against the sandbox)', () => {
  let fx: TwitterFixture
  beforeAll(async () => {
    fx = await startTwitterFixture()
  })
  afterAll(() => fx.close())
  afterEach(() => {
    expect(fx.validation.problems).toEqual([])
    fx.sandbox.reset()
  })

  it('revokes both tokens at X, so neither the access token nor the refresh token works afterwards', async () => {
    const connection = await fx.connect('revoked_user')
    await expect(fx.adapter.resolveProfile(connection.credentials)).resolves.toMatchObject({
      username: 'revoked_user',
    })
    await fx.adapter.revokeAccess!(connection.credentials, AbortSignal.timeout(5000))
    const lookup = await fx.adapter.resolveProfile(connection.credentials).catch((error) => error)
    expect(lookup).toBeInstanceOf(PublishFailure)
    expect(lookup.kind).toBe('auth_expired')
    const refresh = await fx.adapter.refresh(connection.credentials).catch((error) => error)
    expect(refresh).toBeInstanceOf(PublishFailure)
    expect(refresh.kind).toBe('auth_expired')
    const revokes = fx.validation.requests.filter((request) => request.path === '/2/oauth2/revoke')
    expect(revokes).toHaveLength(2)
  })

  it('reports a revocation X answers with a server error as a failure, and the token still works', async () => {
    const connection = await fx.connect('still_connected')
    fx.sandbox.injectFailure('oauth2Revoke', { status: 503 })
    const failure = await fx.adapter.revokeAccess!(connection.credentials, AbortSignal.timeout(5000)).catch(
      (error) => error,
    )
    expect(failure).toBeInstanceOf(PublishFailure)
    expect(failure.kind).toBe('transient')
    await expect(fx.adapter.resolveProfile(connection.credentials)).resolves.toMatchObject({
      username: 'still_connected',
    })
  })
})
