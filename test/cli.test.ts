import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runHerald } from './helpers/herald-command.js'

const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-'))
const env = { ...process.env, HERALD_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }
const herald = (...args: string[]) => runHerald(args, env)
const lastLine = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!)

// Each step starts the command afresh (about a second on a quiet machine), so the walk-through gets room.
describe('admin CLI', { timeout: 180_000 }, () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('bootstraps a person, workspace and key and prints them as the last line', async () => {
    const { stdout } = await herald(
      'bootstrap',
      '--email',
      'cli@example.com',
      '--password',
      'password123',
      '--workspace',
      'CLI',
      '--credits',
      '50',
      '--json',
    )
    const result = lastLine(stdout)
    expect(Object.keys(result).sort()).toEqual(['apiKey', 'userId', 'workspaceId'])
    expect(result.apiKey).toMatch(/^hk_/)

    const again = await herald(
      'bootstrap',
      '--email',
      'cli@example.com',
      '--password',
      'password123',
      '--workspace',
      'CLI',
      '--json',
    ).catch((e) => e)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already exists')

    const created = lastLine(
      (await herald('keys', 'create', '--email', 'cli@example.com', '--name', 'second', '--json')).stdout,
    )
    expect(created.defaultWorkspaceId).toBe(result.workspaceId)
    const listed = lastLine((await herald('keys', 'list', '--email', 'cli@example.com', '--json')).stdout)
    expect(listed.map((k: { name: string }) => k.name)).toEqual(['default', 'second'])
    expect(lastLine((await herald('keys', 'revoke', '--id', created.id, '--json')).stdout)).toEqual({
      id: created.id,
      revoked: true,
    })

    const credits = lastLine(
      (await herald('credits', 'add', '--workspace', result.workspaceId, '--amount', '25', '--json')).stdout,
    )
    expect(credits).toEqual({ workspaceId: result.workspaceId, balance: 75 })
    const ws = lastLine(
      (await herald('workspaces', 'create', '--name', 'Second', '--owner', 'cli@example.com', '--json'))
        .stdout,
    )
    expect(ws.workspaceId).toMatch(/^[0-9a-f]{24}$/)
    await herald('users', 'create', '--email', 'ed@example.com', '--password', 'password123', '--json')
    const member = lastLine(
      (
        await herald(
          'members',
          'add',
          '--workspace',
          ws.workspaceId,
          '--email',
          'ed@example.com',
          '--role',
          'editor',
          '--json',
        )
      ).stdout,
    )
    expect(member.role).toBe('editor')
  }, 60_000)

  it('exits 2 with usage on an unknown command', async () => {
    const result = await herald('frobnicate').catch((e) => e)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Unknown command')
  })
})
