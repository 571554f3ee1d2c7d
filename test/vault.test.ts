import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createVault } from '../src/connect/vault.js'

describe('token vault', () => {
  const key = randomBytes(32)

  it('round-trips JSON and never leaves plaintext in the ciphertext', () => {
    const vault = createVault(key)
    const sealed = vault.sealJson({ accessToken: 'at-secret-123', refreshToken: 'rt-secret-456' })
    expect(sealed).not.toContain('secret')
    expect(sealed.startsWith(`v1.${vault.currentKeyId}.`)).toBe(true)
    expect(vault.openJson(sealed)).toEqual({ accessToken: 'at-secret-123', refreshToken: 'rt-secret-456' })
  })

  it('uses a fresh IV each time', () => {
    const vault = createVault(key)
    expect(vault.seal('same')).not.toBe(vault.seal('same'))
  })

  it('refuses tampered ciphertext', () => {
    const vault = createVault(key)
    const parts = vault.seal('hello').split('.')
    parts[4] = Buffer.from('jello').toString('base64url')
    expect(() => vault.open(parts.join('.'))).toThrow(/authentication/)
  })

  it('opens ciphertext of an older key after rotation and says it needs re-sealing', () => {
    const old = createVault(key)
    const sealed = old.seal('token')
    const rotated = createVault(randomBytes(32), [key])
    expect(rotated.open(sealed)).toBe('token')
    expect(rotated.needsRotation(sealed)).toBe(true)
    expect(rotated.needsRotation(rotated.seal('token'))).toBe(false)
    expect(() => createVault(randomBytes(32)).open(sealed)).toThrow(/No vault key/)
  })
})
