import type { NetworkSettings } from '../../platform/config.js'
import { type AdapterDeps, PublishFailure } from '../adapter.js'

/**
 * Where the Google Business Profile adapter signs in and calls: Google's OAuth endpoints with the network's
 * own app, and the four hosts the profile's APIs live on (posts on the My Business API v4, accounts and
 * locations on their v1 APIs, daily figures on the Performance API), each configurable so the sandbox
 * simulator stands in for all of them.
 */
export type GoogleBusinessSettings = NetworkSettings['googlebusiness'] & {
  /**
   * Where a post is shown when Google answers without its `searchUrl` (Google Business, the manager's own
   * view of the location). Default {@link GOOGLE_BUSINESS_WEB_URL}; no trailing slash.
   */
  webUrl?: string | undefined
}

/** business.google.com, the location's own page for its manager. */
export const GOOGLE_BUSINESS_WEB_URL = 'https://business.google.com'

/** The one scope every Business Profile API takes (the legacy `plus.business.manage` authorises v4 too). */
export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage'
export const LEGACY_BUSINESS_SCOPE = 'https://www.googleapis.com/auth/plus.business.manage'
export const GOOGLE_BUSINESS_SCOPES = [BUSINESS_SCOPE] as const

export interface GoogleBusinessContext {
  settings: GoogleBusinessSettings
  deps: AdapterDeps
}

/**
 * The location a connection publishes to, from what the connect flow stored: the v4 path local posts
 * live under (`accounts/1/locations/2`), from the account that reached it and the location's own name.
 */
export function locationPath(extra: Record<string, string> | undefined, profileId: string): string {
  const account = extra?.account
  const location = extra?.location ?? profileId
  if (!account || !location.startsWith('locations/'))
    throw new PublishFailure(
      'auth_expired',
      'This Google Business Profile connection names no account and location; reconnect it',
    )
  return `${account}/${location}`
}
