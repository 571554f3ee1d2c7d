import { createCipheriv, randomBytes } from 'node:crypto'
import { keyIdOf } from '../../src/platform/crypto/vault.js'

/**
 * A ciphertext exactly as the vault sealed before migration 017 (`v1`, bound to nothing: its associated
 * data was only the key id), for tests of what happens to values stored then.
 */
export function sealV1(key: Buffer, plaintext: string): string {
  const keyId = keyIdOf(key)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(keyId))
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [
    'v1',
    keyId,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    data.toString('base64url'),
  ].join('.')
}
