import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectProfile } from './helpers/connections.js'
import { teamCsv } from './helpers/csv-fixture.js'
import { lastJsonLine, type SandboxCli, startSandboxCli } from './helpers/herald-command.js'

/** The team-workflow commands: posts import, queue and approvals, against the server's own SQLite file. */
describe('herald posts import, queue and approvals', { timeout: 180_000 }, () => {
  let cli: SandboxCli
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-csv-'))
  const count = async () => (await cli.harness.call('list_posts', {})).body.counts.all as number

  beforeAll(async () => {
    cli = await startSandboxCli('herald-cli-team-', { credits: 1_000 })
    await connectProfile(cli.harness, 'linkedin', 'li-1', 'acme-li')
  })
  afterAll(async () => {
    await cli?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('checks a 200-row file with --dry-run creating nothing, imports the 193 good rows, and creates nothing the second time', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    const { text, bad } = teamCsv({ good: 193, from: tomorrow, queueRows: 2 })
    const file = path.join(dir, 'month.csv')
    writeFileSync(file, text)
    const ws = cli.harness.workspaceId
    // Queue rows need posting times first.
    const set = await cli.herald(
      'queue',
      'set',
      '--workspace',
      ws,
      '--profile',
      'linkedin:acme-li',
      '--timezone',
      'Europe/Berlin',
      '--slot',
      'daily 09:00',
      '--slot',
      'daily 17:00',
    )
    expect(set.stdout).toContain(
      'Posting times of linkedin @acme-li (Europe/Berlin): daily 09:00, daily 17:00.',
    )

    const dry = await cli.herald('posts', 'import', file, '--workspace', ws, '--dry-run')
    expect(dry.stdout).toMatch(
      /Dry run: 200 rows, 193 ready \(193 credits\), 7 blocked.*Nothing was created\./,
    )
    for (const b of bad) expect(dry.stdout).toContain(`row ${b.row}: blocked`)
    expect(dry.stdout).toMatch(
      /first comment: firstComment: linkedin @acme-li: the first comment is \d+ characters; linkedin allows 1250/,
    )
    expect(await count()).toBe(0)

    const done = lastJsonLine((await cli.herald('posts', 'import', file, '--workspace', ws, '--json')).stdout)
    expect(done.summary).toMatchObject({ created: 193, blocked: 7, failed: 0 })
    expect(await count()).toBe(193)
    const again = await cli.herald('posts', 'import', file, '--workspace', ws)
    expect(again.stdout).toMatch(
      /200 rows: 0 created, 7 blocked, 0 repeated, 193 imported before, 0 failed\./,
    )
    expect(await count()).toBe(193)
  })

  it('refuses a missing file, a file that is not CSV and malformed posting times with exit codes and reasons', async () => {
    const ws = cli.harness.workspaceId
    const missing = await cli
      .herald('posts', 'import', path.join(dir, 'nope.csv'), '--workspace', ws)
      .catch((e) => e)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('ENOENT')
    const junk = path.join(dir, 'junk.csv')
    writeFileSync(junk, 'colour,size\nred,9\n')
    const refused = await cli.herald('posts', 'import', junk, '--workspace', ws).catch((e) => e)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/Unknown columns "colour", "size"/)
    const overlap = await cli
      .herald(
        'queue',
        'set',
        '--workspace',
        ws,
        '--profile',
        'linkedin:acme-li',
        '--slot',
        'daily 09:00',
        '--slot',
        'mon 9:00',
      )
      .catch((e) => e)
    expect(overlap.code).toBe(1)
    expect(overlap.stderr).toMatch(/slots\[1\]: "mon 9:00" overlaps "daily 09:00"/)
  })

  it('turns approvals on and shows them', async () => {
    const ws = cli.harness.workspaceId
    expect((await cli.herald('approvals', 'on', '--workspace', ws)).stdout).toContain('now wait')
    const shown = lastJsonLine((await cli.herald('approvals', 'show', '--workspace', ws, '--json')).stdout)
    expect(shown).toEqual({ requireApproval: true, pending: 0, rejected: 0 })
  })
})
