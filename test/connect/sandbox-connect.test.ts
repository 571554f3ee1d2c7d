import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** `sandbox connect --network bluesky` in process: the simulator's account, the real /connect/bluesky form. */
describe('sandbox connect for Bluesky', () => {
  let simulated: Harness
  let realPds: Harness

  beforeAll(async () => {
    simulated = await startHarness({ sandbox: true })
    // A sandbox server whose Bluesky goes to a configured PDS (nothing listens there: it is never reached).
    realPds = await startHarness({
      sandbox: true,
      env: { HERALD_BLUESKY_SERVICE_URL: 'http://127.0.0.1:9', HERALD_BLUESKY_PLC_URL: 'http://127.0.0.1:9' },
    })
  })
  afterAll(async () => {
    await simulated?.close()
    await realPds?.close()
  })

  it('makes the account and an app password in the simulator and connects it through the form', async () => {
    const connected = await sandboxConnect(simulated.app, {
      workspaceId: simulated.workspaceId,
      network: 'bluesky',
      username: 'Maker',
    })
    expect(connected).toMatchObject({
      workspaceId: simulated.workspaceId,
      platform: 'bluesky',
      username: 'maker.bsky.social',
      name: 'maker',
      isOrganization: false,
      status: 'active',
    })
    expect(connected.profileId).toMatch(/^did:plc:[a-z2-7]{24}$/)
    // Run again, it signs in to the same account with a new app password: still one connection.
    const again = await sandboxConnect(simulated.app, {
      workspaceId: simulated.workspaceId,
      network: 'bluesky',
      username: 'maker',
    })
    expect(again.profileId).toBe(connected.profileId)
    const rows = await simulated.app.store.db.selectFrom('connections').selectAll().execute()
    expect(rows.filter((row) => row.platform === 'bluesky')).toHaveLength(1)
    expect(await simulated.app.store.db.selectFrom('sessions').selectAll().execute()).toEqual([])
  })

  it('refuses a username that cannot be a handle, saying why, and connects nothing', async () => {
    await expect(
      sandboxConnect(simulated.app, {
        workspaceId: simulated.workspaceId,
        network: 'bluesky',
        username: 'no_way',
      }),
    ).rejects.toThrow(/letters, digits and hyphens/)
    const rows = await simulated.app.store.db.selectFrom('connections').selectAll().execute()
    expect(rows.some((row) => row.username.startsWith('no_way'))).toBe(false)
  })

  it('says so when the server sends Bluesky to a configured PDS instead of the simulator', async () => {
    await expect(
      sandboxConnect(realPds.app, {
        workspaceId: realPds.workspaceId,
        network: 'bluesky',
        username: 'maker',
      }),
    ).rejects.toThrow(/HERALD_BLUESKY_SERVICE_URL, not to the simulator/)
  })
})
