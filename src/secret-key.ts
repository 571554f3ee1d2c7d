import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from './logger.js'

/**
 * The token-vault key: HERALD_SECRET_KEY when set; otherwise `<dataDir>/secret.key`, generated on first
 * start with mode 0600 so the embedded default works with no setup.
 */
export function resolveSecretKey(configured: Buffer | undefined, dataDir: string, logger: Logger): Buffer {
  if (configured) return configured
  const file = path.join(dataDir, 'secret.key')
  if (fs.existsSync(file)) {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`)
    return key
  }
  fs.mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' })
  logger.warn(
    { file },
    'HERALD_SECRET_KEY is not set: generated a token-vault key in the data folder; back it up',
  )
  return key
}
