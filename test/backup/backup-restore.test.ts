import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { RestoreRefused, restoreBackup } from '../../src/modules/backup/restore.js'
import { type BackupResult, takeBackup } from '../../src/modules/backup/take.js'
import { verifyBackup } from '../../src/modules/backup/verify.js'
import { loadConfig } from '../../src/platform/config.js'
import { keyIdOf } from '../../src/platform/crypto/vault.js'
import { openStore, type Store } from '../../src/platform/db/db.js'
import { folderState, hostMedia, withLimit } from '../helpers/backup-rig.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

const KEY = Buffer.alloc(32, 7).toString('base64')
const OTHER_KEY = Buffer.alloc(32, 9).toString('base64')

/** A post and its targets as the database holds them: what "intact" compares. */
async function postsOf(store: Store) {
  const posts = await store.db
    .selectFrom('posts')
    .select(['id', 'content', 'media_urls', 'compose_id'])
    .execute()
  const targets = await store.db
    .selectFrom('targets')
    .select(['id', 'post_id', 'profile_id', 'platform', 'content', 'status', 'remote_id'])
    .execute()
  return new Map(
    posts.map((post) => [
      post.id,
      {
        ...post,
        targets: targets.filter((t) => t.post_id === post.id).map(({ status, remote_id, ...t }) => t),
      },
    ]),
  )
}

const restoreConfig = (dataDir: string, key = KEY) =>
  loadConfig({ HERALD_DATA_DIR: dataDir, HERALD_SECRET_KEY: key })

describe('a backup of a SQLite Herald that is publishing', () => {
  const dataDir = fs.mkdtempSync(path.join(tmpdir(), 'herald-backup-live-'))
  const scratch = fs.mkdtempSync(path.join(tmpdir(), 'herald-backup-scratch-'))
  let h: Harness
  let bluesky: ScriptedAdapter
  let mediaKey: string
  let backup: BackupResult
  let acknowledged: Awaited<ReturnType<typeof postsOf>>

  beforeAll(async () => {
    bluesky = scriptedAdapter('bluesky', { concurrency: 8 })
    h = await startHarness({
      backend: { name: 'sqlite', open: () => openStore({ sqlitePath: path.join(dataDir, 'herald.sqlite') }) },
      env: { HERALD_DATA_DIR: dataDir, HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_WORKER_POLL_MS: '20' },
      adapters: { bluesky },
      credits: 100_000,
    })
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    await connectProfile(h, 'bluesky', 'bs-2', 'beta.bsky.social')
    mediaKey = await hostMedia(h.app, h.workspaceId, Buffer.from('a hosted image'))
  })
  afterAll(async () => {
    await h?.close()
    for (const dir of [dataDir, scratch]) fs.rmSync(dir, { recursive: true, force: true })
  })

  const create = (i: number) =>
    h.call('create_post', {
      content: `Post number ${i}`,
      targetAccounts: [
        { platform: 'bluesky', profileId: 'bs-1' },
        { platform: 'bluesky', profileId: 'bs-2' },
      ],
      ...(i % 2 === 0 ? { publishImmediately: true } : { scheduleDate: '2031-05-01', scheduleTime: '09:30' }),
    })

  it('finds every post acknowledged before it began intact after a restore into a new data folder, with 100 more created during it', async () => {
    for (const answer of await withLimit([...Array(30).keys()], 5, create)) expect(answer.status).toBe(200)
    acknowledged = await postsOf(h.app.store)
    const worker = createAppWorker(h.app, { pollMs: 20 })
    worker.start()
    let answered = 0
    const during = withLimit(
      [...Array(100).keys()].map((i) => i + 100),
      8,
      (i) => create(i).finally(() => answered++),
    )
    await new Promise((resolve) => setTimeout(resolve, 30))
    const answeredAtStart = answered
    backup = await takeBackup(h.app, { dir: path.join(scratch, 'backups') })
    const answers = await during
    // The backup began while the 100 calls were still being made.
    expect(answeredAtStart).toBeLessThan(100)
    await worker.stop()
    expect(answers.every((a) => a.status === 200)).toBe(true)
    expect(bluesky.calls.length).toBeGreaterThan(0)

    const target = path.join(scratch, 'restored')
    const report = await restoreBackup(restoreConfig(target), backup.file, { force: false })
    const restored = await openStore({ sqlitePath: path.join(target, 'herald.sqlite') })
    try {
      const posts = await postsOf(restored)
      for (const [id, post] of acknowledged) expect(posts.get(id), id).toEqual(post)
      // A create_post made during the backup is in it whole (its post for each of the two profiles) or not at all.
      const composes = new Map<string, number>()
      for (const post of posts.values()) {
        expect(post.targets).toHaveLength(1)
        composes.set(post.compose_id ?? post.id, (composes.get(post.compose_id ?? post.id) ?? 0) + 1)
      }
      expect([...composes.values()].every((n) => n === 2)).toBe(true)
      expect(report.counts.posts).toBe(posts.size)
      expect(report.counts.posts).toBeGreaterThanOrEqual(30)
      expect(report.counts).toEqual(backup.manifest.counts)
      const media = fs.readFileSync(path.join(target, 'media', ...mediaKey.split('/')), 'utf8')
      expect(media).toBe('a hosted image')
      const run = await restored.db
        .selectFrom('backup_runs')
        .selectAll()
        .where('id', '=', backup.manifest.id)
        .executeTakeFirst()
      expect(run?.status).toBe('succeeded')
    } finally {
      await restored.destroy()
    }
  }, 90_000)

  it('keeps secrets sealed and the key out of the archive, and names where the key is', async () => {
    const listing = execFileSync('tar', ['tzf', backup.file], { encoding: 'utf8' })
    expect(listing).not.toMatch(/secret\.key/)
    const extracted = path.join(scratch, 'extracted')
    fs.mkdirSync(extracted)
    execFileSync('tar', ['xzf', backup.file, '-C', extracted])
    const bytes = Buffer.concat(
      fs
        .readdirSync(extracted, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => fs.readFileSync(path.join(e.parentPath, e.name))),
    )
    expect(bytes.includes(Buffer.from('access-bluesky-bs-1'))).toBe(false)
    expect(bytes.includes(Buffer.from(KEY))).toBe(false)
    expect(backup.manifest.secrets.keyIds).toEqual([keyIdOf(Buffer.from(KEY, 'base64'))])
    expect(backup.manifest.secrets.sealedValues).toBe(2)
    expect(backup.keyLocation).toBe('HERALD_SECRET_KEY in the environment (or .env)')
  })

  it('verifies: the manifest, every checksum, the database opening with the counts of the manifest', async () => {
    const report = await verifyBackup(restoreConfig(path.join(scratch, 'none')), backup.file)
    expect(report.problems).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.counts).toEqual(backup.manifest.counts)
    expect(report.key.ok).toBe(true)
    const wrongKey = await verifyBackup(restoreConfig(path.join(scratch, 'none'), OTHER_KEY), backup.file)
    expect(wrongKey.key.ok).toBe(false)
  })

  it('finds an altered database entry by its checksum', async () => {
    const unpacked = path.join(scratch, 'altered')
    fs.mkdirSync(unpacked)
    execFileSync('tar', ['xzf', backup.file, '-C', unpacked])
    const [folder] = fs.readdirSync(unpacked) as [string]
    const database = path.join(unpacked, folder, 'database.sqlite')
    const bytes = fs.readFileSync(database)
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff
    fs.writeFileSync(database, bytes)
    const altered = path.join(scratch, 'altered.tar.gz')
    const order = [
      'manifest.json',
      'database.sqlite',
      'settings.json',
      'media.json',
      `media/${mediaKey}`,
      'checksums.json',
    ]
    execFileSync('tar', ['czf', altered, '-C', unpacked, ...order.map((name) => `${folder}/${name}`)])
    const report = await verifyBackup(restoreConfig(path.join(scratch, 'none')), altered)
    expect(report.ok).toBe(false)
    expect(report.problems).toContain(
      'database.sqlite does not match its checksum: the archive was altered or damaged',
    )
    const target = path.join(scratch, 'from-altered')
    await expect(restoreBackup(restoreConfig(target), altered, { force: false })).rejects.toThrow(
      /does not check out/,
    )
    expect(folderState(target)).toEqual({})
  })

  it('refuses, changing nothing, to restore into a data folder that holds data without --force', async () => {
    const target = path.join(scratch, 'occupied')
    fs.mkdirSync(path.join(target, 'media', 'old'), { recursive: true })
    fs.copyFileSync(path.join(scratch, 'restored', 'herald.sqlite'), path.join(target, 'herald.sqlite'))
    fs.writeFileSync(path.join(target, 'media', 'old', 'file.png'), 'old media')
    const before = folderState(target)
    const refused = restoreBackup(restoreConfig(target), backup.file, { force: false })
    await expect(refused).rejects.toBeInstanceOf(RestoreRefused)
    await expect(refused).rejects.toThrow(/already holds data .*--force.*Nothing was changed/)
    expect(folderState(target)).toEqual(before)

    const forced = await restoreBackup(restoreConfig(target), backup.file, { force: true })
    expect(forced.replacedKeptAt).toBeDefined()
    const kept = forced.replacedKeptAt as string
    expect(fs.readFileSync(path.join(kept, 'media', 'old', 'file.png'), 'utf8')).toBe('old media')
    expect(fs.existsSync(path.join(kept, 'herald.sqlite'))).toBe(true)
    expect(fs.existsSync(path.join(target, 'media', ...mediaKey.split('/')))).toBe(true)
  })

  it('refuses a backup whose secrets the configured key does not open, before anything is written', async () => {
    const target = path.join(scratch, 'wrong-key')
    const refused = restoreBackup(restoreConfig(target, OTHER_KEY), backup.file, { force: false })
    await expect(refused).rejects.toThrow(
      new RegExp(
        `sealed with the key with id ${keyIdOf(Buffer.from(KEY, 'base64'))}, which is not configured here.*Nothing was changed`,
      ),
    )
    expect(fs.existsSync(target)).toBe(false)
    const keyless = path.join(scratch, 'no-key')
    await expect(
      restoreBackup(loadConfig({ HERALD_DATA_DIR: keyless }), backup.file, { force: false }),
    ).rejects.toThrow(/No secret key is configured here.*copy its secret\.key to .*no-key/)
    expect(fs.existsSync(keyless)).toBe(false)
  })

  it('refuses a cut-short archive, changing nothing', async () => {
    const cut = path.join(scratch, 'cut.tar.gz')
    const whole = fs.readFileSync(backup.file)
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)))
    const target = path.join(scratch, 'from-cut')
    await expect(restoreBackup(restoreConfig(target), cut, { force: false })).rejects.toThrow(
      /Nothing was changed/,
    )
    expect(fs.readdirSync(target).filter((name) => !name.startsWith('.'))).toEqual([])
  })
})
