import type { Config } from '../../platform/config.js'
import { findSecretKey, secretKeyLocation } from '../../platform/crypto/secret-key.js'
import { createVault, keyIdOf, type Vault } from '../../platform/crypto/vault.js'
import { type BackupManifest, keyCheckAt } from './manifest.js'

/**
 * Whether the keys configured here open a backup's secrets, decided from its manifest alone: the ids of the
 * keys that sealed them must all be configured (HERALD_SECRET_KEY or the data folder's secret.key, and
 * HERALD_OLD_SECRET_KEYS), and the check value sealed by the backing-up key must open. Never generates a key.
 */

export type KeyVerdict =
  | { ok: true; vault: Vault | undefined; keyId: string | undefined; note: string }
  | { ok: false; problem: string }

export function checkBackupKey(config: Config, manifest: BackupManifest): KeyVerdict {
  const key = findSecretKey(config.secretKey, config.dataDir)
  const needed = manifest.secrets.keyIds
  const where = secretKeyLocation(config.secretKey, config.dataDir)
  if (!key) {
    if (manifest.secrets.sealedValues === 0)
      return {
        ok: true,
        vault: undefined,
        keyId: undefined,
        note: 'The backup holds no sealed secrets; Herald makes a new key at its first start.',
      }
    return {
      ok: false,
      problem: `No secret key is configured here, and the backup's ${manifest.secrets.sealedValues} sealed secrets need the key with id ${needed.join(', ')}. Set HERALD_SECRET_KEY to the key of the Herald that made the backup, or copy its secret.key to ${where.replace(/^the file /, '')}. Nothing was changed.`,
    }
  }
  const configured = [key, ...config.oldSecretKeys].map(keyIdOf)
  const missing = needed.filter((id) => !configured.includes(id))
  if (missing.length > 0)
    return {
      ok: false,
      problem: `The backup's secrets were sealed with the key with id ${missing.join(', ')}, which is not configured here (this Herald's key, from ${where}, has id ${keyIdOf(key)}). Set HERALD_SECRET_KEY to the key of the Herald that made the backup (an older key can go in HERALD_OLD_SECRET_KEYS). Nothing was changed.`,
    }
  const vault = createVault(key, config.oldSecretKeys)
  const checkKeyId = manifest.secrets.keyCheck.split('.')[1] ?? ''
  if (configured.includes(checkKeyId)) {
    try {
      vault.open(keyCheckAt(manifest.id), manifest.secrets.keyCheck)
    } catch {
      return {
        ok: false,
        problem: `The key with id ${checkKeyId} does not open this backup's key check: the manifest was altered, or the key is not the one that made it. Nothing was changed.`,
      }
    }
  }
  return {
    ok: true,
    vault,
    keyId: keyIdOf(key),
    note: needed.length
      ? `The secrets open with the key configured here (id ${needed.join(', ')}, from ${where}).`
      : 'The backup holds no sealed secrets.',
  }
}
