import { createPrivateKey, hkdfSync } from 'node:crypto'
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider'
import type { Clock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import type { Db } from '../../platform/db/db.js'
import type { Logger } from '../../platform/logger.js'
import { createRateLimiter } from '../accounts/rate-limit.js'
import { createAdapterFactory } from './adapter.js'
import { redirectUriProblem } from './redirect-uris.js'
import { knownResources } from './resource.js'
import { SCOPES } from './scopes.js'

/** Access tokens live an hour; refresh tokens (rotated on every use) 30 days; codes a minute. */
export const ACCESS_TOKEN_TTL_S = 3600
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600
const CODE_TTL_S = 60
/**
 * Metadata documents fetched per requesting client per minute: Herald is nobody's request cannon. The client
 * is its address as HERALD_TRUST_PROXY lets Herald see it (src/interfaces/http/oauth-routes.ts hands it to the library).
 */
const DOCUMENT_FETCHES_PER_MINUTE = 30
/**
 * The longest `client_name` a dynamic registration may give (characters): the consent page and the
 * connected-apps list show it, and the grant keeps this much of any client's name.
 */
export const CLIENT_NAME_MAX = 200
/** The consent page, one per interaction; the library's interaction cookie is scoped to this path. */
export const consentPath = (uid: string) => `/oauth/consent/${uid}`

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const

/** The fetch the library uses for client ID metadata documents: Herald's guarded fetcher (src/modules/oauth-server/metadata-fetch.ts). */
export type GuardedFetch = (url: string, init: { signal?: AbortSignal | null }) => Promise<Response>

export interface ProviderDeps {
  config: Config
  db: Db
  clock: Clock
  logger: Logger
  /** The vault key; the cookie and signing keys are derived from it (HKDF), so nothing more is stored. */
  secretKey: Buffer
  fetch: GuardedFetch
}

/** Ed25519's PKCS#8 prefix: the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

const derive = (secret: Buffer, label: string) => Buffer.from(hkdfSync('sha256', secret, '', label, 32))

/**
 * `oidc-provider` set up as Herald's authorization server: OAuth 2.1 authorization code with PKCE S256 only,
 * public clients only (a client ID metadata document or a dynamic registration; no secrets), `resource`
 * required and bound into the token, opaque access tokens, refresh tokens rotated with reuse detection,
 * revocation, and the person's consent given on Herald's own dashboard page.
 */
export function createOAuthProvider(deps: ProviderDeps): Provider {
  const { config } = deps
  const resources = knownResources(config.publicBaseUrl)
  const signing = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, derive(deps.secretKey, 'herald oauth signing key')]),
    format: 'der',
    type: 'pkcs8',
  }).export({ format: 'jwk' })

  const configuration: Configuration = {
    adapter: createAdapterFactory(deps.db, deps.clock) as unknown as Configuration['adapter'],
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'Ed25519',
    },
    clientAuthMethods: ['none'],
    extraClientMetadata: clientMetadataRule,
    responseTypes: ['code'],
    scopes: [...SCOPES],
    claims: {},
    pkce: { required: () => true },
    jwks: { keys: [{ ...signing, alg: 'Ed25519', use: 'sig', kid: 'herald-1' }] as never },
    enabledJWA: { idTokenSigningAlgValues: ['Ed25519'] },
    cookies: {
      keys: [derive(deps.secretKey, 'herald oauth cookies').toString('base64url')],
      long: { secure: config.dashboard.secureCookies, sameSite: 'lax' },
      short: { secure: config.dashboard.secureCookies, sameSite: 'lax' },
    },
    routes: OAUTH_ROUTES,
    ttl: TTL,
    // Every grant gets a refresh token, rotated on each use; a used one presented again revokes the grant.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A grant lives on its own, not with the library's short sign-in session (10 minutes): by default a
    // token issued without `offline_access` dies with that session, which would end access tokens after 10
    // minutes instead of an hour and refresh tokens after 10 minutes instead of 30 days.
    expiresWithSession: async () => false,
    rotateRefreshToken: refreshKeepsResource,
    // Consent is asked every time: an earlier grant is never reused silently (each names its workspace).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: async (_ctx, interaction) => consentPath(interaction.uid) },
    // CORS for the token, registration and revocation endpoints: browser-based clients call them.
    clientBasedCORS: () => true,
    features: providerFeatures(deps, resources),
    fetch: deps.fetch as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': 5 * 1024 } as never,
    renderError: async (ctx, out) => {
      ctx.type = 'html'
      ctx.body = errorPage(out.error, out.error_description)
    },
  }
  const provider = new Provider(config.publicBaseUrl, configuration)
  provider.on('server_error', (_ctx, error) => deps.logger.error({ err: error }, 'OAuth server error'))
  return provider
}

/**
 * Herald's redirect URI rule (src/modules/oauth-server/redirect-uris.ts) for every client, registered or described by a
 * metadata document. Each is treated as a native app (RFC 8252), which is what makes a loopback redirect
 * URI match on any port; a web client's http redirect to a non-loopback host is refused instead.
 * A registration's name is held to CLIENT_NAME_MAX here, on the registration request only: a client
 * stored before the limit must still load.
 */
const clientMetadataRule: Configuration['extraClientMetadata'] = {
  properties: ['application_type'],
  validator: (ctx, key, _value, metadata) => {
    if (key !== 'application_type') return
    const uris = metadata.redirect_uris
    for (const uri of Array.isArray(uris) ? uris : []) {
      const problem = redirectUriProblem(uri)
      if (problem) throw new errors.InvalidClientMetadata(`redirect_uris: ${problem}`)
    }
    const name = metadata.client_name
    if (ctx?.oidc?.route === 'registration' && typeof name === 'string' && name.length > CLIENT_NAME_MAX)
      throw new errors.InvalidClientMetadata(
        `client_name: at most ${CLIENT_NAME_MAX} characters (got ${name.length})`,
      )
    metadata.application_type = 'native'
  },
}

const TTL: Configuration['ttl'] = {
  AccessToken: ACCESS_TOKEN_TTL_S,
  AuthorizationCode: CODE_TTL_S,
  RefreshToken: REFRESH_TOKEN_TTL_S,
  Grant: REFRESH_TOKEN_TTL_S,
  Interaction: 600,
  Session: 600,
  IdToken: 600,
  ClientCredentials: 600,
  DeviceCode: 600,
  BackchannelAuthenticationRequest: 600,
}

/**
 * The library rotates (uses up) the refresh token before it checks a `resource` asked for at refresh, so
 * a wrong one would burn the token without handing out its successor, and the client's retry would look
 * like reuse and end the grant. It is checked here first: a refresh is for the resource granted, or refused.
 */
function refreshKeepsResource(ctx: KoaContextWithOIDC): boolean {
  const asked = ctx.oidc.params?.resource as string | string[] | undefined
  if (asked !== undefined) {
    const granted = (ctx.oidc.entities as { RefreshToken?: { resource?: string | string[] } }).RefreshToken
      ?.resource
    const grantedList = Array.isArray(granted) ? granted : granted ? [granted] : []
    for (const resource of Array.isArray(asked) ? asked : [asked])
      if (!grantedList.includes(resource))
        throw new errors.InvalidTarget('a refresh is for the resource that was granted')
  }
  return true
}

/** What the library does and does not do for Herald: revocation, registration, metadata documents, resources. */
function providerFeatures(deps: ProviderDeps, resources: string[]): Configuration['features'] {
  const documentFetches = createRateLimiter(DOCUMENT_FETCHES_PER_MINUTE)
  /** The metadata documents each request (the library's context) has already tried to fetch. */
  const triedDocuments = new WeakMap<object, Set<string>>()
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    introspection: { enabled: false },
    // RFC 7009 for public clients: a token is revoked only by the client it was issued to; any other
    // client's request is answered 200 and changes nothing (what the library does by default, said here).
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    pushedAuthorizationRequests: { enabled: false },
    dPoP: { enabled: false },
    registration: { enabled: true, initialAccessToken: false },
    clientIdMetadataDocument: {
      enabled: true,
      ack: 'draft-02',
      // A cached document costs nothing; a fetch counts against the requesting address. A document is
      // fetched at most once per request: when it fails, the library looks the client up again to render
      // the error, and that second look would fetch (and count) the same failing document twice.
      allowFetch: async (ctx, id) => {
        const tried = triedDocuments.get(ctx) ?? new Set<string>()
        triedDocuments.set(ctx, tried)
        if (tried.has(id)) return false
        tried.add(id)
        return documentFetches.hit(ctx.ip, deps.clock.now()) === 0
      },
      cacheDuration: { min: 60, max: 86_400 },
    },
    resourceIndicators: {
      enabled: true,
      // No `resource`: refused (RFC 8707 `invalid_target`). At the token endpoint, the granted one.
      defaultResource: async (_ctx, _client, oneOf) => {
        if (oneOf) return oneOf
        throw new errors.InvalidTarget('the resource parameter is required (RFC 8707)')
      },
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resource) => {
        if (!resources.includes(resource))
          throw new errors.InvalidTarget(`Herald issues tokens for ${resources.join(' and ')} only`)
        return {
          scope: SCOPES.join(' '),
          audience: resource,
          accessTokenTTL: ACCESS_TOKEN_TTL_S,
          accessTokenFormat: 'opaque',
        }
      },
    },
  }
}

const escapeText = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/** The page a person sees when an authorization request cannot even be sent back to its app. */
function errorPage(error: string, description: string | undefined) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed · Herald</title>
<meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem">
<h1>The app's request could not be accepted</h1><p><code>${escapeText(error)}</code>: ${escapeText(description)}</p>
<p>Nothing was authorized. Go back to the app and try again, or tell its maker.</p></body></html>`
}
