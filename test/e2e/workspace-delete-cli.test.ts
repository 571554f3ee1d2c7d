import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { lastJsonLine, type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'

/**
 * `herald workspaces delete` beside a running sandbox-mode server: the command withdraws Herald's access at
 * the simulated networks before it deletes the rows, and prints what each network answered.
 */
describe('`herald workspaces delete`', () => {
  let cli: SandboxCli

  beforeAll(async () => {
    cli = await startSandboxCli('herald-delete-cli-')
  }, 60_000)
  afterAll(async () => {
    await cli?.close()
  })

  it('revokes the X token at the simulator, says Bluesky offers no way, and deletes the workspace', async () => {
    const h = cli.harness
    const x = await cli.connect('twitter', 'cli_gone')
    await cli.connect('bluesky', 'cli-gone.bsky.social')
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', x.connectionId)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    await expect(h.app.adapters.twitter!.resolveProfile(credentials)).resolves.toMatchObject({
      username: 'cli_gone',
    })

    const text = await cli.herald('workspaces', 'delete', '--workspace', h.workspaceId, '--confirm', 'Acme')
    expect(text.stdout).toContain('Access withdrawn at the network for 1 of 2 profiles:')
    expect(text.stdout).toContain('twitter @cli_gone: withdrawn')
    expect(text.stdout).toContain('bluesky @cli-gone.bsky.social: not offered by the network.')
    expect(text.stdout).not.toContain(credentials.accessToken)
    // The oracle is X: the token Herald held is refused there now.
    await expect(h.app.adapters.twitter!.resolveProfile(credentials)).rejects.toMatchObject({
      kind: 'auth_expired',
    })
    expect(
      await h.app.store.db.selectFrom('workspaces').select('id').where('id', '=', h.workspaceId).execute(),
    ).toEqual([])
  }, 60_000)

  it('answers --json with each profile’s outcome', async () => {
    const h = cli.harness
    const other = await h.app.accounts.createWorkspace({ name: 'Second', ownerEmail: h.email })
    const { stdout } = await cli.herald(
      'workspaces',
      'delete',
      '--workspace',
      other.workspaceId,
      '--confirm',
      'Second',
      '--json',
    )
    expect(lastJsonLine(stdout)).toMatchObject({ workspaceId: other.workspaceId, connections: [] })
  }, 60_000)
})
