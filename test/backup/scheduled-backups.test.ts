import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastSuccessfulBackup } from '../../src/modules/backup/runs.js'
import { runScheduledBackup } from '../../src/modules/backup/schedule.js'
import { FakeClock } from '../../src/platform/clock.js'
import { openStore } from '../../src/platform/db/db.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const TOKEN = 'a-long-metrics-token-0123456789'

describe('scheduled backups (HERALD_BACKUP_EVERY, HERALD_BACKUP_KEEP)', () => {
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), 'herald-scheduled-'))
  const backups = path.join(dataDir, 'archives')
  const clock = new FakeClock(Date.parse('2026-12-01T10:15:00Z'))
  let h: Harness

  beforeAll(async () => {
    h = await startHarness({
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') }) },
      clock,
      env: {
        HERALD_DATA_DIR: dataDir,
        HERALD_BACKUP_DIR: backups,
        HERALD_BACKUP_EVERY: '1h',
        HERALD_BACKUP_KEEP: '2',
        HERALD_METRICS_TOKEN: TOKEN,
      },
    })
  })
  afterAll(async () => {
    await h?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  const archives = () =>
    fs
      .readdirSync(backups)
      .filter((n) => n.endsWith('.tar.gz'))
      .sort()
  const scrape = async () => {
    const text = await (
      await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text()
    return /^herald_backup_last_success_timestamp_seconds (\d+)$/m.exec(text)?.[1]
  }

  it('shows no backup in /metrics before the first one', async () => {
    expect(await scrape()).toBe('0')
    expect(await lastSuccessfulBackup(h.app.store.db)).toBeUndefined()
  })

  it('takes one backup per period, however many workers look at once', async () => {
    const looks = await Promise.all([
      runScheduledBackup(h.app),
      runScheduledBackup(h.app),
      runScheduledBackup(h.app),
    ])
    expect(looks.filter(Boolean)).toHaveLength(1)
    expect(archives()).toHaveLength(1)
    clock.advance(20 * 60_000)
    expect(await runScheduledBackup(h.app)).toBeUndefined()
    expect(await scrape()).toBe(String(Math.floor(Date.parse('2026-12-01T10:15:00Z') / 1000)))
  })

  it('keeps the newest HERALD_BACKUP_KEEP archives as the periods pass', async () => {
    const first = archives()[0]
    clock.set(Date.parse('2026-12-01T11:05:00Z'))
    expect(await runScheduledBackup(h.app)).toBeDefined()
    clock.set(Date.parse('2026-12-01T12:05:00Z'))
    const third = await runScheduledBackup(h.app)
    expect(archives()).toHaveLength(2)
    expect(archives()).not.toContain(first)
    expect(archives().at(-1)).toBe(path.basename(third?.file ?? ''))
    expect((await lastSuccessfulBackup(h.app.store.db))?.file).toBe(third?.file)
    expect(await scrape()).toBe(String(Math.floor(Date.parse('2026-12-01T12:05:00Z') / 1000)))
  })
})
