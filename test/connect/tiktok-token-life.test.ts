import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { refreshOnce, usableCredentials } from '../../src/modules/connections/credentials.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const HOUR_MS = 60 * 60 * 1000
const DAY_MS = 24 * HOUR_MS

/**
 * A TikTok connection over its life, on a fake clock the simulator shares: access tokens of two hours,
 * refreshed before use with the refresh token, which rotates (each refresh answers a new one and the
 * used one stops working), so the new pair is saved at once and two refreshes never spend the same
 * token; account health counts down the refresh token's 180 days, not the access token's hours.
 */
describe('a TikTok token over its life', () => {
  let h: Harness
  const clock = new FakeClock(Date.now())
  let connectionId: string
  let profileId: string

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, credits: 100 })
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'tiktok',
      username: 'token.life',
    })
    connectionId = connected.connectionId
    profileId = connected.profileId
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  const stored = async () => {
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
    return {
      row,
      credentials: h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials),
    }
  }
  const deps = () => ({ db: h.app.store.db, vault: h.app.vault, now: () => clock.now() })
  const tokenCalls = () => h.sandboxes!.tiktok.calls.filter((c) => c.path.endsWith('/v2/oauth/token/')).length

  it('keeps the access token’s two hours and the refresh token’s 180 days as TikTok answered them', async () => {
    const { row, credentials } = await stored()
    expect(Number(row.token_expires_at) - clock.now()).toBeGreaterThan(2 * HOUR_MS - 60_000)
    expect(Number(row.token_expires_at) - clock.now()).toBeLessThanOrEqual(2 * HOUR_MS)
    expect(Number(credentials.extra?.refreshTokenExpiresAt) - clock.now()).toBeGreaterThan(
      180 * DAY_MS - 60_000,
    )
    expect((await h.call('get_account_health', {})).body).toMatchObject({ healthy: true })
  })

  it('refreshes an access token about to expire before use, saving the rotated refresh token; the old one stops working', async () => {
    const first = await stored()
    clock.advance(2 * HOUR_MS - 60_000)
    const { status, body } = await h.call('get_profile_analytics', {
      platform: 'tiktok',
      profileId,
      refresh: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.analytics.summary.followers).toBe(1520)
    const second = await stored()
    expect(second.credentials.refreshToken).not.toBe(first.credentials.refreshToken)
    expect(second.credentials.accessToken).not.toBe(first.credentials.accessToken)
    expect(second.row.status).toBe('active')
    const sim = h.sandboxes!.tiktok
    expect(sim.tokenOf(first.credentials.refreshToken, 'refresh')).toBeUndefined()
    expect(sim.tokenOf(second.credentials.refreshToken, 'refresh')).toBeDefined()
    expect(Number(second.credentials.extra?.refreshTokenExpiresAt) - clock.now()).toBeGreaterThan(
      180 * DAY_MS - 60_000,
    )
  })

  it('spends a rotating refresh token once when two processes refresh at the same moment', async () => {
    const { row } = await stored()
    const adapter = h.app.adapters.tiktok!
    const before = tokenCalls()
    const seen = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    const [a, b] = await Promise.all([
      refreshOnce(deps(), adapter, row, seen),
      refreshOnce(deps(), adapter, row, seen),
    ])
    expect(a.refreshToken).toBe(b.refreshToken)
    expect(tokenCalls() - before).toBe(1)
    expect((await stored()).row.status).toBe('active')
  })

  it('counts down the refresh token’s last week in account health', async () => {
    clock.advance(175 * DAY_MS)
    const { body } = await h.call('get_account_health', {})
    expect(body.healthy).toBe(false)
    expect(body.connections).toMatchObject([
      { platform: 'tiktok', needsReconnect: false, expired: false, daysLeft: 5 },
    ])
  })

  it('marks the connection for reconnecting when TikTok refuses the refresh (the creator removed the app)', async () => {
    const { row } = await stored()
    h.sandboxes!.tiktok.revokeGrant(row.profile_id, 'herald-sandbox')
    await expect(
      usableCredentials(deps(), h.app.adapters.tiktok!, row, { force: true }),
    ).rejects.toMatchObject({
      kind: 'auth_expired',
    })
    const after = await stored()
    expect(after.row.status).toBe('needs_reconnect')
    expect(after.row.last_error).toMatch(/TikTok refused the token refresh \(invalid_grant\)/)
    expect(after.row.last_error).not.toContain(after.credentials.refreshToken!)
  })
})
