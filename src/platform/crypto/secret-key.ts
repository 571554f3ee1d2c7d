import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../logger.js'

/**
 * The token-vault key: HERALD_SECRET_KEY when set; otherwise `<dataDir>/secret.key`, generated on first
 * start with mode 0600 so the embedded default works with no setup.
 */
export function resolveSecretKey(configured: Buffer | undefined, dataDir: string, logger: Logger): Buffer {
  if (configured) return configured
  const file = path.join(dataDir, 'secret.key')
  if (fs.existsSync(file)) return readKey(file)
  fs.mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  // Written whole to a private temporary file, then linked into place: a second process starting at the
  // same moment either wins the link or reads the complete key the first one published, never half of it.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  fs.writeFileSync(temporary, key.toString('base64'), { mode: 0o600, flag: 'wx' })
  try {
    fs.linkSync(temporary, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return readKey(file)
  } finally {
    fs.rmSync(temporary, { force: true })
  }
  logger.warn(
    { file },
    'HERALD_SECRET_KEY is not set: generated a token-vault key in the data folder; back it up',
  )
  return key
}

function readKey(file: string): Buffer {
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`)
  return key
}

/** Where the vault key of this configuration is, said in words (backups print it: the key is never in one). */
export function secretKeyLocation(configured: Buffer | undefined, dataDir: string): string {
  return configured
    ? 'HERALD_SECRET_KEY in the environment (or .env)'
    : `the file ${path.join(dataDir, 'secret.key')}`
}

/**
 * The vault key if one is configured or already in the data folder, never generating one: a restore must not
 * make a new key before it knows whether the backup's secrets need the old one.
 */
export function findSecretKey(configured: Buffer | undefined, dataDir: string): Buffer | undefined {
  if (configured) return configured
  const file = path.join(dataDir, 'secret.key')
  return fs.existsSync(file) ? readKey(file) : undefined
}
