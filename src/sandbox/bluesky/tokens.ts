import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'

/**
 * Session tokens shaped as the PDS issues them: HS256 JWTs, `at+jwt` access tokens (scope
 * `com.atproto.appPass`) and `refresh+jwt` refresh tokens (scope `com.atproto.refresh`, with a `jti`),
 * signed with a key made at start-up. Herald reads only `exp` from them.
 */

export type TokenKind = 'access' | 'refresh'

export interface TokenClaims {
  kind: TokenKind
  did: string
  /** Epoch seconds. */
  exp: number
  jti: string
}

const TYP: Record<TokenKind, string> = { access: 'at+jwt', refresh: 'refresh+jwt' }
const SCOPE: Record<TokenKind, string> = { access: 'com.atproto.appPass', refresh: 'com.atproto.refresh' }

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

export class TokenSigner {
  private readonly key = randomBytes(32)

  constructor(private readonly audience: string) {}

  sign(kind: TokenKind, did: string, nowMs: number, ttlMs: number): { token: string; claims: TokenClaims } {
    const iat = Math.floor(nowMs / 1000)
    const claims: TokenClaims = { kind, did, exp: iat + Math.floor(ttlMs / 1000), jti: randomUUID() }
    const head = encode({ typ: TYP[kind], alg: 'HS256' })
    const body = encode({
      scope: SCOPE[kind],
      sub: did,
      aud: this.audience,
      iat,
      exp: claims.exp,
      jti: claims.jti,
    })
    return { token: `${head}.${body}.${this.mac(`${head}.${body}`)}`, claims }
  }

  /** The claims of a token this signer made, or undefined for anything else (forged, malformed). */
  verify(token: string): TokenClaims | undefined {
    const [head, body, mac] = token.split('.')
    if (!head || !body || !mac) return undefined
    const expected = Buffer.from(this.mac(`${head}.${body}`))
    const given = Buffer.from(mac)
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined
    try {
      const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { typ?: unknown }
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
      const kind = (Object.keys(TYP) as TokenKind[]).find((k) => TYP[k] === header.typ)
      if (!kind || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined
      return { kind, did: payload.sub, exp: payload.exp, jti: String(payload.jti ?? '') }
    } catch {
      return undefined
    }
  }

  private mac(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url')
  }
}
