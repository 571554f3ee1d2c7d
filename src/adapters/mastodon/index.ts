import { type AdapterDeps, type Credentials, type NetworkAdapter, PublishFailure } from '../adapter.js'
import { resolveProfile } from './account.js'
import { createMastodonClient, type MastodonClient } from './client.js'
import { discoverInstance, type InstanceInfo, instanceHost } from './instance.js'
import { createInstanceGate, defaultGateOptions, type GateOptions } from './instance-gate.js'
import { findReply, findStatus } from './lookup.js'
import { readAccountMetrics, readStatusMetrics } from './metrics.js'
import { authorizeUrl, checkApp, exchangeCode, type InstanceApp, registerApp, revoke } from './oauth.js'
import { publishPost, publishReply } from './publish.js'
import { MASTODON_SCOPES, type MastodonSettings } from './settings.js'

export type { InstanceInfo } from './instance.js'
export { instanceHost } from './instance.js'
export type { InstanceApp } from './oauth.js'
export {
  httpsInstance,
  IDEMPOTENCY_MARGIN_MS,
  IDEMPOTENCY_WINDOW_MS,
  MASTODON_SCOPES,
  type MastodonSettings,
} from './settings.js'

/** Sends per worker to Mastodon at once, over all instances; each instance has its own gate besides. */
const MASTODON_CONCURRENCY = 8
const DEFAULT_TIMEOUT_MS = 20_000

/**
 * The Mastodon adapter: any instance a person names. Connecting is not one OAuth app's flow but one per
 * instance, so instead of `oauth` the adapter offers the steps the connect flow runs with the instance's
 * registration it keeps (discover, register, check, authorize, exchange). Publishing, lookups and
 * analytics act on the instance named in the connection's credentials.
 */
export interface MastodonAdapter extends NetworkAdapter {
  readonly network: 'mastodon'
  /** The scopes a sign-in asks for; a grant without one of them is refused. */
  readonly scopes: readonly string[]
  /** The host an address a person typed names, or undefined when it names none. */
  instanceHost(input: string): string | undefined
  discover(host: string, signal?: AbortSignal): Promise<InstanceInfo>
  registerApp(input: { host: string; redirectUri: string; signal?: AbortSignal }): Promise<InstanceApp>
  checkApp(info: InstanceInfo, app: InstanceApp, signal?: AbortSignal): Promise<'known' | 'forgotten'>
  authorizeUrl(
    info: InstanceInfo,
    input: { clientId: string; state: string; codeChallenge: string; redirectUri: string },
  ): string
  exchangeCode(
    info: InstanceInfo,
    app: InstanceApp,
    input: { code: string; codeVerifier: string; redirectUri: string },
  ): Promise<{ credentials: Credentials; grantedScopes: string[] }>
}

/** Mastodon connects through an instance the person names, not one app's OAuth flow. */
export const connectsThroughInstances = (adapter: NetworkAdapter | undefined): adapter is MastodonAdapter =>
  adapter?.network === 'mastodon' && typeof (adapter as Partial<MastodonAdapter>).discover === 'function'

/**
 * Herald's app on an instance (its client id and secret) and the instance's revocation path, as the connect
 * flow stored them; undefined when Herald holds none there. Injected: the adapter never reads the database.
 */
export type InstanceAppLookup = (
  host: string,
) => Promise<{ revokePath: string; clientId: string; clientSecret: string } | undefined>

export function createMastodonAdapter(
  settings: MastodonSettings,
  deps: AdapterDeps,
  gateOptions: Partial<GateOptions> = {},
  instanceApps?: InstanceAppLookup,
): MastodonAdapter {
  const logger = deps.logger.child({ network: 'mastodon' })
  const gate = createInstanceGate({ ...defaultGateOptions, now: deps.now, ...gateOptions })
  const client: MastodonClient = createMastodonClient(
    { http: deps.http, logger, now: deps.now },
    {
      baseUrl: (host) => settings.instanceUrl(host),
      gate,
      timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    },
  )
  const statuses = { client, media: deps.media, deps: { now: deps.now, sleep: deps.sleep, logger } }
  const lookups = { client, appName: settings.appName }
  return {
    network: 'mastodon',
    capabilities: { concurrency: MASTODON_CONCURRENCY },
    scopes: MASTODON_SCOPES,
    instanceHost,
    discover: (host, signal) => discoverInstance(client, host, signal),
    registerApp: (input) => registerApp(client, settings, input),
    checkApp: (info, app, signal) => checkApp(client, info, app, signal),
    authorizeUrl: (info, input) => authorizeUrl(client, info, input),
    exchangeCode: (info, app, input) => exchangeCode(client, info, app, input),
    // Mastodon tokens do not expire; one the instance refuses was revoked, and only signing in again helps.
    async refresh() {
      throw new PublishFailure('auth_expired', 'The Mastodon token was refused; reconnect the profile', {
        code: 'NoRefresh',
      })
    },
    resolveProfile: (credentials) => resolveProfile(client, credentials),
    ...(instanceApps
      ? { revokeAccess: (credentials, signal) => revokeOnInstance(client, instanceApps, credentials, signal) }
      : {}),
    publish: (request) => publishPost(statuses, request),
    findPublished: (request) => findStatus(lookups, request),
    publishItem: (request) => publishReply(statuses, request),
    findItem: (request) => findReply(lookups, request),
    postMetrics: (input) => readStatusMetrics(client, input),
    profileMetrics: (input) => readAccountMetrics(client, input),
  }
}

/**
 * `POST /oauth/revoke` on the connection's instance with Herald's app there (reference C.3: idempotent,
 * `200 {}`). Without the app (the instance forgot Herald and nobody connected since) nothing can be revoked.
 */
async function revokeOnInstance(
  client: MastodonClient,
  instanceApps: InstanceAppLookup,
  credentials: Credentials,
  signal: AbortSignal,
): Promise<void> {
  const host = credentials.extra?.instance
  const app = host ? await instanceApps(host) : undefined
  if (!host || !app)
    throw new PublishFailure(
      'auth_expired',
      'Herald holds no app on this instance to revoke the token with',
      {
        code: 'no_app',
      },
    )
  await revoke(client, { host, revokePath: app.revokePath }, app, credentials.accessToken, signal)
}
