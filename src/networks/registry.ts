import { setTimeout as delay } from 'node:timers/promises'
import type { Config } from '../config.js'
import type { Network } from '../domain/networks.js'
import type { Clock } from '../lib/clock.js'
import { guardedHttp } from '../lib/send-guard.js'
import type { Logger } from '../logger.js'
import type { MediaPort } from '../media/port.js'
import type { AdapterDeps, NetworkAdapter } from './adapter.js'
import {
  BLUESKY_WEB_URL,
  type BlueskyAdapter,
  type BlueskySettings,
  createBlueskyAdapter,
} from './bluesky/index.js'
import { createFacebookAdapter } from './facebook/index.js'
import { createGuardedHttp } from './guarded-http.js'
import { createInstagramAdapter } from './instagram/index.js'
import { createLinkedInAdapter, LINKEDIN_WEB_URL, type LinkedInSettings } from './linkedin/index.js'
import { FACEBOOK_WEB_URL, INSTAGRAM_WEB_URL, type MetaSettings } from './meta/settings.js'
import { createThreadsAdapter, THREADS_WEB_URL, type ThreadsSettings } from './threads/index.js'
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
} as const

/** The OAuth client id the adapters present to the simulators when no real one is configured. */
export const SANDBOX_CLIENT_ID = 'herald-sandbox'

/** X settings: the real endpoints from config, or the simulator under PUBLIC_BASE_URL in sandbox mode. */
export function twitterSettings(config: Config): TwitterSettings {
  const x = config.networks.twitter
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.twitter}`
    // The simulator accepts any client id as a public app, so no app registration is needed.
    return {
      clientId: SANDBOX_CLIENT_ID,
      apiUrl: `${base}/api`,
      authorizeUrl: `${base}/i/oauth2/authorize`,
      webUrl: `${base}/web`,
    }
  }
  return {
    clientId: x.clientId ?? '',
    clientSecret: x.clientSecret,
    apiUrl: x.apiUrl,
    authorizeUrl: x.authorizeUrl,
    webUrl: X_WEB_URL,
  }
}

/** YouTube settings: Google's endpoints from config, or the simulator under PUBLIC_BASE_URL in sandbox mode. */
export function youtubeSettings(config: Config): YouTubeSettings {
  const yt = config.networks.youtube
  if (!config.sandbox) return { ...yt, webUrl: YOUTUBE_WEB_URL }
  const base = `${config.publicBaseUrl}${sandboxPrefixes.youtube}`
  return {
    ...yt,
    clientId: SANDBOX_CLIENT_ID,
    clientSecret: undefined,
    authorizeUrl: `${base}/o/oauth2/v2/auth`,
    tokenUrl: `${base}/token`,
    apiUrl: base,
    webUrl: `${base}/web`,
  }
}

/** Meta settings (Facebook Pages, Instagram): the real hosts from config, or the simulator in sandbox mode. */
export function metaSettings(config: Config): MetaSettings {
  const meta = config.networks.meta
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.facebook}`
    return {
      appId: SANDBOX_CLIENT_ID,
      appSecret: 'herald-sandbox-secret',
      version: meta.version,
      graphUrl: `${base}/graph`,
      dialogUrl: `${base}/www`,
      instagramAppId: SANDBOX_CLIENT_ID,
      instagramAppSecret: 'herald-sandbox-secret',
      instagramGraphUrl: `${base}/ig`,
      instagramAuthorizeUrl: `${base}/instagram/oauth/authorize`,
      instagramTokenUrl: `${base}/api-instagram/oauth/access_token`,
      facebookWebUrl: `${base}/web/facebook`,
      instagramWebUrl: `${base}/web/instagram`,
    }
  }
  return {
    appId: meta.appId ?? '',
    appSecret: meta.appSecret,
    version: meta.version,
    graphUrl: meta.graphUrl,
    dialogUrl: meta.dialogUrl,
    instagramAppId: meta.instagramAppId ?? '',
    instagramAppSecret: meta.instagramAppSecret,
    instagramGraphUrl: meta.instagramGraphUrl,
    instagramAuthorizeUrl: meta.instagramAuthorizeUrl,
    instagramTokenUrl: meta.instagramTokenUrl,
    facebookWebUrl: FACEBOOK_WEB_URL,
    instagramWebUrl: INSTAGRAM_WEB_URL,
  }
}

/**
 * LinkedIn settings: the real hosts from config, or the simulator in sandbox mode (whose app has the
 * Community Management product, so pages can be connected).
 */
export function linkedinSettings(config: Config): LinkedInSettings {
  const li = config.networks.linkedin
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.linkedin}`
    return {
      clientId: SANDBOX_CLIENT_ID,
      clientSecret: 'herald-sandbox-secret',
      version: li.version,
      communityManagement: true,
      authorizeUrl: `${base}/oauth/v2/authorization`,
      tokenUrl: `${base}/oauth/v2/accessToken`,
      apiUrl: base,
      webUrl: `${base}/web`,
    }
  }
  return {
    clientId: li.clientId ?? '',
    clientSecret: li.clientSecret,
    version: li.version,
    communityManagement: li.communityManagement,
    authorizeUrl: li.authorizeUrl,
    tokenUrl: li.tokenUrl,
    apiUrl: li.apiUrl,
    webUrl: LINKEDIN_WEB_URL,
  }
}

/** Threads settings: graph.threads.net and the Threads app from config, or the simulator in sandbox mode. */
export function threadsSettings(config: Config): ThreadsSettings {
  const th = config.networks.threads
  if (config.sandbox) {
    const base = `${config.publicBaseUrl}${sandboxPrefixes.threads}`
    return {
      appId: SANDBOX_CLIENT_ID,
      appSecret: 'herald-sandbox-secret',
      version: 'v1.0',
      graphUrl: `${base}/graph`,
      authorizeUrl: `${base}/oauth/authorize`,
      webUrl: `${base}/web`,
    }
  }
  return {
    appId: th.appId ?? '',
    appSecret: th.appSecret,
    version: 'v1.0',
    graphUrl: th.graphUrl,
    authorizeUrl: th.authorizeUrl,
    webUrl: THREADS_WEB_URL,
  }
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

/** How long a member's image upload is given before posting in sandbox mode (the simulator processes at once). */
const SANDBOX_PERSONAL_IMAGE_GRACE_MS = 500

/**
 * Why a network cannot be connected in this configuration, or undefined when it can. Publishing through
 * an already-connected profile does not depend on this (it uses the stored tokens).
 */
export function connectUnavailable(config: Config, network: Network): string | undefined {
  switch (network) {
    case 'twitter':
      return config.sandbox || config.networks.twitter.clientId
        ? undefined
        : 'X is not configured on this Herald: set HERALD_TWITTER_CLIENT_ID (and HERALD_TWITTER_CLIENT_SECRET for a confidential app).'
    case 'youtube':
      return config.sandbox || config.networks.youtube.clientId
        ? undefined
        : 'YouTube is not configured on this Herald: set HERALD_GOOGLE_CLIENT_ID and HERALD_GOOGLE_CLIENT_SECRET.'
    case 'bluesky':
      // No app registration: an account connects with its handle and an app password.
      return undefined
    case 'facebook':
      return config.sandbox || config.networks.meta.appId
        ? undefined
        : 'Facebook is not configured on this Herald: set HERALD_META_APP_ID and HERALD_META_APP_SECRET.'
    case 'instagram':
      return config.sandbox || config.networks.meta.instagramAppId
        ? undefined
        : 'Instagram Login is not configured on this Herald: set HERALD_INSTAGRAM_APP_ID and HERALD_INSTAGRAM_APP_SECRET (or connect the Instagram account through its Facebook Page).'
    case 'linkedin':
      return config.sandbox || config.networks.linkedin.clientId
        ? undefined
        : 'LinkedIn is not configured on this Herald: set HERALD_LINKEDIN_CLIENT_ID and HERALD_LINKEDIN_CLIENT_SECRET (and HERALD_LINKEDIN_COMMUNITY_MANAGEMENT=1 when the app has the Community Management API, for pages).'
    case 'threads':
      return config.sandbox || config.networks.threads.appId
        ? undefined
        : 'Threads is not configured on this Herald: set HERALD_THREADS_APP_ID and HERALD_THREADS_APP_SECRET (the Threads app id and secret of the Meta app, not its Facebook ones).'
    default:
      return `Herald cannot connect ${network} profiles yet: this build has no ${network} adapter.`
  }
}

export interface AdapterFactoryDeps {
  logger: Logger
  clock: Clock
  /** The media pipeline (`app.media`); adapters fetch and convert user media only through it. */
  media: MediaPort
  /** Defaults to the global fetch. */
  http?: typeof fetch
  /** How an adapter waits between polls; defaults to a real timer (the fault simulation passes its own). */
  sleep?: AdapterDeps['sleep']
}

export type Adapters = Partial<Record<Network, NetworkAdapter>>

/** Bluesky connects with a handle and an app password instead of OAuth. */
export const canLogin = (adapter: NetworkAdapter | undefined): adapter is BlueskyAdapter =>
  typeof (adapter as Partial<BlueskyAdapter> | undefined)?.login === 'function'

/**
 * The adapters this build publishes through, pointed at the networks' real endpoints (or at the sandbox
 * simulators when HERALD_SANDBOX=1). A network without an adapter here fails its targets with a clear reason.
 */
export function createAdapters(config: Config, deps: AdapterFactoryDeps): Adapters {
  const adapterDeps: AdapterDeps = {
    // Every call an adapter makes for a send first checks that the worker still holds the target's lease.
    http: guardedHttp(deps.http ?? ((input, init) => fetch(input, init))),
    logger: deps.logger.child({ subsystem: 'networks' }),
    now: () => deps.clock.now(),
    sleep: deps.sleep ?? ((ms, signal) => delay(ms, undefined, signal ? { signal } : undefined)),
    media: deps.media,
  }
  const adapters: Adapters = {
    twitter: createTwitterAdapter(twitterSettings(config), adapterDeps),
    youtube: createYouTubeAdapter(youtubeSettings(config), adapterDeps),
    facebook: createFacebookAdapter(metaSettings(config), adapterDeps),
    instagram: createInstagramAdapter(metaSettings(config), adapterDeps),
    linkedin: createLinkedInAdapter(
      linkedinSettings(config),
      adapterDeps,
      config.sandbox ? { personalImageGraceMs: SANDBOX_PERSONAL_IMAGE_GRACE_MS } : {},
    ),
    threads: createThreadsAdapter(threadsSettings(config), adapterDeps),
    // Bluesky talks to hosts a user's DID document names: through the guarded, address-pinned request.
    bluesky: createBlueskyAdapter(blueskySettings(config), {
      ...adapterDeps,
      http: deps.http ?? createGuardedHttp({ allowPrivate: blueskySettings(config).allowLocalPds ?? false }),
    }),
  }
  return adapters
}
