import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '../helpers/harness.js'
import { type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'

/** `npm run herald -- sandbox connect --network linkedin [--organization]` against a running sandbox-mode server. */
describe('`npm run herald -- sandbox connect --network linkedin`', () => {
  let cli: SandboxCli
  let h: Harness
  const connect = (...extra: string[]) => cli.connect('linkedin', 'Jo Park', ...extra)

  beforeAll(async () => {
    cli = await startSandboxCli('herald-linkedin-cli-')
    h = cli.harness
  })
  afterAll(async () => {
    await cli?.close()
  })

  it("connects the member's personal profile and prints it as JSON on the last line", async () => {
    expect(await connect()).toMatchObject({
      workspaceId: h.workspaceId,
      platform: 'linkedin',
      username: 'Jo Park',
      name: 'Jo Park',
      isOrganization: false,
      status: 'active',
    })
  }, 60_000)

  it('with --organization connects a page the member administers', async () => {
    const page = await connect('--organization')
    expect(page).toMatchObject({
      platform: 'linkedin',
      username: 'jo-park-studio',
      name: 'Jo Park Studio',
      isOrganization: true,
      status: 'active',
    })
    expect(page.profileId).toMatch(/^\d+$/)
  }, 60_000)

  it('refuses --organization for a network that has no pages to choose', async () => {
    const failed = await cli
      .herald(
        'sandbox',
        'connect',
        '--workspace',
        h.workspaceId,
        '--network',
        'twitter',
        '--username',
        'someone',
        '--organization',
      )
      .catch((error: { code: number; stderr: string }) => error)
    expect((failed as { code: number }).code).not.toBe(0)
    expect((failed as { stderr: string }).stderr).toMatch(/--organization is for linkedin/)
  }, 60_000)
})
