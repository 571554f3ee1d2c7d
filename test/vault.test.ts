import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  connectionCredentials,
  createVault,
  VaultError,
  type VaultRefusal,
} from '../src/platform/crypto/vault.js'
import { sealV1 } from './helpers/vault-v1.js'

/** The refusal a call ends with (fails the test when it opens). */
function refusal(call: () => unknown): VaultRefusal {
  try {
    call()
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError)
    return (error as VaultError).reason
  }
  throw new Error('the value opened')
}

describe('token vault', () => {
  const key = randomBytes(32)
  const here = connectionCredentials('c-1')

  it('round-trips JSON and never leaves plaintext in the ciphertext', () => {
    const vault = createVault(key)
    const sealed = vault.sealJson(here, { accessToken: 'at-secret-123', refreshToken: 'rt-secret-456' })
    expect(sealed).not.toContain('secret')
    expect(sealed.startsWith(`v2.${vault.currentKeyId}.`)).toBe(true)
    expect(vault.openJson(here, sealed)).toEqual({
      accessToken: 'at-secret-123',
      refreshToken: 'rt-secret-456',
    })
  })

  it('uses a fresh IV each time', () => {
    const vault = createVault(key)
    expect(vault.seal(here, 'same')).not.toBe(vault.seal(here, 'same'))
  })

  it('refuses tampered ciphertext', () => {
    const vault = createVault(key)
    const parts = vault.seal(here, 'hello').split('.')
    parts[4] = Buffer.from('jello').toString('base64url')
    expect(refusal(() => vault.open(here, parts.join('.')))).toBe('misplaced')
  })

  it('refuses a value copied to another row, another column or another table', () => {
    const vault = createVault(key)
    const sealed = vault.sealJson(here, { accessToken: 'victim-token' })
    expect(refusal(() => vault.openJson(connectionCredentials('c-2'), sealed))).toBe('misplaced')
    expect(refusal(() => vault.open({ table: 'connections', column: 'scopes', id: 'c-1' }, sealed))).toBe(
      'misplaced',
    )
    expect(refusal(() => vault.open({ table: 'pending_grants', column: 'sealed', id: 'c-1' }, sealed))).toBe(
      'misplaced',
    )
    // The message names the place, never the value.
    expect(() => vault.open(connectionCredentials('c-2'), sealed)).toThrow(
      /connections\.credentials of row c-2 fails authentication/,
    )
    expect(() => vault.open(connectionCredentials('c-2'), sealed)).not.toThrow(/victim-token/)
  })

  it('refuses an unbound v1 value, and binds one to its place only through bind()', () => {
    const vault = createVault(key)
    const old = sealV1(key, 'pre-017 token')
    expect(refusal(() => vault.open(here, old))).toBe('unbound')
    expect(vault.needsRotation(old)).toBe(true)
    const bound = vault.bind(here, old)
    expect(bound.startsWith('v2.')).toBe(true)
    expect(vault.open(here, bound)).toBe('pre-017 token')
    expect(refusal(() => vault.open(connectionCredentials('c-2'), bound))).toBe('misplaced')
    expect(refusal(() => vault.bind(here, bound))).toBe('malformed')
  })

  it('opens ciphertext of an older key after rotation, still bound to its place', () => {
    const old = createVault(key)
    const sealed = old.seal(here, 'token')
    const rotated = createVault(randomBytes(32), [key])
    expect(rotated.open(here, sealed)).toBe('token')
    expect(refusal(() => rotated.open(connectionCredentials('c-2'), sealed))).toBe('misplaced')
    expect(rotated.needsRotation(sealed)).toBe(true)
    expect(rotated.needsRotation(rotated.seal(here, 'token'))).toBe(false)
    expect(refusal(() => createVault(randomBytes(32)).open(here, sealed))).toBe('unknown_key')
    // A v1 value of an older key is bound under the current one.
    expect(rotated.open(here, rotated.bind(here, sealV1(key, 'older')))).toBe('older')
  })

  it('refuses what is not a vault ciphertext', () => {
    expect(refusal(() => createVault(key).open(here, 'plain text'))).toBe('malformed')
    expect(refusal(() => createVault(key).open(here, 'v2.abc'))).toBe('malformed')
  })
})
