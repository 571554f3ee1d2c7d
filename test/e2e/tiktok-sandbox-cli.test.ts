import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import type { Harness } from '../helpers/harness.js'
import { type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'

/** `npm run herald -- sandbox connect --network tiktok --username U` against a running sandbox-mode server. */
describe('`npm run herald -- sandbox connect --network tiktok`', () => {
  let cli: SandboxCli
  let h: Harness

  beforeAll(async () => {
    cli = await startSandboxCli('herald-tiktok-cli-')
    h = cli.harness
  })
  afterAll(async () => {
    await cli?.close()
  })

  it('connects the simulated creator through the whole flow and prints it as JSON on the last line', async () => {
    const connected = await cli.connect('tiktok', 'Dock Radio')
    expect(connected).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'tiktok',
      username: 'dockradio',
      name: 'Dock Radio',
      isOrganization: false,
      status: 'active',
    })
    const state = (await (await fetch(`${h.baseUrl}${sandboxPrefixes.tiktok}/_sandbox/state`)).json()) as {
      users: Array<{ username: string; openId: string }>
      violations: string[]
    }
    // The profile is the creator's open id, as TikTok's user info answers it.
    expect(connected.profileId).toBe(state.users.find((u) => u.username === 'dockradio')?.openId)
    expect(state.violations).toEqual([])
  }, 60_000)
})
