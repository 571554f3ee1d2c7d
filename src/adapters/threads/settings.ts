import type { AdapterDeps } from '../adapter.js'
import type { GraphClient } from '../meta/graph.js'

/** The Threads app (its own id and secret, not the Facebook app's) and hosts, from `config.networks.threads`. */
export interface ThreadsSettings {
  /** Threads app id; empty when not configured. */
  appId: string
  appSecret?: string | undefined
  /** `v1.0`: in every Graph path. */
  version: string
  /** `https://graph.threads.net`; no trailing slash, no version. */
  graphUrl: string
  /** `https://threads.net/oauth/authorize`. */
  authorizeUrl: string
  /** Where people read threads and profiles. Default {@link THREADS_WEB_URL}. */
  webUrl?: string | undefined
}

/** www.threads.net: the site post and profile URLs name unless the settings say otherwise. */
export const THREADS_WEB_URL = 'https://www.threads.net'

const trim = (url: string) => url.replace(/\/+$/, '')

/** The versioned Graph client of graph.threads.net (profile, containers, publishing, insights). */
export const threadsGraph = (settings: ThreadsSettings, deps: AdapterDeps): GraphClient => ({
  baseUrl: `${trim(settings.graphUrl)}/${settings.version}`,
  label: 'Threads',
  deps,
})

/** The same host without the version, for the token endpoints (`/oauth/access_token`, `/access_token`, `/refresh_access_token`). */
export const threadsGraphRoot = (settings: ThreadsSettings, deps: AdapterDeps): GraphClient => ({
  baseUrl: trim(settings.graphUrl),
  label: 'Threads',
  deps,
})
