import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const DAY_MS = 86_400_000

/**
 * Connecting Pinterest through the whole flow in sandbox mode (consent, the code exchange, the
 * choose-profiles page with the account's boards): every board becomes a profile, reconnecting adds the
 * boards made since and keeps the others' ids; then the tokens over their life on a clock the simulator
 * shares: 30-day access tokens refreshed before use, each refresh renewing the 60-day refresh token.
 */
describe('a Pinterest account connected board by board', () => {
  let h: Harness
  const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, credits: 100 })
  }, 60_000)
  afterAll(() => h?.close())

  const connections = () =>
    h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('workspace_id', '=', h.workspaceId)
      .where('platform', '=', 'pinterest')
      .orderBy('id')
      .execute()
  const credentialsOf = (row: { id: string; credentials: string }) =>
    h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)

  it('connects every board of the account, each a profile: the board id, its name, the account as username', async () => {
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'pinterest',
      username: 'bakery_bo',
    })
    const rows = await connections()
    expect(rows.map((r) => r.name).sort()).toEqual(['Drafts', 'Shop window', 'Spring recipes'])
    expect(new Set(rows.map((r) => r.username))).toEqual(new Set(['bakery_bo']))
    expect((connected.profiles ?? [connected]).map((c) => c.connectionId).sort()).toEqual(
      rows.map((r) => r.id).sort(),
    )
    const boards = h.sandboxes!.pinterest.boards
    for (const row of rows) expect(boards.get(row.profile_id)?.name).toBe(row.name)
    for (const row of rows) expect(credentialsOf(row).extra?.boardId).toBe(row.profile_id)
    const accounts = (await h.call('get_connected_accounts', {})).body as Array<Record<string, unknown>>
    expect(accounts.filter((a) => a.platform === 'pinterest')).toHaveLength(3)
  }, 60_000)

  it('adds a board made on Pinterest since when the account is connected again, keeping the others', async () => {
    const before = await connections()
    const made = await fetch(`${h.baseUrl}${sandboxPrefixes.pinterest}/_sandbox/boards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bakery_bo', name: 'Autumn menu' }),
    })
    expect(made.status).toBe(201)
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'pinterest', username: 'bakery_bo' })
    const after = await connections()
    expect(after.map((r) => r.name).sort()).toEqual([
      'Autumn menu',
      'Drafts',
      'Shop window',
      'Spring recipes',
    ])
    for (const row of before) {
      const again = after.find((r) => r.profile_id === row.profile_id)!
      expect(again.id).toBe(row.id)
      expect(credentialsOf(again).accessToken).not.toBe(credentialsOf(row).accessToken)
    }
  }, 60_000)

  it('keeps its access token for 29 days, refreshes it before use on the 30th, and renews the refresh token', async () => {
    const [row] = await connections()
    const first = credentialsOf(row!)
    const readProfile = async () => {
      const { status, body } = await h.call('get_profile_analytics', {
        platform: 'pinterest',
        profileId: row!.profile_id,
        refresh: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return body
    }
    clock.advance(29 * DAY_MS)
    await readProfile()
    expect(credentialsOf((await connections())[0]!).accessToken).toBe(first.accessToken)
    clock.advance(DAY_MS)
    const reading = await readProfile()
    expect(reading.analytics.summary.followers).toBeGreaterThan(0)
    const second = credentialsOf((await connections())[0]!)
    expect(second.accessToken).not.toBe(first.accessToken)
    expect(second.refreshToken).not.toBe(first.refreshToken)
    expect(Number(second.extra?.refreshTokenExpiresAt)).toBe(
      Math.floor((clock.now() + 60 * DAY_MS) / 1000) * 1000,
    )
    expect(h.sandboxes!.pinterest.tokenCalls.refresh_token).toBe(1)
    expect((await h.call('get_account_health', {})).body).toMatchObject({ healthy: true })
    expect(h.sandboxes!.pinterest.violations).toEqual([])
  }, 60_000)

  it('marks the boards for reconnecting when Pinterest refuses the tokens, and says so in account health', async () => {
    await fetch(`${h.baseUrl}${sandboxPrefixes.pinterest}/_sandbox/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bakery_bo' }),
    })
    const [row] = await connections()
    const { body } = await h.call('get_profile_analytics', {
      platform: 'pinterest',
      profileId: row!.profile_id,
      refresh: true,
    })
    expect(JSON.stringify(body)).toMatch(/Pinterest/)
    const health = (await h.call('get_account_health', {})).body as {
      connections: Array<Record<string, unknown>>
    }
    expect(health.connections).toContainEqual(
      expect.objectContaining({ platform: 'pinterest', profileId: row!.profile_id, needsReconnect: true }),
    )
  }, 60_000)
})
