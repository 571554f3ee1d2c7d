import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openStore } from '../src/platform/db/db.js'
import { runHerald } from './helpers/herald-command.js'

const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-cli-media-'))
const env = { ...process.env, HERALD_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }
const DAY = 86_400_000

describe('herald media gc', { timeout: 60_000 }, () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it('removes hosted media past its retention, row and stored file, and prints what it removed as the last line', async () => {
    const store = await openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') })
    const now = Date.now()
    const files = { old: 'a'.repeat(32), recent: 'b'.repeat(32) }
    for (const [which, id] of Object.entries(files)) {
      const at = which === 'old' ? now - 8 * DAY : now - DAY
      mkdirSync(path.join(dataDir, 'media', id), { recursive: true })
      writeFileSync(path.join(dataDir, 'media', id, 'card.png'), Buffer.alloc(1234, 1))
      await store.db
        .insertInto('media')
        .values({
          id,
          workspace_id: null,
          source_url: null,
          sha256: id.repeat(2),
          content_type: 'image/png',
          size: 1234,
          width: null,
          height: null,
          duration_ms: null,
          storage_key: `${id}/card.png`,
          name: 'card.png',
          created_at: at,
          last_used_at: at,
        })
        .execute()
    }
    await store.destroy()

    const { stdout } = await runHerald(['media', 'gc', '--json'], env)
    const result = JSON.parse(stdout.trim().split('\n').at(-1) as string)
    expect(result).toEqual({ removed: [{ id: files.old, name: 'card.png', size: 1234 }], bytes: 1234 })
    expect(existsSync(path.join(dataDir, 'media', files.old, 'card.png'))).toBe(false)
    expect(existsSync(path.join(dataDir, 'media', files.recent, 'card.png'))).toBe(true)

    const again = await runHerald(['media', 'gc'], env)
    expect(again.stdout.trim().split('\n').at(-1)).toBe('Removed 0 hosted media files (0 bytes).')
  })
})
