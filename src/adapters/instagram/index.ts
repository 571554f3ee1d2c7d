import { type AdapterDeps, type NetworkAdapter, PublishFailure } from '../adapter.js'
import { findComment, INSTAGRAM_COMMENTS, publishComment } from '../meta/comments.js'
import { callGraph } from '../meta/graph.js'
import { facebookGraph, instagramGraph, type MetaSettings, metaWebUrls } from '../meta/settings.js'
import { createInstagramLogin, refreshInstagramToken, resolveInstagramLoginProfile } from './login.js'
import { readAccountMetrics, readMediaMetrics } from './metrics.js'
import {
  findInstagramPost,
  graphFor,
  type InstagramContext,
  igUserIdOf,
  publishToInstagram,
  readAllowance,
} from './publish.js'

/** Sends per worker to Instagram at once: container processing is slow, the allowance is per account. */
const INSTAGRAM_CONCURRENCY = 3

/**
 * The Instagram adapter, for professional accounts reached either through Facebook Login (a Page's
 * linked account, on graph.facebook.com with the Page token; connected from `/connect/facebook`) or
 * through Instagram Login (on graph.instagram.com; connected from `/connect/instagram`). Both publish the
 * same way: containers, status polling, `media_publish`.
 */
export function createInstagramAdapter(settings: MetaSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: InstagramContext = {
    facebook: facebookGraph(settings, deps, 'Instagram'),
    instagram: instagramGraph(settings, deps),
    deps,
    webUrl: metaWebUrls(settings).instagram,
  }
  return {
    network: 'instagram',
    capabilities: { concurrency: INSTAGRAM_CONCURRENCY },
    oauth: createInstagramLogin(settings, deps),
    async refresh(credentials) {
      if (credentials.extra?.host === 'instagram') return refreshInstagramToken(settings, deps, credentials)
      if (credentials.expiresAt === undefined || credentials.expiresAt > deps.now()) return credentials
      throw new PublishFailure(
        'auth_expired',
        'The Facebook token of this Instagram account expired; reconnect it',
      )
    },
    async resolveProfile(credentials) {
      if (credentials.extra?.host === 'instagram')
        return resolveInstagramLoginProfile(settings, deps, credentials)
      const igUserId = credentials.extra?.igUserId
      if (!igUserId)
        throw new PublishFailure(
          'invalid_content',
          'Choose the Instagram account on the choose-profiles page',
        )
      const ig = await callGraph(ctx.facebook, {
        method: 'GET',
        path: `/${igUserId}`,
        params: { fields: 'id,username,name,profile_picture_url' },
        token: credentials.accessToken,
        what: 'the account',
      })
      const username = typeof ig.username === 'string' ? ig.username : igUserId
      return {
        profileId: igUserId,
        username,
        name: typeof ig.name === 'string' ? ig.name : username,
        isOrganization: false,
      }
    },
    publish: (request) => publishToInstagram(ctx, request),
    findPublished: (request) => findInstagramPost(ctx, request),
    publishItem: (request) => publishComment(INSTAGRAM_COMMENTS, graphFor(ctx, request.credentials), request),
    findItem: (request) => findComment(INSTAGRAM_COMMENTS, graphFor(ctx, request.credentials), request),
    async publishingAllowance({ credentials, profile }) {
      const limit = await readAllowance(
        { graph: graphFor(ctx, credentials), token: credentials.accessToken },
        igUserIdOf({ credentials, profile }),
      )
      return limit
        ? { used: limit.used, total: limit.total, windowHours: Math.round(limit.windowMs / 3_600_000) }
        : undefined
    },
    postMetrics: ({ credentials, remoteId }) => readMediaMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readAccountMetrics(ctx, { credentials, profile }),
  }
}
