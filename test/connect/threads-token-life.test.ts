import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A Threads connection over its 60 days, on a fake clock that the simulator shares: the token is used as
 * it is for fifty days, then Herald refreshes it with th_refresh_token before using it, and account
 * health counts down from the new token's end.
 */
describe('a Threads token over its life', () => {
  let h: Harness
  const clock = new FakeClock(Date.now())
  let connectionId: string
  let profileId: string

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, credits: 100 })
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'threads',
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
  const readProfile = async () => {
    const { status, body } = await h.call('get_profile_analytics', {
      platform: 'threads',
      profileId,
      refresh: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    return body
  }
  const sandboxTokens = async () =>
    (await (await fetch(`${h.baseUrl}${sandboxPrefixes.threads}/_sandbox/state`)).json()) as {
      violations: string[]
    }

  it('is used unchanged for fifty days, then refreshed before use for another sixty', async () => {
    const first = await stored()
    clock.advance(20 * DAY_MS)
    expect((await readProfile()).analytics.summary.followers).toBe(870)
    expect((await stored()).credentials.accessToken).toBe(first.credentials.accessToken)

    clock.advance(31 * DAY_MS)
    expect((await readProfile()).analytics.summary.followers).toBe(870)
    const second = await stored()
    expect(second.credentials.accessToken).not.toBe(first.credentials.accessToken)
    expect(second.row.status).toBe('active')
    const end = Number(second.credentials.extra?.refreshTokenExpiresAt)
    expect(end - clock.now()).toBe(60 * DAY_MS)
    expect(Number(second.row.token_expires_at)).toBe(end - 10 * DAY_MS)
    expect((await sandboxTokens()).violations).toEqual([])

    // Health is quiet now, and would count down the new token's last week.
    expect((await h.call('get_account_health', {})).body).toMatchObject({ healthy: true, connections: [] })
    clock.advance(55 * DAY_MS + 60_000)
    const { body } = await h.call('get_account_health', {})
    expect(body.connections).toMatchObject([{ platform: 'threads', daysLeft: 4, needsReconnect: false }])
    expect(body.connections[0].reason).toMatch(/in 4 days/)
  }, 60_000)
})
