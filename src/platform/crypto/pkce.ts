import { createHash, randomBytes } from 'node:crypto'

/** PKCE (RFC 7636): a 43-character verifier (32 random bytes) and its S256 challenge. */
export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url')
}

export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}
