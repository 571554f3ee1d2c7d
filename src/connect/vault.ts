import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/**
 * AES-256-GCM for network credentials at rest. Each ciphertext names the key that sealed it
 * (`v1.<keyId>.<iv>.<tag>.<data>`), so older keys can keep opening old rows while `secrets rotate`
 * re-seals them under the current key.
 */
export interface Vault {
  readonly currentKeyId: string
  seal(plaintext: string): string
  open(ciphertext: string): string
  sealJson(value: unknown): string
  openJson<T>(ciphertext: string): T
  /** True when the ciphertext was sealed with an older key. */
  needsRotation(ciphertext: string): boolean
}

export class VaultError extends Error {
  override name = 'VaultError'
}

export const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8)

export function createVault(currentKey: Buffer, olderKeys: Buffer[] = []): Vault {
  if (currentKey.length !== 32) throw new VaultError('The vault key must be 32 bytes')
  const keys = new Map<string, Buffer>()
  for (const key of [currentKey, ...olderKeys]) keys.set(keyIdOf(key), key)
  const currentKeyId = keyIdOf(currentKey)

  const seal = (plaintext: string) => {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', currentKey, iv)
    cipher.setAAD(Buffer.from(currentKeyId))
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [
      'v1',
      currentKeyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.')
  }

  const open = (ciphertext: string) => {
    const [version, keyId, iv, tag, data] = ciphertext.split('.')
    if (version !== 'v1' || !keyId || !iv || !tag || data === undefined)
      throw new VaultError('Not a vault ciphertext')
    const key = keys.get(keyId)
    if (!key) throw new VaultError(`No vault key with id ${keyId} is configured`)
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAAD(Buffer.from(keyId))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      )
    } catch {
      throw new VaultError('Vault ciphertext failed authentication')
    }
  }

  return {
    currentKeyId,
    seal,
    open,
    sealJson: (value) => seal(JSON.stringify(value)),
    openJson: <T>(ciphertext: string) => JSON.parse(open(ciphertext)) as T,
    needsRotation: (ciphertext) => ciphertext.split('.')[1] !== currentKeyId,
  }
}
