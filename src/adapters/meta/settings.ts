import type { AdapterDeps } from '../adapter.js'
import type { GraphClient } from './graph.js'

/** Meta app credentials and hosts, from `config.networks.meta` (or the simulator in sandbox mode and tests). */
export interface MetaSettings {
  /** Facebook app id (Facebook Login); empty when not configured. */
  appId: string
  appSecret?: string | undefined
  /** Graph API version in every path, `v25.0` by default (HERALD_META_GRAPH_VERSION). */
  version: string
  /** `https://graph.facebook.com`; no trailing slash, no version. */
  graphUrl: string
  /** `https://www.facebook.com` (the `/{version}/dialog/oauth` consent page lives under it). */
  dialogUrl: string
  /** Instagram app id and secret (Instagram Login); empty when not configured. */
  instagramAppId: string
  instagramAppSecret?: string | undefined
  /** `https://graph.instagram.com`. */
  instagramGraphUrl: string
  /** `https://www.instagram.com/oauth/authorize`. */
  instagramAuthorizeUrl: string
  /** `https://api.instagram.com/oauth/access_token`. */
  instagramTokenUrl: string
  /** Where people read Page posts (relative permalinks are under it). Default {@link FACEBOOK_WEB_URL}. */
  facebookWebUrl?: string | undefined
  /** Where people see Instagram posts and profiles. Default {@link INSTAGRAM_WEB_URL}. */
  instagramWebUrl?: string | undefined
}

/** www.facebook.com and www.instagram.com: the sites post URLs name unless the settings say otherwise. */
export const FACEBOOK_WEB_URL = 'https://www.facebook.com'
export const INSTAGRAM_WEB_URL = 'https://www.instagram.com'

export const defaultMetaSettings: MetaSettings = {
  appId: '',
  version: 'v25.0',
  graphUrl: 'https://graph.facebook.com',
  dialogUrl: 'https://www.facebook.com',
  instagramAppId: '',
  instagramGraphUrl: 'https://graph.instagram.com',
  instagramAuthorizeUrl: 'https://www.instagram.com/oauth/authorize',
  instagramTokenUrl: 'https://api.instagram.com/oauth/access_token',
}

const trim = (url: string) => url.replace(/\/+$/, '')

/** The web sites of the settings, without a trailing slash. */
export const metaWebUrls = (settings: MetaSettings) => ({
  facebook: trim(settings.facebookWebUrl ?? FACEBOOK_WEB_URL),
  instagram: trim(settings.instagramWebUrl ?? INSTAGRAM_WEB_URL),
})

/** The Graph client for graph.facebook.com at the configured version. */
export const facebookGraph = (
  settings: MetaSettings,
  deps: AdapterDeps,
  label = 'Facebook',
): GraphClient => ({
  baseUrl: `${trim(settings.graphUrl)}/${settings.version}`,
  label,
  deps,
})

/** The Graph client for graph.instagram.com (Instagram Login tokens). */
export const instagramGraph = (settings: MetaSettings, deps: AdapterDeps): GraphClient => ({
  baseUrl: `${trim(settings.instagramGraphUrl)}/${settings.version}`,
  label: 'Instagram',
  deps,
})

/** The same host without the version, for Instagram's token endpoints (`/access_token`, `/refresh_access_token`). */
export const instagramGraphRoot = (settings: MetaSettings, deps: AdapterDeps): GraphClient => ({
  baseUrl: trim(settings.instagramGraphUrl),
  label: 'Instagram',
  deps,
})
