import { createHash, randomBytes } from 'node:crypto'

const KEY_PREFIX = 'hk_'
/** How much of a key is kept in clear so people can tell their keys apart. */
const VISIBLE_CHARS = 10

export interface NewApiKey {
  /** The key itself: shown once, never stored. */
  key: string
  prefix: string
  hash: string
}

export function generateApiKey(): NewApiKey {
  const key = KEY_PREFIX + randomBytes(24).toString('base64url')
  return { key, prefix: key.slice(0, VISIBLE_CHARS), hash: hashApiKey(key) }
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}
