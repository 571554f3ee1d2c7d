import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { getAccountHealth } from '../../src/interfaces/tools/get-account-health.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const T0 = Date.UTC(2032, 5, 1, 12, 0, 0)
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A JWT-shaped token with only an `exp` claim (Bluesky's refreshJwt carries one). */
const jwt = (expMs: number) =>
  ['{"alg":"none"}', JSON.stringify({ exp: Math.floor(expMs / 1000) }), 'sig']
    .map((part, i) => (i < 2 ? Buffer.from(part).toString('base64url') : part))
    .join('.')

describe.each(backends)('get_account_health on $name', (backend) => {
  let h: Harness
  let clock: FakeClock

  const connect = async (
    platform: 'twitter' | 'youtube' | 'bluesky',
    username: string,
    credentials: Credentials,
    options: {
      status?: 'needs_reconnect'
      lastError?: string
      sealed?: string | ((id: string) => string)
    } = {},
  ) => {
    const db = h.app.store.db
    const id = await upsertConnection(
      db,
      {
        workspaceId: h.workspaceId,
        platform,
        profileId: `${platform}-${username}`,
        username,
        name: username,
        isOrganization: false,
        sealCredentials: (id) =>
          typeof options.sealed === 'string'
            ? options.sealed
            : (options.sealed?.(id) ?? h.app.vault.sealJson(connectionCredentials(id), credentials)),
        tokenExpiresAt: credentials.expiresAt ?? null,
      },
      clock.now(),
    )
    if (options.status) {
      await db
        .updateTable('connections')
        .set({ status: options.status, last_error: options.lastError ?? null })
        .where('id', '=', id)
        .execute()
    }
  }

  const health = async () => {
    const answer = await h.call('get_account_health')
    expect(answer.status).toBe(200)
    getAccountHealth.output.parse(answer.body)
    return answer.body
  }

  beforeAll(async () => {
    clock = new FakeClock(T0)
    h = await startHarness({ backend, clock })
  })
  afterAll(() => h.close())

  it('is healthy with nothing connected', async () => {
    expect(await health()).toEqual({
      healthy: true,
      message: 'No profiles are connected in this workspace.',
      connections: [],
    })
  })

  it('is healthy when every token refreshes itself, however short its access token lives', async () => {
    // X: a 2-hour access token with a refresh token. Google: an hour, with a refresh token.
    await connect('twitter', 'short_lived', { accessToken: 'a', refreshToken: 'r', expiresAt: T0 + 2 * HOUR })
    await connect('youtube', 'channel', { accessToken: 'a', refreshToken: 'r', expiresAt: T0 - HOUR })
    // No refresh token, but a month to go.
    await connect('twitter', 'month_left', { accessToken: 'a', expiresAt: T0 + 30 * DAY })
    const body = await health()
    expect(body.healthy).toBe(true)
    expect(body.message).toBe('All 3 connections are healthy.')
  })

  it('lists needs-reconnect, expired and expiring connections with their days left and reasons', async () => {
    await connect(
      'twitter',
      'revoked',
      { accessToken: 'a', refreshToken: 'r' },
      {
        status: 'needs_reconnect',
        lastError: 'Refreshing the twitter token was refused: Access token for twitter is missing or invalid',
      },
    )
    await connect('twitter', 'no_refresh_expired', { accessToken: 'a', expiresAt: T0 - DAY })
    await connect('twitter', 'no_refresh_soon', { accessToken: 'a', expiresAt: T0 + 2 * DAY + 20 * HOUR })
    await connect('twitter', 'no_refresh_hours', { accessToken: 'a', expiresAt: T0 + 2 * HOUR })
    await connect('bluesky', 'jwt_refresh', {
      accessToken: jwt(T0 + 2 * HOUR),
      refreshToken: jwt(T0 + 5 * DAY + HOUR),
    })
    await connect('bluesky', 'jwt_far', { accessToken: jwt(T0 + 2 * HOUR), refreshToken: jwt(T0 + 60 * DAY) })
    await connect('twitter', 'undecryptable', { accessToken: 'a' }, { sealed: 'v2.deadbeef.aaaa.bbbb.cccc' })

    const body = await health()
    expect(body.healthy).toBe(false)
    const byName = Object.fromEntries(body.connections.map((c: any) => [c.username, c]))
    expect(Object.keys(byName).sort()).toEqual(
      [
        'jwt_refresh',
        'no_refresh_expired',
        'no_refresh_hours',
        'no_refresh_soon',
        'revoked',
        'undecryptable',
      ].sort(),
    )
    expect(byName.revoked).toEqual({
      platform: 'twitter',
      profileId: 'twitter-revoked',
      username: 'revoked',
      needsReconnect: true,
      expired: false,
      daysLeft: 0,
      reason:
        'Reconnect the profile: Refreshing the twitter token was refused: Access token for twitter is missing or invalid',
    })
    expect(byName.no_refresh_expired).toMatchObject({ needsReconnect: false, expired: true, daysLeft: 0 })
    expect(byName.no_refresh_expired.reason).toContain(
      'expired on 2032-05-31 12:00 UTC and there is no refresh token',
    )
    expect(byName.no_refresh_soon).toMatchObject({ needsReconnect: false, expired: false, daysLeft: 2 })
    expect(byName.no_refresh_soon.reason).toContain('in 2 days')
    expect(byName.no_refresh_hours).toMatchObject({ expired: false, daysLeft: 0 })
    expect(byName.no_refresh_hours.reason).toContain('within a day')
    expect(byName.jwt_refresh).toMatchObject({ platform: 'bluesky', expired: false, daysLeft: 5 })
    expect(byName.jwt_refresh.reason).toContain('The refresh token expires')
    expect(byName.undecryptable).toMatchObject({ needsReconnect: true, daysLeft: 0 })
    expect(byName.undecryptable.reason).toContain('cannot be decrypted')
    expect(body.message).toBe(
      '6 of 10 connections need attention: 2 need reconnecting, 1 expired, 3 expire within 7 days. Posts queued onto them fail at publish time.',
    )
  })

  it('counts down daysLeft as the clock moves and flips to expired', async () => {
    clock.set(T0 + 2 * DAY + 21 * HOUR)
    const body = await health()
    const soon = body.connections.find((c: any) => c.username === 'no_refresh_soon')
    expect(soon).toMatchObject({ expired: true, daysLeft: 0 })
    const jwtSoon = body.connections.find((c: any) => c.username === 'jwt_refresh')
    expect(jwtSoon).toMatchObject({ expired: false, daysLeft: 2 })
    clock.set(T0)
  })

  it("does not show another workspace's connections", async () => {
    const rival = await h.app.accounts.createWorkspace({ name: 'Other', ownerEmail: h.email })
    const answer = await h.call('get_account_health', { workspaceId: rival.workspaceId })
    expect(answer.body).toEqual({
      healthy: true,
      message: 'No profiles are connected in this workspace.',
      connections: [],
    })
  })
})
