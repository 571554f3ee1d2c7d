import { createHash, randomBytes } from 'node:crypto'

export interface AuthorizationCode {
  clientId: string
  redirectUri: string
  challenge: string
  method: 'S256' | 'plain'
  scopes: string[]
  userId: string
  expiresAt: number
  used: boolean
  issued: string[]
}

export interface AccessGrant {
  userId: string
  clientId: string
  scopes: string[]
  expiresAt: number
  revoked: boolean
}

interface RefreshGrant {
  userId: string
  clientId: string
  scopes: string[]
  used: boolean
  revoked: boolean
}

export interface TokenSet {
  token_type: 'bearer'
  expires_in: number
  access_token: string
  scope: string
  refresh_token?: string
}

const sha256url = (value: string) => createHash('sha256').update(value).digest('base64url')
const opaqueToken = () => randomBytes(32).toString('base64url')

/**
 * Authorization codes and tokens of one sandbox: PKCE-checked single-use codes, expiring access
 * tokens, rotating refresh tokens.
 */
export class OAuthGrants {
  private readonly codes = new Map<string, AuthorizationCode>()
  private readonly accessTokens = new Map<string, AccessGrant>()
  private readonly refreshTokens = new Map<string, RefreshGrant>()

  constructor(
    private readonly options: { clock: () => number; codeTtlMs: number; accessTokenTtlSeconds: number },
  ) {}

  private now() {
    return this.options.clock()
  }

  reset() {
    this.codes.clear()
    this.accessTokens.clear()
    this.refreshTokens.clear()
  }

  /** The live grant behind an access token: not revoked, not expired. */
  lookup(token: string): AccessGrant | undefined {
    const grant = this.accessTokens.get(token)
    return grant && !grant.revoked && grant.expiresAt > this.now() ? grant : undefined
  }

  issueCode(input: Omit<AuthorizationCode, 'expiresAt' | 'used' | 'issued'>): string {
    const code = opaqueToken()
    this.codes.set(code, {
      ...input,
      expiresAt: this.now() + this.options.codeTtlMs,
      used: false,
      issued: [],
    })
    return code
  }

  /**
   * Redeems a code: single use (a replay also revokes what the first use issued), short-lived, bound to
   * its client and redirect URI, and checked against the PKCE challenge.
   */
  redeemCode(input: {
    code: string
    clientId: string
    redirectUri: string
    verifier: string
  }): TokenSet | undefined {
    const grant = this.codes.get(input.code)
    if (!grant) return undefined
    if (grant.used) {
      for (const token of grant.issued) this.revokeToken(token)
      return undefined
    }
    grant.used = true
    if (grant.expiresAt < this.now()) return undefined
    if (grant.clientId !== input.clientId || grant.redirectUri !== input.redirectUri) return undefined
    const expected = grant.method === 'S256' ? sha256url(input.verifier) : input.verifier
    if (expected !== grant.challenge) return undefined
    const tokens = this.issueTokens(grant.userId, grant.clientId, grant.scopes)
    grant.issued.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []))
    return tokens
  }

  issueTokens(userId: string, clientId: string, scopes: string[]): TokenSet {
    const accessToken = opaqueToken()
    const ttl = this.options.accessTokenTtlSeconds
    this.accessTokens.set(accessToken, {
      userId,
      clientId,
      scopes,
      expiresAt: this.now() + ttl * 1000,
      revoked: false,
    })
    const set: TokenSet = {
      token_type: 'bearer',
      expires_in: ttl,
      access_token: accessToken,
      scope: scopes.join(' '),
    }
    // Like X, a refresh token only comes with offline.access.
    if (scopes.includes('offline.access')) {
      const refreshToken = opaqueToken()
      this.refreshTokens.set(refreshToken, { userId, clientId, scopes, used: false, revoked: false })
      set.refresh_token = refreshToken
    }
    return set
  }

  /** Rotates: the refresh token is spent and a new pair is issued. */
  refresh(refreshToken: string, clientId: string): TokenSet | undefined {
    const grant = this.refreshTokens.get(refreshToken)
    if (!grant || grant.used || grant.revoked || grant.clientId !== clientId) return undefined
    grant.used = true
    return this.issueTokens(grant.userId, grant.clientId, grant.scopes)
  }

  /**
   * Revokes one token of this client (POST /2/oauth2/revoke): true when the token was this client's, known
   * or already revoked (revoking twice succeeds, as RFC 7009 asks); false for another client's token.
   */
  revokeIssued(token: string, clientId: string): boolean {
    const grant = this.accessTokens.get(token) ?? this.refreshTokens.get(token)
    if (grant && grant.clientId !== clientId) return false
    this.revokeToken(token)
    return true
  }

  private revokeToken(token: string) {
    const access = this.accessTokens.get(token)
    if (access) access.revoked = true
    const refresh = this.refreshTokens.get(token)
    if (refresh) refresh.revoked = true
  }

  /** Every token issued so far, access and refresh, with its grant (the control surface lists them for tests). */
  listTokens() {
    return [
      ...[...this.accessTokens].map(([token, grant]) => ({ token, type: 'access' as const, ...grant })),
      ...[...this.refreshTokens].map(([token, grant]) => ({ token, type: 'refresh' as const, ...grant })),
    ]
  }

  /** Revokes every access and refresh token of the user (the app was disconnected on X). */
  revokeUser(userId: string): number {
    let revoked = 0
    for (const grant of [...this.accessTokens.values(), ...this.refreshTokens.values()]) {
      if (grant.userId === userId && !grant.revoked) {
        grant.revoked = true
        revoked++
      }
    }
    return revoked
  }

  /** Makes the user's access tokens expired now (refresh tokens stay valid). */
  expireAccessTokens(userId: string): number {
    let expired = 0
    for (const grant of this.accessTokens.values()) {
      if (grant.userId === userId && grant.expiresAt > this.now()) {
        grant.expiresAt = this.now()
        expired++
      }
    }
    return expired
  }
}
