import { type Credentials, PublishFailure } from '../adapter.js'
import type { MastodonClient } from './client.js'
import type { InstanceInfo } from './instance.js'
import { MASTODON_APP_SCOPES, MASTODON_SCOPES, type MastodonSettings } from './settings.js'

/**
 * Herald as an app of each instance (methods/apps, methods/oauth): registered once per instance with
 * `POST /api/v1/apps`, checked before each sign-in with a client-credentials token (an instance may have
 * forgotten it: an admin removed it, or a server before 4.3 cleaned up unused apps), and signed in through
 * the instance's authorize page with PKCE where it takes it. Tokens never expire (api/oauth-tokens).
 */

/** Herald's registration on one instance; the secret is sealed by the caller before it is stored. */
export interface InstanceApp {
  clientId: string
  clientSecret: string
  /** The callback the app was registered with: a new PUBLIC_BASE_URL needs a new registration. */
  redirectUri: string
  scopes: string
}

interface CredentialApplication {
  client_id?: unknown
  client_secret?: unknown
}

interface Token {
  access_token?: unknown
  scope?: unknown
}

export async function registerApp(
  client: MastodonClient,
  settings: Pick<MastodonSettings, 'appName' | 'website'>,
  input: { host: string; redirectUri: string; signal?: AbortSignal },
): Promise<InstanceApp> {
  const { body } = await client.call<CredentialApplication>({
    host: input.host,
    method: 'POST',
    path: '/api/v1/apps',
    json: {
      client_name: settings.appName,
      redirect_uris: [input.redirectUri],
      scopes: MASTODON_APP_SCOPES,
      website: settings.website,
    },
    signal: input.signal,
    what: 'registering Herald as an app',
  })
  if (typeof body?.client_id !== 'string' || typeof body.client_secret !== 'string')
    throw new PublishFailure(
      'invalid_content',
      `${input.host} registered Herald without a client id and secret`,
      {
        code: 'NoClient',
      },
    )
  return {
    clientId: body.client_id,
    clientSecret: body.client_secret,
    redirectUri: input.redirectUri,
    scopes: MASTODON_APP_SCOPES,
  }
}

/**
 * Whether the instance still knows Herald's app: a client-credentials token is asked for (and revoked at
 * once). `forgotten` when the instance refuses the client; a failure to ask is thrown.
 */
export async function checkApp(
  client: MastodonClient,
  info: Pick<InstanceInfo, 'host' | 'tokenPath' | 'revokePath'>,
  app: InstanceApp,
  signal?: AbortSignal,
): Promise<'known' | 'forgotten'> {
  let token: string
  try {
    const { body } = await client.call<Token>({
      host: info.host,
      method: 'POST',
      path: info.tokenPath,
      urlencoded: {
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        scope: 'read',
      },
      signal,
      what: "checking Herald's app",
    })
    if (typeof body?.access_token !== 'string') return 'forgotten'
    token = body.access_token
  } catch (error) {
    // `invalid_client` (401, or 400 on some servers): the instance no longer has the app.
    if (error instanceof PublishFailure && error.options.code === 'invalid_client') return 'forgotten'
    throw error
  }
  await revoke(client, info, app, token, signal).catch(() => undefined)
  return 'known'
}

/** Revokes a token Herald no longer needs (POST /oauth/revoke is idempotent). */
export async function revoke(
  client: MastodonClient,
  info: Pick<InstanceInfo, 'host' | 'revokePath'>,
  app: Pick<InstanceApp, 'clientId' | 'clientSecret'>,
  token: string,
  signal?: AbortSignal,
): Promise<void> {
  await client.call({
    host: info.host,
    method: 'POST',
    path: info.revokePath,
    urlencoded: { client_id: app.clientId, client_secret: app.clientSecret, token },
    signal,
    what: 'revoking a token',
  })
}

/** The instance's authorize page for this flow: PKCE S256 where the instance takes it. */
export function authorizeUrl(
  client: MastodonClient,
  info: Pick<InstanceInfo, 'host' | 'authorizePath' | 'pkce'>,
  input: { clientId: string; state: string; codeChallenge: string; redirectUri: string },
): string {
  const url = new URL(`${client.baseUrl(info.host)}${info.authorizePath}`)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', input.clientId)
  url.searchParams.set('redirect_uri', input.redirectUri)
  url.searchParams.set('scope', MASTODON_SCOPES.join(' '))
  url.searchParams.set('state', input.state)
  if (info.pkce) {
    url.searchParams.set('code_challenge', input.codeChallenge)
    url.searchParams.set('code_challenge_method', 'S256')
  }
  return url.toString()
}

/** The access token for the code the instance sent back, with the scopes it granted. */
export async function exchangeCode(
  client: MastodonClient,
  info: Pick<InstanceInfo, 'host' | 'tokenPath' | 'pkce' | 'idempotencyWindowMs'>,
  app: Pick<InstanceApp, 'clientId' | 'clientSecret'>,
  input: { code: string; codeVerifier: string; redirectUri: string; signal?: AbortSignal },
): Promise<{ credentials: Credentials; grantedScopes: string[] }> {
  const { body } = await client.call<Token>({
    host: info.host,
    method: 'POST',
    path: info.tokenPath,
    urlencoded: {
      grant_type: 'authorization_code',
      code: input.code,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: input.redirectUri,
      ...(info.pkce ? { code_verifier: input.codeVerifier } : {}),
    },
    signal: input.signal,
    what: 'exchanging the sign-in code',
  })
  if (typeof body?.access_token !== 'string')
    throw new PublishFailure('invalid_content', `${info.host} answered the sign-in without a token`, {
      code: 'NoToken',
    })
  const granted = typeof body.scope === 'string' ? body.scope.split(/[\s+]+/).filter(Boolean) : []
  return {
    credentials: {
      accessToken: body.access_token,
      extra: { instance: info.host, idempotencyWindowMs: String(info.idempotencyWindowMs) },
    },
    // A broader grant covers a narrower scope: `write` covers `write:statuses`, `read` every `read:`.
    grantedScopes: MASTODON_SCOPES.filter(
      (scope) => granted.includes(scope) || granted.includes(scope.split(':')[0]!),
    ),
  }
}
