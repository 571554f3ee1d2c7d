import { type AdapterDeps, type NetworkAdapter, PublishFailure } from '../adapter.js'
import { type PinterestContext, pinterestCall, str } from './client.js'
import { findPin } from './lookup.js'
import { readAccountMetrics, readPinMetrics } from './metrics.js'
import { boardProfile, createPinterestOAuth, readAccount, tokenCredentials, tokenRequest } from './oauth.js'
import { boardOf, publishPin } from './publish.js'
import type { PinterestSettings } from './settings.js'

export { PINTEREST_SCOPES, PINTEREST_WEB_URL, type PinterestSettings } from './settings.js'

/** Sends per worker to Pinterest at once: writes are metered per user per minute. */
const PINTEREST_CONCURRENCY = 3

/**
 * The Pinterest adapter (reference B): OAuth 2 with the board and pin scopes, each board of the account a
 * profile chosen at connect; pins with a title, description, link and alt text, an image or a carousel of 2
 * to 5 by URL or inline, a video through the media upload with a cover; unanswered pins looked up among the
 * board's pins; pin and account analytics. Base URLs come from `settings`, so tests and demo mode point it
 * at `src/sandbox/pinterest/`.
 */
export function createPinterestAdapter(settings: PinterestSettings, deps: AdapterDeps): NetworkAdapter {
  const ctx: PinterestContext = { settings, deps }
  return {
    network: 'pinterest',
    capabilities: { concurrency: PINTEREST_CONCURRENCY },
    oauth: createPinterestOAuth(ctx),
    async refresh(credentials) {
      if (!credentials.refreshToken)
        throw new PublishFailure('auth_expired', 'Pinterest gave no refresh token; reconnect the profile')
      const answer = await tokenRequest(
        ctx,
        { grant_type: 'refresh_token', refresh_token: credentials.refreshToken },
        'the token refresh',
      )
      return tokenCredentials(answer, deps.now(), credentials)
    },
    async resolveProfile(credentials) {
      const account = await readAccount(ctx, credentials.accessToken)
      const boardId = credentials.extra?.boardId
      if (!boardId) throw new PublishFailure('auth_expired', 'These Pinterest credentials name no board')
      const board = await pinterestCall(ctx, {
        method: 'GET',
        path: `/boards/${boardId}`,
        token: credentials.accessToken,
        what: 'the board',
      })
      return boardProfile({ id: boardId, name: str(board.name) ?? boardId }, account)
    },
    publish: (request) => publishPin(ctx, request),
    findPublished: (request) => findPin(ctx, request),
    postMetrics: ({ credentials, remoteId }) => readPinMetrics(ctx, { credentials, remoteId }),
    profileMetrics: ({ credentials, profile }) => readAccountMetrics(ctx, { credentials, profile }),
  }
}

export { boardOf }
