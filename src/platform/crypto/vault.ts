import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from 'node:crypto'

/**
 * AES-256-GCM for network credentials and other secrets at rest. Each ciphertext names the key that
 * sealed it (`v2.<keyId>.<iv>.<tag>.<data>`), so older keys can keep opening old rows while
 * `secrets rotate` re-seals them under the current key, and it is bound to the place it is stored in
 * (table, column and row id, as AES-GCM associated data): a value copied into another row or column
 * fails to open there. `v1` ciphertexts (before migration 017) were bound to nothing; migration 017
 * re-seals them bound ({@link Vault.bind}) and {@link Vault.open} refuses them.
 */
export interface Vault {
  readonly currentKeyId: string
  seal(at: SealedAt, plaintext: string): string
  /** @throws {VaultError} when the value was sealed for another place, altered, unbound or unreadable. */
  open(at: SealedAt, ciphertext: string): string
  sealJson(at: SealedAt, value: unknown): string
  openJson<T>(at: SealedAt, ciphertext: string): T
  /** True when the ciphertext was sealed with an older key (or is unbound). */
  needsRotation(ciphertext: string): boolean
  /** Migration 017 only: an unbound `v1` ciphertext, opened and re-sealed bound to `at`. */
  bind(at: SealedAt, unbound: string): string
}

/** Where a sealed value is stored: it opens only there. */
export interface SealedAt {
  table: string
  column: string
  id: string
}

/** Where the credentials of a connection live. */
export const connectionCredentials = (id: string): SealedAt => ({
  table: 'connections',
  column: 'credentials',
  id,
})

/** Where a webhook endpoint's signing secret (or the one it replaced) lives. */
export const webhookSecretAt = (id: string, column: 'secret' | 'previous_secret'): SealedAt => ({
  table: 'webhook_endpoints',
  column,
  id,
})

/** Where the secret of a developer app saved on the network apps page lives (the row's id is the network). */
export const networkAppSecretAt = (network: string): SealedAt => ({
  table: 'network_apps',
  column: 'client_secret',
  id: network,
})

/** Where the secret of Herald's own app on a Mastodon instance lives (the row's id is the instance's host). */
export const mastodonAppSecretAt = (host: string): SealedAt => ({
  table: 'mastodon_instances',
  column: 'client_secret',
  id: host,
})

/**
 * Why a value did not open: `misplaced` (it fails authentication here: sealed for another row or column,
 * or altered), `unbound` (an old `v1` value, which migration 017 should have re-sealed), `unknown_key`
 * (sealed under a key that is not configured), `malformed` (not a vault ciphertext).
 */
export type VaultRefusal = 'misplaced' | 'unbound' | 'unknown_key' | 'malformed'

export class VaultError extends Error {
  override name = 'VaultError'
  constructor(
    readonly reason: VaultRefusal,
    message: string,
  ) {
    super(message)
  }
}

export const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8)

const BOUND = 'v2'
const UNBOUND = 'v1'

/** True for a `v1` ciphertext (sealed before migration 017, bound to no row). */
export const isUnbound = (ciphertext: string) => ciphertext.startsWith(`${UNBOUND}.`)

const where = (at: SealedAt) => `${at.table}.${at.column} of row ${at.id}`

export function createVault(currentKey: Buffer, olderKeys: Buffer[] = []): Vault {
  if (currentKey.length !== 32) throw new VaultError('malformed', 'The vault key must be 32 bytes')
  // Imported once: a raw key Buffer is imported again by every cipher made from it (a send opens its
  // credentials, a webhook delivery its secret).
  const keys = new Map<string, KeyObject>()
  for (const key of [currentKey, ...olderKeys]) keys.set(keyIdOf(key), createSecretKey(key))
  const currentKeyId = keyIdOf(currentKey)
  const sealingKey = keys.get(currentKeyId) as KeyObject
  // The associated data: the format, the key and the place, as one unambiguous string.
  const boundTo = (keyId: string, at: SealedAt) =>
    Buffer.from(JSON.stringify([BOUND, keyId, at.table, at.column, at.id]))

  const seal = (at: SealedAt, plaintext: string) => {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', sealingKey, iv)
    cipher.setAAD(boundTo(currentKeyId, at))
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [
      BOUND,
      currentKeyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.')
  }

  const decrypt = (ciphertext: string, aad: (keyId: string) => Buffer, at: SealedAt | undefined) => {
    const [, keyId, iv, tag, data] = ciphertext.split('.')
    if (!keyId || !iv || !tag || data === undefined)
      throw new VaultError('malformed', 'Not a vault ciphertext')
    const key = keys.get(keyId)
    if (!key) throw new VaultError('unknown_key', `No vault key with id ${keyId} is configured`)
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAAD(aad(keyId))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      )
    } catch {
      throw new VaultError(
        'misplaced',
        at
          ? `The sealed value in ${where(at)} fails authentication: it was sealed for another row or column, or altered`
          : 'Vault ciphertext failed authentication',
      )
    }
  }

  const open = (at: SealedAt, ciphertext: string) => {
    const version = ciphertext.slice(0, ciphertext.indexOf('.'))
    if (version === UNBOUND)
      throw new VaultError(
        'unbound',
        `The sealed value in ${where(at)} is in the unbound v1 format, which is no longer accepted (migration 017 re-seals every stored value)`,
      )
    if (version !== BOUND) throw new VaultError('malformed', 'Not a vault ciphertext')
    return decrypt(ciphertext, (keyId) => boundTo(keyId, at), at)
  }

  return {
    currentKeyId,
    seal,
    open,
    sealJson: (at, value) => seal(at, JSON.stringify(value)),
    openJson: <T>(at: SealedAt, ciphertext: string) => JSON.parse(open(at, ciphertext)) as T,
    needsRotation: (ciphertext) => isUnbound(ciphertext) || ciphertext.split('.')[1] !== currentKeyId,
    bind(at, unbound) {
      if (!isUnbound(unbound)) throw new VaultError('malformed', 'Not an unbound (v1) vault ciphertext')
      // v1 authenticated only its key id.
      return seal(
        at,
        decrypt(unbound, (keyId) => Buffer.from(keyId), undefined),
      )
    },
  }
}
