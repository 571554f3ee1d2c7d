import { type AdapterDeps, type NetworkAdapter, PublishFailure } from '../adapter.js'
import type { LinkedInContext } from './client.js'
import { PERSONAL_IMAGE_GRACE_MS } from './media.js'
import { readPageMetrics, readPostMetrics } from './metrics.js'
import {
  createLinkedInOAuth,
  memberProfile,
  organizationProfiles,
  readUserinfo,
  tokenCredentials,
  tokenRequest,
} from './oauth.js'
import { findComment, findPost, publishComment, publishPost } from './publish.js'
import { LINKEDIN_WEB_URL, type LinkedInSettings } from './settings.js'

export { LINKEDIN_WEB_URL, type LinkedInSettings } from './settings.js'

/** Sends per worker to LinkedIn at once (its limits are per member and per app day, unpublished). */
const LINKEDIN_CONCURRENCY = 3

export const defaultLinkedInSettings: Omit<LinkedInSettings, 'clientId'> = {
  // The Marketing version Herald is tested against; LinkedIn sunsets a version about a year after release.
  version: '202608',
  communityManagement: false,
  authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
  tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
  apiUrl: 'https://api.linkedin.com',
}

/**
 * The LinkedIn adapter: members and the pages they administer (one grant, several profiles on the
 * choose-profiles page), posts with text, images, a video or an article card, unknown outcomes looked up
 * among the author's recent posts, and organization analytics. Base URLs come from `settings`, so tests
 * and demo mode point it at `src/sandbox/linkedin/`.
 */
export function createLinkedInAdapter(
  settings: LinkedInSettings,
  deps: AdapterDeps,
  options: { personalImageGraceMs?: number } = {},
): NetworkAdapter {
  const ctx: LinkedInContext = {
    settings: { ...settings, webUrl: (settings.webUrl ?? LINKEDIN_WEB_URL).replace(/\/+$/, '') },
    deps,
  }
  const publishOptions = { personalImageGraceMs: options.personalImageGraceMs ?? PERSONAL_IMAGE_GRACE_MS }
  return {
    network: 'linkedin',
    capabilities: { concurrency: LINKEDIN_CONCURRENCY },
    oauth: createLinkedInOAuth(ctx),
    async refresh(credentials) {
      if (!credentials.refreshToken)
        // Apps without LinkedIn's refresh-token programme get 60-day access tokens only (reference A.2).
        throw new PublishFailure(
          'auth_expired',
          'LinkedIn gives this app no refresh token; reconnect the profile to renew its access',
        )
      const answer = await tokenRequest(
        ctx,
        {
          grant_type: 'refresh_token',
          refresh_token: credentials.refreshToken,
          client_id: settings.clientId,
          client_secret: settings.clientSecret ?? '',
        },
        'the token refresh',
      )
      return tokenCredentials(answer, deps.now(), credentials)
    },
    async resolveProfile(credentials) {
      const author = credentials.extra?.author
      const orgId = author ? /^urn:li:organization:(\d+)$/.exec(author)?.[1] : undefined
      if (orgId) {
        const [page] = await organizationProfiles(ctx, credentials.accessToken, [orgId])
        return page as NonNullable<typeof page>
      }
      return memberProfile(await readUserinfo(ctx, credentials.accessToken))
    },
    publish: (request) => publishPost(ctx, publishOptions, request),
    findPublished: (request) => findPost(ctx, request),
    publishItem: (request) => publishComment(ctx, request),
    findItem: (request) => findComment(ctx, request),
    postMetrics: (input) => readPostMetrics(ctx, input),
    profileMetrics: (input) => readPageMetrics(ctx, input),
  }
}
