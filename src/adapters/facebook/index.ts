import { type AdapterDeps, type NetworkAdapter, PublishFailure } from '../adapter.js'
import { FACEBOOK_COMMENTS, findComment, publishComment } from '../meta/comments.js'
import { createFacebookLogin } from '../meta/facebook-login.js'
import { callGraph } from '../meta/graph.js'
import { facebookGraph, type MetaSettings, metaWebUrls } from '../meta/settings.js'
import { findPagePost } from './lookup.js'
import { readPageMetrics, readPostMetrics } from './metrics.js'
import { type FacebookContext, pageIdOf, publishToPage } from './publish.js'

/** Sends per worker to Facebook at once: Page calls are metered per Page and per app hour. */
const FACEBOOK_CONCURRENCY = 3

/**
 * The Facebook Pages adapter: Facebook Login (the grant lists every Page and linked Instagram account on
 * the choose-profiles page), Page posts, photos, photo sets and videos by URL, and insights. Base URLs
 * come from `settings`, so tests and demo mode point it at `src/sandbox/meta/`.
 */
export function createFacebookAdapter(settings: MetaSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: FacebookContext = {
    graph: facebookGraph(settings, deps),
    deps,
    webUrl: metaWebUrls(settings).facebook,
  }
  return {
    network: 'facebook',
    capabilities: { concurrency: FACEBOOK_CONCURRENCY },
    oauth: createFacebookLogin(settings, deps),
    async refresh(credentials) {
      // A Page token issued from a long-lived user token does not expire; it only stops working when
      // revoked, and then only a new grant helps.
      if (credentials.expiresAt === undefined || credentials.expiresAt > deps.now()) return credentials
      throw new PublishFailure('auth_expired', 'The Facebook token expired; reconnect the Page')
    },
    async resolveProfile(credentials) {
      const pageId = credentials.extra?.pageId
      if (!pageId)
        throw new PublishFailure(
          'invalid_content',
          'Choose the Facebook Pages to connect on the choose-profiles page',
        )
      const page = await callGraph(ctx.graph, {
        method: 'GET',
        path: `/${pageId}`,
        params: { fields: 'id,name,username' },
        token: credentials.accessToken,
        what: 'the Page',
      })
      return {
        profileId: pageId,
        username: typeof page.username === 'string' ? page.username : pageId,
        name: typeof page.name === 'string' ? page.name : pageId,
        isOrganization: true,
      }
    },
    publish: (request) => publishToPage(ctx, request),
    findPublished: (request) => findPagePost(ctx, request),
    publishItem: (request) => publishComment(FACEBOOK_COMMENTS, ctx.graph, request),
    findItem: (request) => findComment(FACEBOOK_COMMENTS, ctx.graph, request),
    postMetrics: ({ credentials, remoteId }) => readPostMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readPageMetrics(ctx, { credentials, profile }),
  }
}

export { pageIdOf }
