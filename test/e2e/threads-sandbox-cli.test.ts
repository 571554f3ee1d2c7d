import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import type { Harness } from '../helpers/harness.js'
import { type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'

/** `npm run herald -- sandbox connect --network threads --username U` against a running sandbox-mode server. */
describe('`npm run herald -- sandbox connect --network threads`', () => {
  let cli: SandboxCli
  let h: Harness

  beforeAll(async () => {
    cli = await startSandboxCli('herald-threads-cli-')
    h = cli.harness
  })
  afterAll(async () => {
    await cli?.close()
  })

  it('connects the simulated profile through the whole flow and prints it as JSON on the last line', async () => {
    const connected = await cli.connect('threads', 'Dock Radio')
    expect(connected).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'threads',
      username: 'dockradio',
      name: 'Dock Radio',
      isOrganization: false,
      status: 'active',
    })
    expect(connected.profileId).toMatch(/^\d+$/)
    const row = await h.app.store.db
      .selectFrom('connections')
      .select(['token_expires_at'])
      .where('id', '=', connected.connectionId)
      .executeTakeFirstOrThrow()
    // Herald refreshes the 60-day token ten days early.
    expect(Number(row.token_expires_at) - Date.now()).toBeGreaterThan(49 * 24 * 60 * 60 * 1000)
    const sandbox = (await (await fetch(`${h.baseUrl}${sandboxPrefixes.threads}/_sandbox/state`)).json()) as {
      violations: string[]
    }
    expect(sandbox.violations).toEqual([])
  }, 60_000)
})
