import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '../helpers/harness.js'
import { type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'

/**
 * `npm run herald -- sandbox connect` against a running sandbox-mode server that shares its SQLite file,
 * as an operator runs it beside `HERALD_SANDBOX=1 npm start`.
 */
describe('`npm run herald -- sandbox connect`', () => {
  let cli: SandboxCli
  let h: Harness

  beforeAll(async () => {
    cli = await startSandboxCli('herald-sandbox-cli-')
    h = cli.harness
  })
  afterAll(async () => {
    await cli?.close()
  })

  it('connects an X profile through the running server and prints it as JSON on the last line', async () => {
    const connected = await cli.connect('twitter', 'cli_demo')
    expect(connected).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'twitter',
      username: 'cli_demo',
      isOrganization: false,
      status: 'active',
    })
    const accounts = await h.call('get_connected_accounts')
    expect(accounts.body).toContainEqual(
      expect.objectContaining({ profileId: connected.profileId, username: 'cli_demo' }),
    )
    // The command's session was removed once it was done.
    expect(await h.app.store.db.selectFrom('sessions').selectAll().execute()).toEqual([])
  })

  it('connects a YouTube channel, creating the Google account in the simulator when needed', async () => {
    const connected = await cli.connect('youtube', 'newcreator@example.com')
    expect(connected).toMatchObject({ platform: 'youtube', username: '@newcreator', isOrganization: true })
  })

  it('connects an Instagram professional account through Instagram Login and prints it as JSON on the last line', async () => {
    const connected = await cli.connect('instagram', 'cli.maker')
    expect(connected).toMatchObject({ platform: 'instagram', username: 'cli.maker', status: 'active' })
  })

  it('connects a Facebook Page named after the user, ticked on the choose-profiles page', async () => {
    const connected = await cli.connect('facebook', 'Corner Shop')
    expect(connected).toMatchObject({
      platform: 'facebook',
      name: 'Corner Shop',
      isOrganization: true,
      status: 'active',
    })
  })

  it('connects every location of a Google business, each its own profile, listed in the JSON and in words', async () => {
    const connected = await cli.connect('googlebusiness', 'Pier Bakery')
    expect(connected).toMatchObject({
      platform: 'googlebusiness',
      name: 'Pier Bakery – High Street',
      username: 'pier-bakery-high-street',
      isOrganization: true,
      status: 'active',
    })
    expect(connected.profiles.map((p: { username: string }) => p.username)).toEqual([
      'pier-bakery-high-street',
      'pier-bakery-station-road',
    ])
    const { stdout } = await cli.herald(
      'sandbox',
      'connect',
      '--workspace',
      h.workspaceId,
      '--network',
      'googlebusiness',
      '--username',
      'Pier Bakery',
    )
    expect(stdout).toMatch(
      /Connected googlebusiness @pier-bakery-high-street \(profile locations\/\d+\), @pier-bakery-station-road \(profile locations\/\d+\) in workspace/,
    )
  })

  it('connects a Mastodon profile on the instance its handle names, and prints it as JSON on the last line', async () => {
    const connected = await cli.connect('mastodon', 'cli@instance.example')
    expect(connected).toMatchObject({
      platform: 'mastodon',
      username: 'cli@instance.example',
      status: 'active',
    })
    expect(connected.profileId).toMatch(/^\d+@instance\.example$/)
  })

  it('explains itself when the workspace does not exist', async () => {
    const failed = await cli
      .herald(
        'sandbox',
        'connect',
        '--workspace',
        'ffffffffffffffffffffffff',
        '--network',
        'twitter',
        '--username',
        'x',
      )
      .catch((error) => error)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('No workspace ffffffffffffffffffffffff')
  })
})
