import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
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
    expect(listed.map((k: { name: string }) => k.name).sort()).toEqual(['default', 'second'])
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

describe('a mistake on the command line', () => {
  const fresh = () => mkdtempSync(path.join(tmpdir(), 'herald-cli-usage-'))

  it.each([
    [['credits', 'add', '--workspace', 'w', '--amount', '-5'], '--amount must be a whole number from 1 to'],
    [['credits', 'add', '--workspace', 'w', '--amount', '2.5'], '--amount must be a whole number from 1 to'],
    [
      ['bootstrap', '--email', 'a@b.co', '--password', 'p', '--workspace', 'W', '--credits', 'lots'],
      '--credits must be a whole number from 0 to',
    ],
    [['keys', 'list'], '--email is required'],
    [['keys', 'list', '--emial', 'a@b.co'], 'Unknown option --emial'],
    [
      ['webhooks', 'log', '--workspace', 'w', '--id', 'e', '--limit', '501'],
      '--limit must be a whole number from 1 to 500',
    ],
    [
      ['members', 'add', '--workspace', 'w', '--email', 'a@b.co', '--role', 'admin'],
      '--role is owner or editor',
    ],
  ])(
    '%j is said in one line with that command’s usage under it, and changes nothing',
    async (args, message) => {
      const dir = fresh()
      const result = await runHerald(args, { ...env, HERALD_DATA_DIR: dir }).catch((e) => e)
      rmSync(dir, { recursive: true, force: true })
      expect(result.code).toBe(2)
      const lines = result.stderr.trim().split('\n')
      expect(lines.length).toBeLessThanOrEqual(3)
      expect(lines[0]).toContain(message)
      expect(lines[1]).toMatch(new RegExp(`^usage: herald ${args[0]}`))
      expect(result.stderr).not.toContain('using data folder')
    },
  )

  it('names an unknown command in two lines, not the whole help', async () => {
    const result = await herald('keys', 'lst').catch((e) => e)
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      'Unknown command: keys lst',
      'Run herald --help to see every command.',
    ])
  })

  it('lists in the README every command --help lists', async () => {
    const { stdout } = await herald('--help')
    const readme = readFileSync('README.md', 'utf8').replaceAll('\\|', '|')
    const table = readme.slice(readme.indexOf('## Admin CLI'), readme.indexOf('## Configuration'))
    const calls = stdout
      .split('\n')
      .filter((line) => /^ {2}[a-z]/.test(line))
      .map((line) => line.trim().split(/ {2,}| --| FILE| \[/)[0] as string)
    expect(calls.length).toBeGreaterThan(20)
    for (const call of calls) expect(table, call).toContain(`\`${call}`)
  })
})
