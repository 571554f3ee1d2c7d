import type { AdapterDeps, NetworkAdapter } from '../adapter.js'
import { revokeGoogleAccess } from '../youtube/auth.js'
import { findLocalPost } from './lookup.js'
import { readLocationMetrics, readPostMetrics } from './metrics.js'
import { createGoogleBusinessLogin, refreshGoogleBusiness, resolveLocation } from './oauth.js'
import { publishLocalPost } from './publish.js'
import type { GoogleBusinessContext, GoogleBusinessSettings } from './settings.js'

export { NO_API_ACCESS_MESSAGE } from './errors.js'
export {
  BUSINESS_SCOPE,
  GOOGLE_BUSINESS_SCOPES,
  GOOGLE_BUSINESS_WEB_URL,
  type GoogleBusinessSettings,
} from './settings.js'

/** Sends per worker to Google at once: every Business Profile API allows 300 calls a minute per project. */
const GOOGLE_BUSINESS_CONCURRENCY = 3

/**
 * The Google Business Profile adapter: Google OAuth with the business scope (each location the grant
 * reaches is a profile, chosen on the choose-profiles page), local posts (updates, events and offers with
 * one photo and a button), lookups through the location's posts, and figures per location. Base URLs come
 * from `settings`, so tests and demo mode point it at `src/sandbox/googlebusiness/`.
 */
export function createGoogleBusinessAdapter(
  settings: GoogleBusinessSettings,
  deps: AdapterDeps,
): NetworkAdapter {
  const ctx: GoogleBusinessContext = {
    settings,
    deps: { ...deps, logger: deps.logger.child({ network: 'googlebusiness' }) },
  }
  return {
    network: 'googlebusiness',
    capabilities: { concurrency: GOOGLE_BUSINESS_CONCURRENCY },
    oauth: createGoogleBusinessLogin(ctx),
    refresh: (credentials) => refreshGoogleBusiness(settings, ctx.deps, credentials),
    // One grant reaches every location it was given: revoking it withdraws them all.
    revokeAccess: (credentials, signal) => revokeGoogleAccess(settings, ctx.deps, credentials, signal),
    resolveProfile: (credentials) => resolveLocation(ctx, credentials),
    publish: (request) => publishLocalPost(ctx, request),
    findPublished: (request) => findLocalPost(ctx, request),
    postMetrics: async () => readPostMetrics(),
    profileMetrics: (input) => readLocationMetrics(ctx, input),
  }
}
