import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { canConnect } from '../../adapters/apps.js'
import { networks } from '../../core/networks.js'
import type { Clock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import { secretKeyLocation } from '../../platform/crypto/secret-key.js'
import type { Vault } from '../../platform/crypto/vault.js'
import { appliedMigrations, heraldMigrations, isReachable, type Store } from '../../platform/db/db.js'
import { lastSuccessfulBackup } from '../backup/runs.js'
import { describeFfmpeg, lookForFfmpeg } from '../media/ffmpeg.js'
import { createMediaStorage, type MediaStorage } from '../media/storage.js'
import { readSavedApps } from '../network-apps/service.js'

/**
 * `herald doctor`: checks how this Herald is set up, each check ending ok, warn (works, but something will
 * bite) or fail (something does not work), with what to do about it in words.
 */

export type Verdict = 'ok' | 'warn' | 'fail'

export interface Check {
  name: string
  verdict: Verdict
  detail: string
  /** What to do, when the verdict is not ok. */
  fix?: string
}

export interface DoctorDeps {
  config: Config
  store: Store
  vault: Vault
  clock: Clock
  /** The Node release Herald is built on (.node-version), and the oldest it accepts. */
  node: { pinned: string; required: [number, number] }
  /** Test seams: the media storage, and how PUBLIC_BASE_URL is asked (default: fetch). */
  storage?: MediaStorage
  fetch?: typeof fetch
}

const MIN_FREE_BYTES = 2 * 1024 ** 3
const DAY = 86_400_000

export async function runDoctor(deps: DoctorDeps): Promise<Check[]> {
  const checks: Array<() => Promise<Check> | Check> = [
    () => checkNode(deps),
    () => checkFfmpeg(deps.config),
    () => checkDisk(deps.config),
    () => checkDatabase(deps),
    () => checkMedia(deps),
    () => checkPublicUrl(deps),
    () => checkNetworkApps(deps),
    () => checkBackups(deps),
    () => checkSecretKey(deps.config),
  ]
  const results: Check[] = []
  for (const check of checks) {
    try {
      results.push(await check())
    } catch (error) {
      results.push({ name: 'check', verdict: 'fail', detail: (error as Error).message })
    }
  }
  return results
}

function checkNode({ node }: DoctorDeps): Check {
  const version = process.versions.node
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const [needMajor, needMinor] = node.required
  if (major < needMajor || (major === needMajor && minor < needMinor))
    return {
      name: 'Node.js',
      verdict: 'fail',
      detail: `${version}, older than ${node.required.join('.')}`,
      fix: `Install Node.js ${node.pinned} (the release Herald is built and tested on).`,
    }
  return version === node.pinned
    ? { name: 'Node.js', verdict: 'ok', detail: version }
    : {
        name: 'Node.js',
        verdict: 'warn',
        detail: `${version}; Herald is built and tested on ${node.pinned}`,
        fix: `Run Herald on Node.js ${node.pinned} (npm start fetches it when the machine's is older).`,
      }
}

async function checkFfmpeg(config: Config): Promise<Check> {
  const configured = config.videoConversion.ffmpegPath
  if (configured?.trim().toLowerCase() === 'none')
    return {
      name: 'ffmpeg',
      verdict: 'ok',
      detail: 'off (HERALD_FFMPEG_PATH=none): videos needing conversion are refused',
    }
  const found = await lookForFfmpeg({ configured })
  return found.ffmpeg
    ? { name: 'ffmpeg', verdict: 'ok', detail: describeFfmpeg(found) }
    : {
        name: 'ffmpeg',
        verdict: 'warn',
        detail: describeFfmpeg(found),
        fix: 'Install ffmpeg 5.1 or newer (Debian: apt-get install ffmpeg) or name one in HERALD_FFMPEG_PATH; without it, videos that need converting are refused.',
      }
}

function checkDisk(config: Config): Check {
  const dir = fs.existsSync(config.dataDir) ? config.dataDir : path.dirname(config.dataDir)
  const stats = fs.statfsSync(dir)
  const free = stats.bavail * stats.bsize
  const share = stats.bavail / stats.blocks
  const detail = `${(free / 1024 ** 3).toFixed(1)} GB free (${Math.round(share * 100)}%) where ${config.dataDir} is`
  return free < MIN_FREE_BYTES || share < 0.1
    ? {
        name: 'Disk',
        verdict: 'warn',
        detail,
        fix: 'Free some space: the database, hosted media, the media cache (HERALD_MEDIA_CACHE_MB) and backups (HERALD_BACKUP_KEEP) grow there.',
      }
    : { name: 'Disk', verdict: 'ok', detail }
}

async function checkDatabase({ store }: DoctorDeps): Promise<Check> {
  const kind = store.dialect === 'sqlite' ? `SQLite (${store.sqliteFile ?? 'in memory'})` : 'Postgres'
  if (!(await isReachable(store)))
    return {
      name: 'Database',
      verdict: 'fail',
      detail: `${kind} does not answer`,
      fix: 'Check DATABASE_URL and that the database server runs.',
    }
  const schema =
    store.dialect === 'postgres'
      ? ((await store.pgPool?.query<{ s: string }>('SELECT current_schema() AS s'))?.rows[0]?.s ?? undefined)
      : undefined
  const applied = await appliedMigrations(store, schema)
  const missing = Object.keys(heraldMigrations(store.dialect)).filter((name) => !applied?.has(name))
  return missing.length > 0
    ? {
        name: 'Database',
        verdict: 'fail',
        detail: `${kind}: migrations not applied: ${missing.join(', ')}`,
        fix: 'Start Herald once: it runs them.',
      }
    : { name: 'Database', verdict: 'ok', detail: `${kind}, every migration applied` }
}

async function checkMedia(deps: DoctorDeps): Promise<Check> {
  const { config } = deps
  const storage = deps.storage ?? createMediaStorage(config.media)
  const where =
    config.media.driver === 's3' ? `S3 bucket ${config.media.bucket}` : `folder ${config.media.dir}`
  const key = `doctor-${randomBytes(6).toString('hex')}/probe.txt`
  const scratch = path.join(tmpdir(), `herald-doctor-${randomBytes(6).toString('hex')}`)
  try {
    await writeFile(scratch, 'herald doctor')
    await storage.putFile(key, scratch, { contentType: 'text/plain', size: 13 })
    let text = ''
    for await (const chunk of await storage.read(key)) text += chunk.toString()
    await storage.delete(key)
    if (text !== 'herald doctor') throw new Error('what was read back is not what was written')
    return { name: 'Media store', verdict: 'ok', detail: `${where}: written, read back and removed` }
  } catch (error) {
    return {
      name: 'Media store',
      verdict: 'fail',
      detail: `${where}: ${(error as Error).message}`,
      fix:
        config.media.driver === 's3'
          ? 'Check HERALD_S3_BUCKET, HERALD_S3_ENDPOINT, HERALD_S3_REGION and the credentials.'
          : `Make ${config.media.dir} writable by the user Herald runs as.`,
    }
  } finally {
    await rm(scratch, { force: true })
  }
}

async function checkPublicUrl(deps: DoctorDeps): Promise<Check> {
  const url = `${deps.config.publicBaseUrl}/healthz`
  try {
    const answer = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(5_000) })
    const body = (await answer.json().catch(() => undefined)) as { ok?: boolean } | undefined
    if (!answer.ok || body?.ok !== true) throw new Error(`it answered ${answer.status}, not Herald's health`)
    const plain = deps.config.publicBaseUrl.startsWith('http:') && !/\/\/(127\.|localhost|\[::1\])/.test(url)
    return plain
      ? {
          name: 'PUBLIC_BASE_URL',
          verdict: 'warn',
          detail: `${url} answers, over plain http`,
          fix: 'Serve Herald over https behind a reverse proxy (docs/security.md): sign-in cookies and networks that fetch media need it.',
        }
      : { name: 'PUBLIC_BASE_URL', verdict: 'ok', detail: `${url} answers` }
  } catch (error) {
    return {
      name: 'PUBLIC_BASE_URL',
      verdict: 'fail',
      detail: `${url} does not answer from here (${(error as Error).message})`,
      fix: 'Start Herald, and set PUBLIC_BASE_URL to the address it is reached at (through your reverse proxy).',
    }
  }
}

async function checkNetworkApps({ config, store, vault }: DoctorDeps): Promise<Check> {
  const saved = await readSavedApps(store, vault)
  const ready = networks.filter((network) => canConnect(config, network, saved))
  return ready.length > 0
    ? { name: 'Network apps', verdict: 'ok', detail: `profiles can be connected on ${ready.join(', ')}` }
    : {
        name: 'Network apps',
        verdict: 'warn',
        detail: 'no network can be connected yet',
        fix: "Save a network's developer app on the Network apps page, or set its HERALD_*_CLIENT_ID and secret (docs/configuration.md).",
      }
}

async function checkBackups({ config, store, clock }: DoctorDeps): Promise<Check> {
  const last = await lastSuccessfulBackup(store.db)
  const every = config.backups.everyMs
  if (!last)
    return {
      name: 'Backups',
      verdict: 'warn',
      detail: 'no backup has succeeded yet',
      fix: 'Run herald backup, and set HERALD_BACKUP_EVERY (for example 24h) for the workers to take them.',
    }
  const age = clock.now() - last.finishedAt
  const detail = `the last succeeded ${new Date(last.finishedAt).toISOString()} (${last.file})`
  if (age > (every ? 2 * every : 7 * DAY))
    return {
      name: 'Backups',
      verdict: 'warn',
      detail: `${detail}, ${Math.floor(age / DAY)} days ago`,
      fix: every
        ? 'The scheduled backups are failing or no worker runs: see the workers\u2019 log lines "scheduled backup".'
        : 'Run herald backup, and set HERALD_BACKUP_EVERY for the workers to take them.',
    }
  return { name: 'Backups', verdict: 'ok', detail }
}

function checkSecretKey(config: Config): Check {
  const where = secretKeyLocation(config.secretKey, config.dataDir)
  return config.secretKey
    ? { name: 'Secret key', verdict: 'ok', detail: `${where}; it is never in a backup` }
    : {
        name: 'Secret key',
        verdict: 'warn',
        detail: `${where}, inside the data folder`,
        fix: 'Keep a copy of that file apart from the backups (a backup never holds it), or set HERALD_SECRET_KEY to its contents.',
      }
}
