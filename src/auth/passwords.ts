import { hash, verify } from '@node-rs/argon2'

/** Argon2id (the library's const enum value; not importable under verbatimModuleSyntax). */
const ARGON2ID = 2

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID })
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}
