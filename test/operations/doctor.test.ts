import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { takeBackup } from '../../src/modules/backup/take.js'
import { type Check, runDoctor } from '../../src/modules/operations/doctor.js'
import { loadConfig } from '../../src/platform/config.js'
import { openStore } from '../../src/platform/db/db.js'
import { freePort, type Harness, startHarness } from '../helpers/harness.js'
import { lastJsonLine, runHerald } from '../helpers/herald-command.js'

const node = { pinned: process.versions.node, required: [22, 12] as [number, number] }
const byName = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.name, c]))

describe('herald doctor', () => {
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), 'herald-doctor-'))
  let h: Harness

  beforeAll(async () => {
    h = await startHarness({
      prePickPort: true,
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') }) },
      env: {
        HERALD_DATA_DIR: dataDir,
        HERALD_TWITTER_CLIENT_ID: 'id',
        HERALD_TWITTER_CLIENT_SECRET: 'secret',
      },
    })
  })
  afterAll(async () => {
    await h?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('passes a running instance, asking for a first backup', async () => {
    const checks = byName(await runDoctor({ ...h.app, node }))
    for (const name of [
      'Node.js',
      'Disk',
      'Database',
      'Media store',
      'PUBLIC_BASE_URL',
      'Network apps',
      'Secret key',
    ])
      expect(checks[name]?.verdict, `${name}: ${checks[name]?.detail}`).toBe('ok')
    expect(checks['Network apps']?.detail).toMatch(/twitter/)
    expect(checks.Backups).toMatchObject({
      verdict: 'warn',
      fix: expect.stringMatching(/herald backup.*HERALD_BACKUP_EVERY/),
    })
    await takeBackup(h.app, { dir: path.join(dataDir, 'backups') })
    expect(byName(await runDoctor({ ...h.app, node })).Backups?.verdict).toBe('ok')
  })

  it('says what to fix when the public address does not answer, the media folder is not writable and Node is old', async () => {
    const mediaDir = path.join(dataDir, 'not-a-folder')
    fs.writeFileSync(mediaDir, 'a file where the media folder should be')
    const config = {
      ...loadConfig({ HERALD_DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${await freePort()}` }),
      media: { driver: 'local' as const, dir: mediaDir },
    }
    const checks = byName(
      await runDoctor({ ...h.app, config, node: { pinned: '99.0.0', required: [99, 0] } }),
    )
    expect(checks['PUBLIC_BASE_URL']).toMatchObject({
      verdict: 'fail',
      fix: expect.stringMatching(/PUBLIC_BASE_URL/),
    })
    expect(checks['Media store']).toMatchObject({ verdict: 'fail', fix: expect.stringMatching(/writable/) })
    expect(checks['Node.js']).toMatchObject({
      verdict: 'fail',
      fix: 'Install Node.js 99.0.0 (the release Herald is built and tested on).',
    })
    expect(checks['Secret key']?.verdict).toBe('warn')
  })

  it('prints each check and exits 1 when one fails', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: '',
      HERALD_DATA_DIR: dataDir,
      PUBLIC_BASE_URL: `http://127.0.0.1:${await freePort()}`,
    }
    const run = runHerald(['doctor', '--json'], env)
    const failed = await run.then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    )
    expect(failed?.code).toBe(1)
    const report = lastJsonLine(failed?.stdout ?? '')
    expect(report.failed).toBeGreaterThanOrEqual(1)
    expect(report.checks.map((c: Check) => c.name)).toEqual([
      'Node.js',
      'ffmpeg',
      'Disk',
      'Database',
      'Media store',
      'PUBLIC_BASE_URL',
      'Network apps',
      'Backups',
      'Secret key',
    ])
  })
})
