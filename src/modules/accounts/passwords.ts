/** Argon2id (the library's const enum value; not importable under verbatimModuleSyntax). */
const ARGON2ID = 2

/** The native hasher, loaded the first time a password is hashed or checked (a CLI command that lists keys never is). */
const argon2 = () => import('@node-rs/argon2')

export async function hashPassword(password: string): Promise<string> {
  const { hash } = await argon2()
  return hash(password, { algorithm: ARGON2ID })
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await argon2()
  try {
    return await verify(passwordHash, password)
  } catch {
    return false
  }
}
