import { setTimeout as delay } from 'node:timers/promises'
import type { MediaPort } from '../core/media-port.js'
import { type Network, networks } from '../core/networks.js'
import type { Clock } from '../platform/clock.js'
import type { Config } from '../platform/config.js'
import { createGuardedHttp } from '../platform/egress/guarded-http.js'
import { guardedHttp } from '../platform/egress/send-guard.js'
import type { Logger } from '../platform/logger.js'
import type { AdapterDeps, NetworkAdapter } from './adapter.js'
import { resolveApp, type SavedApps } from './apps.js'
import {
  BLUESKY_WEB_URL,
  type BlueskyAdapter,
  type BlueskySettings,
  createBlueskyAdapter,
} from './bluesky/index.js'
import { createFacebookAdapter } from './facebook/index.js'
import {
  createGoogleBusinessAdapter,
  GOOGLE_BUSINESS_WEB_URL,
  type GoogleBusinessSettings,
} from './googlebusiness/index.js'
import { createInstagramAdapter } from './instagram/index.js'
import { createLinkedInAdapter, LINKEDIN_WEB_URL, type LinkedInSettings } from './linkedin/index.js'
import {
  createMastodonAdapter,
  httpsInstance,
  type InstanceAppLookup,
  type MastodonSettings,
} from './mastodon/index.js'
import { FACEBOOK_WEB_URL, INSTAGRAM_WEB_URL, type MetaSettings } from './meta/settings.js'
import { createPinterestAdapter, PINTEREST_WEB_URL, type PinterestSettings } from './pinterest/index.js'
import { createThreadsAdapter, THREADS_WEB_URL, type ThreadsSettings } from './threads/index.js'
import { createTikTokAdapter, TIKTOK_WEB_URL, type TikTokSettings } from './tiktok/index.js'
import { createTwitterAdapter, type TwitterSettings, X_WEB_URL } from './twitter/index.js'
import { createYouTubeAdapter, YOUTUBE_WEB_URL, type YouTubeSettings } from './youtube/index.js'

/**
 * Where the composition root mounts each network simulator when HERALD_SANDBOX=1 (`src/sandbox/`). Each
 * serves its network's web pages under `/web` (Meta's under `/web/facebook` and `/web/instagram`), and
 * the sandbox settings below name those as the networks' web sites, so a sandbox post's URL opens there.
 */
export const sandboxPrefixes = {
  twitter: '/sandbox/twitter',
  youtube: '/sandbox/youtube',
  facebook: '/sandbox/meta',
  instagram: '/sandbox/meta',
  linkedin: '/sandbox/linkedin',
  threads: '/sandbox/threads',
  bluesky: '/sandbox/bluesky',
  googlebusiness: '/sandbox/googlebusiness',
  tiktok: '/sandbox/tiktok',
  pinterest: '/sandbox/pinterest',
  mastodon: '/sandbox/mastodon',
} as const

/** X settings: the real endpoints from config, or the simulator under PUBLIC_BASE_URL in sandbox mode. */
export function twitterSettings(config: Config, saved: SavedApps = {}): TwitterSettings {
  const x = config.networks.twitter
  const app = resolveApp(config, 'twitter', saved)
  const credentials = {
    clientId: app?.clientId ?? '',
    ...(app?.clientSecret ? { clientSecret: app.clientSecret } : {}),
  }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.twitter}`
    // The simulator accepts any unknown client id as a public app, so demo mode needs no app registration.
    return {
      ...credentials,
      apiUrl: `${base}/api`,
      authorizeUrl: `${base}/i/oauth2/authorize`,
      webUrl: `${base}/web`,
    }
  }
  return { ...credentials, apiUrl: x.apiUrl, authorizeUrl: x.authorizeUrl, webUrl: X_WEB_URL }
}

/** YouTube settings: Google's endpoints from config, or the simulator under PUBLIC_BASE_URL in sandbox mode. */
export function youtubeSettings(config: Config, saved: SavedApps = {}): YouTubeSettings {
  const yt = config.networks.youtube
  const app = resolveApp(config, 'youtube', saved)
  const credentials = { clientId: app?.clientId, clientSecret: app?.clientSecret }
  if (!config.sandbox) return { ...yt, ...credentials, webUrl: YOUTUBE_WEB_URL }
  const base = `${config.publicBaseUrl}${sandboxPrefixes.youtube}`
  return {
    ...yt,
    ...credentials,
    authorizeUrl: `${base}/o/oauth2/v2/auth`,
    tokenUrl: `${base}/token`,
    revokeUrl: `${base}/revoke`,
    apiUrl: base,
    webUrl: `${base}/web`,
  }
}

/** Meta settings (Facebook Pages, Instagram): the real hosts from config, or the simulator in sandbox mode. */
export function metaSettings(config: Config, saved: SavedApps = {}): MetaSettings {
  const meta = config.networks.meta
  const facebook = resolveApp(config, 'facebook', saved)
  const instagram = resolveApp(config, 'instagram', saved)
  const credentials = {
    appId: facebook?.clientId ?? '',
    appSecret: facebook?.clientSecret,
    instagramAppId: instagram?.clientId ?? '',
    instagramAppSecret: instagram?.clientSecret,
  }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.facebook}`
    return {
      ...credentials,
      version: meta.version,
      graphUrl: `${base}/graph`,
      dialogUrl: `${base}/www`,
      instagramGraphUrl: `${base}/ig`,
      instagramAuthorizeUrl: `${base}/instagram/oauth/authorize`,
      instagramTokenUrl: `${base}/api-instagram/oauth/access_token`,
      facebookWebUrl: `${base}/web/facebook`,
      instagramWebUrl: `${base}/web/instagram`,
    }
  }
  return {
    ...credentials,
    version: meta.version,
    graphUrl: meta.graphUrl,
    dialogUrl: meta.dialogUrl,
    instagramGraphUrl: meta.instagramGraphUrl,
    instagramAuthorizeUrl: meta.instagramAuthorizeUrl,
    instagramTokenUrl: meta.instagramTokenUrl,
    facebookWebUrl: FACEBOOK_WEB_URL,
    instagramWebUrl: INSTAGRAM_WEB_URL,
  }
}

/**
 * LinkedIn settings: the real hosts from config, or the simulator in sandbox mode (whose built-in app has
 * the Community Management product, so pages can be connected).
 */
export function linkedinSettings(config: Config, saved: SavedApps = {}): LinkedInSettings {
  const li = config.networks.linkedin
  const app = resolveApp(config, 'linkedin', saved)
  const credentials = {
    clientId: app?.clientId ?? '',
    clientSecret: app?.clientSecret,
    communityManagement: app?.communityManagement ?? li.communityManagement,
  }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.linkedin}`
    return {
      ...credentials,
      version: li.version,
      authorizeUrl: `${base}/oauth/v2/authorization`,
      tokenUrl: `${base}/oauth/v2/accessToken`,
      apiUrl: base,
      webUrl: `${base}/web`,
    }
  }
  return {
    ...credentials,
    version: li.version,
    authorizeUrl: li.authorizeUrl,
    tokenUrl: li.tokenUrl,
    apiUrl: li.apiUrl,
    webUrl: LINKEDIN_WEB_URL,
  }
}

/** Threads settings: graph.threads.net and the Threads app from config, or the simulator in sandbox mode. */
export function threadsSettings(config: Config, saved: SavedApps = {}): ThreadsSettings {
  const th = config.networks.threads
  const app = resolveApp(config, 'threads', saved)
  const credentials = { appId: app?.clientId ?? '', appSecret: app?.clientSecret }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.threads}`
    return {
      ...credentials,
      version: 'v1.0',
      graphUrl: `${base}/graph`,
      authorizeUrl: `${base}/oauth/authorize`,
      webUrl: `${base}/web`,
    }
  }
  return {
    ...credentials,
    version: 'v1.0',
    graphUrl: th.graphUrl,
    authorizeUrl: th.authorizeUrl,
    webUrl: THREADS_WEB_URL,
  }
}

/**
 * TikTok settings: www.tiktok.com and open.tiktokapis.com with the app from config or the network apps
 * page, or the simulator in sandbox mode (its built-in app is audited).
 */
export function tiktokSettings(config: Config, saved: SavedApps = {}): TikTokSettings {
  const tt = config.networks.tiktok
  const app = resolveApp(config, 'tiktok', saved)
  const credentials = {
    clientKey: app?.clientId ?? '',
    clientSecret: app?.clientSecret,
    audited: app?.audited ?? false,
  }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.tiktok}`
    return { ...credentials, authorizeUrl: `${base}/v2/auth/authorize/`, apiUrl: base, webUrl: `${base}/web` }
  }
  return { ...credentials, authorizeUrl: tt.authorizeUrl, apiUrl: tt.apiUrl, webUrl: TIKTOK_WEB_URL }
}

/**
 * Bluesky settings: the configured service and PLC directory, or in sandbox mode (unless a PDS is
 * configured with HERALD_BLUESKY_SERVICE_URL) the simulator, which is both. A PDS on plain http or a
 * private address is accepted in sandbox mode, as the simulator is one.
 */
export function blueskySettings(config: Config): BlueskySettings {
  const bluesky = config.networks.bluesky
  if (config.sandbox && !bluesky.configured) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.bluesky}`
    return { serviceUrl: base, plcUrl: `${base}/plc`, allowLocalPds: true, webUrl: `${base}/web` }
  }
  return {
    serviceUrl: bluesky.serviceUrl,
    plcUrl: bluesky.plcUrl,
    allowLocalPds: bluesky.allowLocalPds || config.sandbox,
    webUrl: BLUESKY_WEB_URL,
  }
}

/**
 * Google Business Profile settings: Google's sign-in and the four API hosts from config, or in sandbox mode
 * the simulator, which serves each host under a path named after it.
 */
export function googleBusinessSettings(config: Config, saved: SavedApps = {}): GoogleBusinessSettings {
  const gbp = config.networks.googlebusiness
  const app = resolveApp(config, 'googlebusiness', saved)
  const credentials = { clientId: app?.clientId, clientSecret: app?.clientSecret }
  if (!config.sandbox) return { ...gbp, ...credentials, webUrl: GOOGLE_BUSINESS_WEB_URL }
  const base = `${config.publicBaseUrl}${sandboxPrefixes.googlebusiness}`
  return {
    ...credentials,
    authorizeUrl: `${base}/o/oauth2/v2/auth`,
    tokenUrl: `${base}/token`,
    revokeUrl: `${base}/revoke`,
    postsUrl: `${base}/mybusiness`,
    accountsUrl: `${base}/mybusinessaccountmanagement`,
    locationsUrl: `${base}/mybusinessbusinessinformation`,
    performanceUrl: `${base}/businessprofileperformance`,
    webUrl: `${base}/web`,
  }
}

/** Pinterest settings: api.pinterest.com and the app from config, or the simulator in sandbox mode. */
export function pinterestSettings(config: Config, saved: SavedApps = {}): PinterestSettings {
  const pin = config.networks.pinterest
  const app = resolveApp(config, 'pinterest', saved)
  const credentials = { appId: app?.clientId ?? '', appSecret: app?.clientSecret }
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.pinterest}`
    return { ...credentials, apiUrl: `${base}/v5`, authorizeUrl: `${base}/oauth/`, webUrl: `${base}/web` }
  }
  return { ...credentials, apiUrl: pin.apiUrl, authorizeUrl: pin.authorizeUrl, webUrl: PINTEREST_WEB_URL }
}

/**
 * Mastodon settings: every instance at `https://<host>`, reached through the guarded client (private
 * addresses only with HERALD_MASTODON_ALLOW_PRIVATE=1); in sandbox mode every instance name is one of the
 * simulator's, under `{PUBLIC_BASE_URL}/sandbox/mastodon/<host>`.
 */
export function mastodonSettings(config: Config): MastodonSettings {
  const mastodon = config.networks.mastodon
  const simulator = `${config.publicBaseUrl}${sandboxPrefixes.mastodon}`
  return {
    instanceUrl: config.sandbox ? (host) => `${simulator}/${host}` : httpsInstance,
    appName: mastodon.appName,
    website: config.publicBaseUrl,
    allowPrivate: mastodon.allowPrivate || config.sandbox,
    timeoutMs: mastodon.timeoutMs,
  }
}

/** How long a member's image upload is given before posting in sandbox mode (the simulator processes at once). */
const SANDBOX_PERSONAL_IMAGE_GRACE_MS = 500

export interface AdapterFactoryDeps {
  logger: Logger
  clock: Clock
  /** The media pipeline (`app.media`); adapters fetch and convert user media only through it. */
  media: MediaPort
  /** Defaults to the global fetch. */
  http?: typeof fetch
  /** How an adapter waits between polls; defaults to a real timer (the fault simulation passes its own). */
  sleep?: AdapterDeps['sleep']
  /** Herald's stored app on a Mastodon instance, for revoking a token there; absent, Mastodon revokes nothing. */
  mastodonApps?: InstanceAppLookup
}

export type Adapters = Partial<Record<Network, NetworkAdapter>>

/** Bluesky connects with a handle and an app password instead of OAuth. */
export const canLogin = (adapter: NetworkAdapter | undefined): adapter is BlueskyAdapter =>
  typeof (adapter as Partial<BlueskyAdapter> | undefined)?.login === 'function'

function adapterDepsOf(deps: AdapterFactoryDeps): AdapterDeps {
  return {
    // Every call an adapter makes for a send first checks that the worker still holds the target's lease.
    http: guardedHttp(deps.http ?? ((input, init) => fetch(input, init))),
    logger: deps.logger.child({ subsystem: 'networks' }),
    now: () => deps.clock.now(),
    sleep: deps.sleep ?? ((ms, signal) => delay(ms, undefined, signal ? { signal } : undefined)),
    media: deps.media,
  }
}

/**
 * The settings a network's adapter is built from, apps included: what {@link createAdapter} passes in, and
 * what the network apps service compares to know an adapter must be built again after an app changed.
 */
export function adapterSettings(config: Config, network: Network, saved: SavedApps = {}): unknown {
  switch (network) {
    case 'twitter':
      return twitterSettings(config, saved)
    case 'youtube':
      return youtubeSettings(config, saved)
    case 'facebook':
    case 'instagram':
      return metaSettings(config, saved)
    case 'linkedin':
      return linkedinSettings(config, saved)
    case 'threads':
      return threadsSettings(config, saved)
    case 'bluesky':
      return blueskySettings(config)
    case 'googlebusiness':
      return googleBusinessSettings(config, saved)
    case 'tiktok':
      return tiktokSettings(config, saved)
    case 'pinterest':
      return pinterestSettings(config, saved)
    case 'mastodon': {
      // Compared by value: the function that makes instance addresses is named by the sandbox switch.
      const { instanceUrl: _instanceUrl, ...settings } = mastodonSettings(config)
      return { ...settings, sandbox: config.sandbox }
    }
  }
}

/** One network's adapter, pointed at the network (or its simulator) and signing in with its app. */
export function createAdapter(
  network: Network,
  config: Config,
  deps: AdapterFactoryDeps,
  saved: SavedApps = {},
): NetworkAdapter {
  const adapterDeps = adapterDepsOf(deps)
  switch (network) {
    case 'twitter':
      return createTwitterAdapter(twitterSettings(config, saved), adapterDeps)
    case 'youtube':
      return createYouTubeAdapter(youtubeSettings(config, saved), adapterDeps)
    case 'facebook':
      return createFacebookAdapter(metaSettings(config, saved), adapterDeps)
    case 'instagram':
      return createInstagramAdapter(metaSettings(config, saved), adapterDeps)
    case 'linkedin':
      return createLinkedInAdapter(
        linkedinSettings(config, saved),
        adapterDeps,
        config.sandbox ? { personalImageGraceMs: SANDBOX_PERSONAL_IMAGE_GRACE_MS } : {},
      )
    case 'threads':
      return createThreadsAdapter(threadsSettings(config, saved), adapterDeps)
    case 'bluesky':
      // Bluesky talks to hosts a user's DID document names: through the guarded, address-pinned request.
      return createBlueskyAdapter(blueskySettings(config), {
        ...adapterDeps,
        http:
          deps.http ?? createGuardedHttp({ allowPrivate: blueskySettings(config).allowLocalPds ?? false }),
      })
    case 'googlebusiness':
      return createGoogleBusinessAdapter(googleBusinessSettings(config, saved), adapterDeps)
    case 'tiktok':
      return createTikTokAdapter(tiktokSettings(config, saved), adapterDeps)
    case 'pinterest':
      return createPinterestAdapter(pinterestSettings(config, saved), adapterDeps)
    case 'mastodon': {
      // Instances are hosts people type: every call goes through the guarded, address-pinned request.
      const settings = mastodonSettings(config)
      return createMastodonAdapter(
        settings,
        {
          ...adapterDeps,
          http: guardedHttp(deps.http ?? createGuardedHttp({ allowPrivate: settings.allowPrivate })),
        },
        {},
        deps.mastodonApps,
      )
    }
  }
}

/**
 * The adapters this build publishes through, pointed at the networks' real endpoints (or at the sandbox
 * simulators when HERALD_SANDBOX=1), each with its network's app (`saved`: the apps of the network apps
 * page). A network without an adapter here fails its targets with a clear reason.
 */
export function createAdapters(config: Config, deps: AdapterFactoryDeps, saved: SavedApps = {}): Adapters {
  return Object.fromEntries(
    networks.map((network) => [network, createAdapter(network, config, deps, saved)]),
  ) as Adapters
}
