import type { Network } from '../core/networks.js'
import type { Config } from '../platform/config.js'

/**
 * The developer app each network's sign-in runs through. Every OAuth network needs one that the person
 * running Herald registered with the network (its client ID and secret); Bluesky needs none. An app comes
 * from the environment (HERALD_*_CLIENT_ID and _SECRET, read by src/platform/config.ts) or from the network apps
 * page (saved in the database, the secret sealed by the vault); in sandbox mode, without either, from the
 * simulator's built-in one. {@link resolveApp} is the one place that decides which.
 */

/** The networks whose sign-in needs a developer app, in the order the pages list them. */
export const appNetworks = [
  'twitter',
  'youtube',
  'facebook',
  'instagram',
  'threads',
  'linkedin',
  'googlebusiness',
  'tiktok',
  'pinterest',
] as const
export type AppNetwork = (typeof appNetworks)[number]

export const needsApp = (network: Network): network is AppNetwork =>
  (appNetworks as readonly string[]).includes(network)

/** An app saved on the network apps page, its secret already opened. */
export interface SavedApp {
  clientId: string
  /** Absent for a public app (X allows one); every other network's app has a secret. */
  clientSecret?: string | undefined
  /** LinkedIn only: the app has the Community Management API product (pages can be connected). */
  communityManagement?: boolean
  /** TikTok only: TikTok has audited the app for direct posting (posts are no longer private only). */
  audited?: boolean
}

export type SavedApps = Partial<Record<AppNetwork, SavedApp>>

/** Where the app in use came from: the environment wins over the page; the simulator's is the fallback. */
export type AppSource = 'environment' | 'saved' | 'sandbox'

export interface ResolvedApp {
  source: AppSource
  clientId: string
  clientSecret: string | undefined
  /** LinkedIn: whether the app may ask for the page (organization) scopes. */
  communityManagement: boolean
  /** TikTok: whether TikTok has audited the app (until then every post is private to the creator). */
  audited: boolean
}

/** The environment variables that set each network's app (for the administrator's page and the docs). */
export const appEnvironment: Record<AppNetwork, { id: string; secret: string }> = {
  twitter: { id: 'HERALD_TWITTER_CLIENT_ID', secret: 'HERALD_TWITTER_CLIENT_SECRET' },
  youtube: { id: 'HERALD_GOOGLE_CLIENT_ID', secret: 'HERALD_GOOGLE_CLIENT_SECRET' },
  facebook: { id: 'HERALD_META_APP_ID', secret: 'HERALD_META_APP_SECRET' },
  instagram: { id: 'HERALD_INSTAGRAM_APP_ID', secret: 'HERALD_INSTAGRAM_APP_SECRET' },
  threads: { id: 'HERALD_THREADS_APP_ID', secret: 'HERALD_THREADS_APP_SECRET' },
  linkedin: { id: 'HERALD_LINKEDIN_CLIENT_ID', secret: 'HERALD_LINKEDIN_CLIENT_SECRET' },
  googlebusiness: { id: 'HERALD_GOOGLE_BUSINESS_CLIENT_ID', secret: 'HERALD_GOOGLE_BUSINESS_CLIENT_SECRET' },
  tiktok: { id: 'HERALD_TIKTOK_CLIENT_KEY', secret: 'HERALD_TIKTOK_CLIENT_SECRET' },
  pinterest: { id: 'HERALD_PINTEREST_APP_ID', secret: 'HERALD_PINTEREST_APP_SECRET' },
}

/** The OAuth client id the adapters present to the simulators when no app is configured. */
export const SANDBOX_CLIENT_ID = 'herald-sandbox'
const SANDBOX_SECRET = 'herald-sandbox-secret'

/** The simulators' built-in apps: X and Google's take public clients, the others a secret. */
const sandboxSecrets: Record<AppNetwork, string | undefined> = {
  twitter: undefined,
  youtube: undefined,
  facebook: SANDBOX_SECRET,
  instagram: SANDBOX_SECRET,
  threads: SANDBOX_SECRET,
  linkedin: SANDBOX_SECRET,
  googlebusiness: undefined,
  tiktok: SANDBOX_SECRET,
  pinterest: SANDBOX_SECRET,
}

/** The app from the environment, when its id variable is set. */
function environmentApp(config: Config, network: AppNetwork): Omit<ResolvedApp, 'source'> | undefined {
  const n = config.networks
  const pair: [string | undefined, string | undefined] =
    network === 'twitter'
      ? [n.twitter.clientId, n.twitter.clientSecret]
      : network === 'youtube'
        ? [n.youtube.clientId, n.youtube.clientSecret]
        : network === 'facebook'
          ? [n.meta.appId, n.meta.appSecret]
          : network === 'instagram'
            ? [n.meta.instagramAppId, n.meta.instagramAppSecret]
            : network === 'threads'
              ? [n.threads.appId, n.threads.appSecret]
              : network === 'googlebusiness'
                ? [n.googlebusiness.clientId, n.googlebusiness.clientSecret]
                : network === 'tiktok'
                  ? [n.tiktok.clientKey, n.tiktok.clientSecret]
                  : network === 'pinterest'
                    ? [n.pinterest.appId, n.pinterest.appSecret]
                    : [n.linkedin.clientId, n.linkedin.clientSecret]
  if (!pair[0]) return undefined
  return {
    clientId: pair[0],
    clientSecret: pair[1],
    communityManagement: network === 'linkedin' && n.linkedin.communityManagement,
    audited: network === 'tiktok' && n.tiktok.audited,
  }
}

/**
 * The app a network signs in with: the environment's when its id variable is set, else the one saved on
 * the network apps page, else (sandbox mode) the simulator's built-in app; undefined when there is none, and
 * for Bluesky, which needs no app. HERALD_LINKEDIN_COMMUNITY_MANAGEMENT=1 holds for a saved LinkedIn app too.
 */
export function resolveApp(config: Config, network: Network, saved: SavedApps = {}): ResolvedApp | undefined {
  if (!needsApp(network)) return undefined
  const fromEnvironment = environmentApp(config, network)
  if (fromEnvironment) return { source: 'environment', ...fromEnvironment }
  const stored = saved[network]
  if (stored)
    return {
      source: 'saved',
      clientId: stored.clientId,
      clientSecret: stored.clientSecret,
      communityManagement:
        network === 'linkedin' &&
        (config.networks.linkedin.communityManagement || stored.communityManagement === true),
      audited: network === 'tiktok' && (config.networks.tiktok.audited || stored.audited === true),
    }
  if (config.sandbox)
    return {
      source: 'sandbox',
      clientId: SANDBOX_CLIENT_ID,
      clientSecret: sandboxSecrets[network],
      // The LinkedIn simulator's app has the Community Management product, so pages can be connected.
      communityManagement: network === 'linkedin',
      // The TikTok simulator's built-in app is audited: its posts are public unless the demo says otherwise.
      audited: network === 'tiktok',
    }
  return undefined
}

/** True when profiles of this network can be connected now: Bluesky always, the others with an app. */
export const canConnect = (config: Config, network: Network, saved: SavedApps = {}) =>
  !needsApp(network) || resolveApp(config, network, saved) !== undefined

/** Where a network sends the browser back after consent: the redirect URI every app must list exactly. */
export const callbackUrl = (config: Pick<Config, 'publicBaseUrl'>, network: Network) =>
  `${config.publicBaseUrl}/connect/${network}/callback`
