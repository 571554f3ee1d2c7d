import type Provider from 'oidc-provider'
import type { Clock } from '../../platform/clock.js'
import type { Config } from '../../platform/config.js'
import type { Db } from '../../platform/db/db.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import {
  deleteArtifact,
  deleteArtifactsOfGrant,
  findGrant,
  listGrants,
  purgeExpiredArtifacts,
  revokeGrantRow,
  touchGrant,
} from '../../platform/db/statements/oauth.js'
import type { SafeFetcherOptions } from '../../platform/egress/safe-fetch.js'
import { AppError } from '../../platform/errors.js'
import type { Logger } from '../../platform/logger.js'
import type { Caller } from '../accounts/caller.js'
import type { Revocations } from '../accounts/revocations.js'
import { hashArtifactId } from './adapter.js'
import { createMetadataFetch } from './metadata-fetch.js'
import { createOAuthProvider } from './provider.js'
import { acceptedResources, type Surface } from './resource.js'
import { isScope } from './scopes.js'
import type { OAuthService } from './types.js'

/** lastUsedAt of a grant is written at most this often, so the request path stays read-mostly. */
const TOUCH_INTERVAL_MS = 60_000
const PURGE_INTERVAL_MS = 10 * 60_000

export interface ConnectedApp {
  grantId: string
  clientId: string
  name: string
  /** True for a dynamically registered client: its name is its own claim, unverified. */
  registered: boolean
  redirectHost: string
  workspaceId: string
  workspaceName: string
  scopes: string[]
  createdAt: number
  firstUsedAt: number | null
  lastUsedAt: number | null
}

export interface OAuthServer extends OAuthService {
  /** The `oidc-provider` instance (its HTTP handler is mounted by src/interfaces/http/oauth-routes.ts). */
  provider: Provider
  /** The person's live grants. */
  connectedApps(userId: string): Promise<ConnectedApp[]>
  /** Ends one of the person's grants and every token of it at once; false when it is not theirs or not live. */
  revokeGrant(grantId: string, userId: string): Promise<boolean>
  close(): void
}

export interface OAuthServerDeps {
  config: Config
  db: Db
  clock: Clock
  logger: Logger
  secretKey: Buffer
  revocations: Revocations
  /** Test seam for the metadata-document fetcher: a resolver and a trusted CA for a loopback https server. */
  metadataFetcher?: Pick<SafeFetcherOptions, 'lookup' | 'ca' | 'dial'>
}

export function createOAuthServer(deps: OAuthServerDeps): OAuthServer {
  const { db, clock, config } = deps
  const logger = deps.logger.child({ subsystem: 'oauth' })
  const provider = createOAuthProvider({
    config,
    db,
    clock,
    logger,
    secretKey: deps.secretKey,
    fetch: createMetadataFetch({
      allowPrivate: config.allowPrivateMedia,
      ...deps.metadataFetcher,
      onRefused: (url, reason) =>
        logger.info({ clientId: url.slice(0, 300), reason }, 'client ID metadata document refused'),
    }),
  })
  const lastTouched = new Map<string, number>()

  const endGrant = async (grantId: string) => {
    const ended = await revokeGrantRow(db, grantId, clock.now())
    for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode'])
      await deleteArtifactsOfGrant(db, model, grantId)
    await deleteArtifact(db, 'Grant', hashArtifactId(grantId))
    deps.revocations.revoked(`oauth:${grantId}`)
    return ended
  }
  // The library revokes a grant itself when a used refresh token comes back (reuse) or one is revoked.
  provider.on('grant.revoked', (_ctx: unknown, grantId: string) => {
    void endGrant(grantId).catch((error) => logger.error({ err: error }, 'ending a revoked grant failed'))
  })

  logRefusals(provider, logger)

  const purge = setInterval(() => {
    void purgeExpiredArtifacts(db, clock.now()).catch((error) =>
      logger.warn({ err: error }, 'purging expired OAuth artifacts failed'),
    )
  }, PURGE_INTERVAL_MS)
  purge.unref()

  return {
    provider,

    verifyAccessToken: (token: string, surface: Surface) =>
      verifyAccessToken({ provider, db, clock, config, lastTouched }, token, surface),

    async connectedApps(userId) {
      const rows = await listGrants(db, userId)
      return rows.map((row) => ({
        grantId: row.id,
        clientId: row.client_id,
        name: row.client_name,
        registered: row.registered === 1,
        redirectHost: row.redirect_host,
        workspaceId: row.workspace_id,
        workspaceName: row.workspace_name,
        scopes: row.scopes.split(' ').filter(Boolean),
        createdAt: Number(row.created_at),
        firstUsedAt: row.first_used_at === null ? null : Number(row.first_used_at),
        lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
      }))
    },

    async revokeGrant(grantId, userId) {
      const grant = await findGrant(db, grantId)
      if (!grant || grant.user_id !== userId || grant.revoked_at !== null) return false
      return endGrant(grantId)
    },

    close() {
      clearInterval(purge)
    },
  }
}

/** The audit trail of refusals: what was refused and for which client, never a token or a code. */
function logRefusals(provider: Provider, logger: Logger) {
  const refusals = ['authorization.error', 'grant.error', 'registration_create.error', 'revocation.error']
  // The library's typings list each event with its own listener type; these four share one shape.
  for (const event of refusals)
    (provider.on as (name: string, listener: (...args: never[]) => void) => void)(
      event,
      (
        ctx: { oidc?: { client?: { clientId?: string } } },
        error: { error?: string; error_description?: string },
      ) =>
        logger.info(
          {
            event,
            error: error.error,
            reason: error.error_description,
            clientId: ctx.oidc?.client?.clientId?.slice(0, 300),
          },
          'OAuth request refused',
        ),
    )
}

const unauthorized = (message: string) => new AppError('unauthorized', message)

/**
 * The caller behind an access token: live, bound to this surface's resource, its grant not revoked and its
 * person still a member; the grant's last use is written at most once per {@link TOUCH_INTERVAL_MS}.
 */
async function verifyAccessToken(
  {
    provider,
    db,
    clock,
    config,
    lastTouched,
  }: {
    provider: Provider
    db: Db
    clock: Clock
    config: Config
    lastTouched: Map<string, number>
  },
  token: string,
  surface: Surface,
): Promise<Caller> {
  const accessToken = token.length <= 512 ? await provider.AccessToken.find(token) : undefined
  if (!accessToken || accessToken.isExpired)
    throw unauthorized('The access token is not valid or has expired')
  const audience = accessToken.aud as string | string[] | undefined
  const bound = Array.isArray(audience) ? audience : audience ? [audience] : []
  const accepted = acceptedResources(config.publicBaseUrl, surface)
  if (bound.length !== 1 || !accepted.includes(bound[0] as string))
    throw unauthorized('The access token was issued for another resource')
  const grant = accessToken.grantId ? await findGrant(db, accessToken.grantId) : undefined
  if (!grant || grant.revoked_at !== null)
    throw unauthorized('The authorization behind this access token was revoked')
  if (!(await findMembership(db, grant.workspace_id, grant.user_id)))
    throw unauthorized('The person behind this access token is no longer a member of its workspace')
  const now = clock.now()
  if (now - (lastTouched.get(grant.id) ?? grant.last_used_at ?? 0) >= TOUCH_INTERVAL_MS) {
    lastTouched.set(grant.id, now)
    await touchGrant(db, grant.id, now)
  }
  const granted = new Set(grant.scopes.split(' '))
  return {
    userId: grant.user_id,
    apiKeyId: `oauth:${grant.id}`,
    defaultWorkspaceId: grant.workspace_id,
    grant: {
      id: grant.id,
      workspaceId: grant.workspace_id,
      scopes: [...accessToken.scopes].filter((scope) => isScope(scope) && granted.has(scope)),
    },
  }
}
