import { createHash, randomBytes } from 'node:crypto'
import type { Clock } from '../../platform/clock.js'
import type { TokenResponse } from './model.js'

/**
 * Google's OAuth bookkeeping for the sandbox: single-use authorization codes (10 minutes), access tokens
 * (3,599 s), refresh tokens (until revoked) and, per account and client, the scopes granted so far, which
 * `include_granted_scopes` adds back and which decide whether a refresh token is issued again.
 */

interface CodeGrant {
  email: string
  clientId: string
  redirectUri: string
  scopes: string[]
  challenge: string | undefined
  challengeMethod: string | undefined
  issueRefreshToken: boolean
  expiresAt: number
  used: boolean
}

export interface AccessGrant {
  email: string
  clientId: string
  scopes: string[]
  expiresAt: number
}

interface RefreshGrant {
  email: string
  clientId: string
  scopes: string[]
  revoked: boolean
}

export type OAuthRefusal = { error: string; error_description: string }

const ACCESS_TTL_S = 3599
const CODE_TTL_MS = 10 * 60 * 1000

export const randomToken = (prefix: string, bytes = 24) =>
  `${prefix}${randomBytes(bytes).toString('base64url')}`

export class GoogleOAuthStore {
  private codes = new Map<string, CodeGrant>()
  private accessTokens = new Map<string, AccessGrant>()
  private refreshTokens = new Map<string, RefreshGrant>()
  private grants = new Map<string, { scopes: Set<string>; refreshIssued: boolean }>()

  constructor(private readonly clock: Clock) {}

  clear(): void {
    this.codes.clear()
    this.accessTokens.clear()
    this.refreshTokens.clear()
    this.grants.clear()
  }

  private grantKey(email: string, clientId: string) {
    return `${email}\n${clientId}`
  }

  /** Records a consent and returns the single-use code (Google's `4/0A...` form). */
  issueCode(input: {
    email: string
    clientId: string
    redirectUri: string
    granted: string[]
    includeGrantedScopes: boolean
    offline: boolean
    forceConsent: boolean
    challenge?: string
    challengeMethod?: string
  }): { code: string; scopes: string[] } {
    const key = this.grantKey(input.email, input.clientId)
    const previous = this.grants.get(key) ?? { scopes: new Set<string>(), refreshIssued: false }
    const scopes = new Set(input.granted)
    if (input.includeGrantedScopes) for (const scope of previous.scopes) scopes.add(scope)
    // Google issues a refresh token on the first offline consent, and again only with prompt=consent.
    const issueRefreshToken = input.offline && (input.forceConsent || !previous.refreshIssued)
    this.grants.set(key, {
      scopes: new Set([...previous.scopes, ...input.granted]),
      refreshIssued: previous.refreshIssued || issueRefreshToken,
    })
    const code = randomToken('4/0Sbx', 30)
    this.codes.set(code, {
      email: input.email,
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      scopes: [...scopes],
      challenge: input.challenge,
      challengeMethod: input.challengeMethod,
      issueRefreshToken,
      expiresAt: this.clock.now() + CODE_TTL_MS,
      used: false,
    })
    return { code, scopes: [...scopes] }
  }

  /** The authorization_code grant; an `{error, error_description}` on refusal (Google's wording). */
  redeemCode(input: {
    code: string
    clientId: string
    redirectUri: string
    codeVerifier: string | undefined
  }): TokenResponse | OAuthRefusal {
    const grant = this.codes.get(input.code)
    if (!grant || grant.expiresAt < this.clock.now())
      return { error: 'invalid_grant', error_description: 'Malformed auth code.' }
    if (grant.used) return { error: 'invalid_grant', error_description: 'Bad Request' }
    if (grant.clientId !== input.clientId) return { error: 'invalid_grant', error_description: 'Bad Request' }
    if (grant.redirectUri !== input.redirectUri)
      return { error: 'redirect_uri_mismatch', error_description: 'Bad Request' }
    if (grant.challenge !== undefined) {
      if (!input.codeVerifier) return { error: 'invalid_grant', error_description: 'Missing code verifier.' }
      const expected =
        grant.challengeMethod === 'plain'
          ? input.codeVerifier
          : createHash('sha256').update(input.codeVerifier).digest('base64url')
      if (expected !== grant.challenge)
        return { error: 'invalid_grant', error_description: 'Invalid code verifier.' }
    }
    grant.used = true
    return this.issueTokens(grant.email, grant.clientId, grant.scopes, grant.issueRefreshToken)
  }

  /** Tokens straight from the control surface (demo `sandbox connect`), as if consent had been given. */
  issueTokens(email: string, clientId: string, scopes: string[], withRefreshToken = true): TokenResponse {
    const accessToken = randomToken('ya29.sbx-')
    this.accessTokens.set(accessToken, {
      email,
      clientId,
      scopes,
      expiresAt: this.clock.now() + ACCESS_TTL_S * 1000,
    })
    const response: TokenResponse = {
      access_token: accessToken,
      expires_in: ACCESS_TTL_S,
      scope: scopes.join(' '),
      token_type: 'Bearer',
    }
    if (withRefreshToken) {
      const refreshToken = randomToken('1//sbx-', 32)
      this.refreshTokens.set(refreshToken, { email, clientId, scopes, revoked: false })
      response.refresh_token = refreshToken
    }
    return response
  }

  /** The refresh_token grant: a new access token, no new refresh token (as Google answers). */
  refresh(input: { refreshToken: string; clientId: string }): TokenResponse | OAuthRefusal {
    const grant = this.refreshTokens.get(input.refreshToken)
    if (!grant || grant.revoked || grant.clientId !== input.clientId)
      return { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }
    return this.issueTokens(grant.email, grant.clientId, grant.scopes, false)
  }

  /** The account and scopes behind a bearer token, or undefined when it is unknown, expired or revoked. */
  authenticate(accessToken: string | undefined): AccessGrant | undefined {
    if (!accessToken) return undefined
    const grant = this.accessTokens.get(accessToken)
    if (!grant || grant.expiresAt <= this.clock.now()) return undefined
    return grant
  }

  /**
   * Google's `/revoke` for one token: the whole grant it belongs to (that account and client) ends, access
   * and refresh tokens alike, and the consent is forgotten. False for a token Google does not hold.
   */
  revokeGrant(token: string): boolean {
    const grant = this.accessTokens.get(token) ?? this.refreshTokens.get(token)
    if (!grant || ('revoked' in grant && grant.revoked)) return false
    for (const [value, access] of this.accessTokens)
      if (access.email === grant.email && access.clientId === grant.clientId) this.accessTokens.delete(value)
    for (const refresh of this.refreshTokens.values())
      if (refresh.email === grant.email && refresh.clientId === grant.clientId) refresh.revoked = true
    this.grants.delete(this.grantKey(grant.email, grant.clientId))
    return true
  }

  /** Revokes every token of an account (the user removed the app), or one token. Returns how many. */
  revoke(input: { email?: string; token?: string }): number {
    let revoked = 0
    for (const [value, grant] of this.accessTokens) {
      if (value === input.token || (input.email && grant.email === input.email.toLowerCase())) {
        this.accessTokens.delete(value)
        revoked++
      }
    }
    for (const [value, grant] of this.refreshTokens) {
      if (
        !grant.revoked &&
        (value === input.token || (input.email && grant.email === input.email.toLowerCase()))
      ) {
        grant.revoked = true
        revoked++
      }
    }
    if (input.email)
      for (const key of this.grants.keys())
        if (key.startsWith(`${input.email.toLowerCase()}\n`)) this.grants.delete(key)
    return revoked
  }
}
