import type { FastifyError, FastifyInstance } from 'fastify'
import { parseForm } from '../../platform/form.js'
import { type CallTable, fromTable, installFaultHooks } from '../fault-hooks.js'
import type { FaultInjector } from '../fault-injector.js'
import { mediaView, postOnX, registerControlRoutes, tweetView } from './control.js'
import { send } from './endpoint.js'
import { registerMediaRoutes } from './media.js'
import { registerAuthorizeRoutes, registerRevokeRoute, registerTokenRoute } from './oauth.js'
import { registerPostRoutes } from './posts.js'
import { problems } from './problems.js'
import {
  type InjectedFailure,
  type MediaKind,
  type SandboxAccount,
  type SandboxClient,
  type SandboxEndpoint,
  type TokenSet,
  TwitterSandboxState,
  type TwitterTier,
} from './state.js'
import { registerTwitterWebPages } from './web-routes.js'

export type { SandboxAccount, SandboxClient, SandboxEndpoint, TokenSet, TwitterTier } from './state.js'
export { defaultRateLimits, sandboxEndpoints, textLimits } from './state.js'

export interface TwitterSandboxOptions {
  /**
   * Mount point, e.g. `/sandbox/x`: the API is `${prefix}/api`, consent `${prefix}/i/oauth2/authorize`, and
   * x.com's post pages `${prefix}/web`.
   */
  prefix: string
  /**
   * Where the simulator is reached from outside (`{PUBLIC_BASE_URL}/sandbox/twitter`): a profile's picture is
   * then served by the simulator itself, as X serves it from its own servers. Absent: an x.com-like address.
   */
  publicUrl?: string
  /** Epoch ms; default `Date.now`. Drives token expiry, code lifetime, processing, windows and metrics. */
  clock?: () => number
  /** How long a video or GIF processes after FINALIZE. Default 3000 ms. */
  processingDelayMs?: number
  /** `check_after_secs` X sends while processing. Default 1. */
  checkAfterSecs?: number
  /** Authorization code lifetime; X's is 30 s. */
  codeTtlMs?: number
  /** Access token lifetime in seconds; X's is 7200. */
  accessTokenTtlSeconds?: number
  /** Requests per user per window, by endpoint; defaults are X's ({@link defaultRateLimits}). */
  rateLimits?: Partial<Record<SandboxEndpoint, number>>
  /** Window length; X's is 15 minutes. */
  rateLimitWindowMs?: number
  /** Upload ceilings by kind; X's are image 5 MB, GIF 15 MB, video 512 MB. */
  maxMediaBytes?: Partial<Record<MediaKind, number>>
  /** Speak the pre-v2.167 field names (`retweet_count`, `tweet_count`, `edit_history_tweet_ids`). */
  legacyFieldNames?: boolean
  /**
   * How long a new post takes to show in its author's timeline (`GET /2/users/:id/tweets`); it is found by
   * id at once. X's timelines lag a new post; default 0.
   */
  timelineLagMs?: number
  /** Apps known from the start; any other client id is accepted as a public read-write app. */
  clients?: { clientId: string; clientSecret?: string; access?: SandboxClient['access'] }[]
  /** Serve the `${prefix}/_sandbox/...` control surface. Default true. */
  controls?: boolean
  /**
   * Asked about every request the simulator serves (see {@link twitterCalls}); default none. The per-endpoint
   * `injectFailure` controls keep working beside it.
   */
  faults?: FaultInjector
}

/**
 * Every X call the simulator serves, by its OpenAPI operationId; only `createPosts` can make something
 * visible (a post, or a reply). Media uploads create nothing anyone sees until a post names them.
 */
export const twitterCalls: CallTable = {
  'GET /i/oauth2/authorize': { operation: 'authorize', effectful: false },
  'POST /i/oauth2/authorize': { operation: 'authorize', effectful: false },
  'POST /api/2/oauth2/token': { operation: 'oauth2Token', effectful: false },
  'POST /api/2/oauth2/revoke': { operation: 'oauth2Revoke', effectful: false },
  'GET /api/2/users/me': { operation: 'getUsersMe', effectful: false },
  'POST /api/2/tweets': { operation: 'createPosts', effectful: true },
  'GET /api/2/tweets/:id': { operation: 'getPostsById', effectful: false },
  'GET /api/2/users/:id/tweets': { operation: 'getUsersPosts', effectful: false },
  'POST /api/2/media/upload/initialize': { operation: 'initializeMediaUpload', effectful: false },
  'POST /api/2/media/upload/:id/append': { operation: 'appendMediaUpload', effectful: false },
  'POST /api/2/media/upload/:id/finalize': { operation: 'finalizeMediaUpload', effectful: false },
  'GET /api/2/media/upload': { operation: 'getMediaUploadStatus', effectful: false },
  'POST /api/2/media/metadata': { operation: 'createMediaMetadata', effectful: false },
}

/** In-process handle on one sandbox, the same operations the control surface offers over HTTP. */
export interface TwitterSandbox {
  readonly prefix: string
  createAccount(input: {
    username: string
    name?: string
    tier?: TwitterTier
    followersCount?: number
    followingCount?: number
  }): SandboxAccount
  registerClient(input: {
    clientId: string
    clientSecret?: string
    access?: SandboxClient['access']
  }): SandboxClient
  /** Tokens for `username` without the consent page (the account is created if needed). */
  issueTokens(input: {
    username: string
    clientId?: string
    scopes?: string[]
  }): TokenSet & { user: SandboxAccount }
  revokeTokens(username: string): number
  expireAccessTokens(username: string): number
  injectFailure(
    endpoint: SandboxEndpoint,
    failure: Omit<InjectedFailure, 'remaining'> & { count?: number },
  ): void
  failNextProcessing(count?: number): void
  setRateLimit(endpoint: SandboxEndpoint, limit: number): void
  /** From now on, a new post shows in its author's timeline `ms` after it was made (X's timelines lag). */
  setTimelineLag(ms: number): void
  /**
   * A post the account makes on X itself, outside Herald (a busy profile, a reply written by hand);
   * undefined when the account or the post replied to is unknown.
   */
  postOnX(input: {
    username: string
    text: string
    inReplyToId?: string
  }): ReturnType<typeof tweetView> | undefined
  tweets(): ReturnType<typeof tweetView>[]
  media(): ReturnType<typeof mediaView>[]
  reset(): void
}

const JSON_BODY_LIMIT = 1024 * 1024
/** A multipart APPEND carries one segment (≤ 4 MB from Herald, ≤ 5 MB per X) plus its envelope. */
const MULTIPART_BODY_LIMIT = 8 * 1024 * 1024
const ALL_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access']

/**
 * Mounts an in-memory simulator of X's API on `server` (tests and demo mode): OAuth 2.0 consent and
 * token endpoints with PKCE, users/me, posts, the chunked media upload, metrics, X's error bodies and
 * rate-limit headers. Point the adapter at `apiUrl = ${origin}${prefix}/api` and
 * `authorizeUrl = ${origin}${prefix}/i/oauth2/authorize`. Routes exist once the server is ready.
 */
export function registerTwitterSandbox(
  server: FastifyInstance,
  options: TwitterSandboxOptions,
): TwitterSandbox {
  const prefix = options.prefix.replace(/\/+$/, '')
  const state = new TwitterSandboxState({
    clock: options.clock ?? Date.now,
    processingDelayMs: options.processingDelayMs ?? 3000,
    checkAfterSecs: options.checkAfterSecs ?? 1,
    codeTtlMs: options.codeTtlMs ?? 30_000,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 7200,
    rateLimitWindowMs: options.rateLimitWindowMs ?? 15 * 60_000,
    rateLimits: options.rateLimits ?? {},
    maxMediaBytes: options.maxMediaBytes ?? {},
    legacyFieldNames: options.legacyFieldNames ?? false,
    timelineLagMs: options.timelineLagMs ?? 0,
    ...(options.faults ? { injector: options.faults } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  })
  for (const client of options.clients ?? []) state.registerClient(client)

  server.register(
    async (app) => {
      if (options.faults)
        installFaultHooks(app, {
          network: 'twitter',
          injector: options.faults,
          prefix,
          classify: fromTable(twitterCalls),
          answer: (status) => ({
            body: problems.forStatus(status),
            headers: {
              'content-type': 'application/problem+json',
              ...(status === 429 ? exhaustedWindow(state.now(), state.options.rateLimitWindowMs) : {}),
            },
          }),
        })
      // Own parsers in this encapsulated context: JSON, forms (OAuth) and multipart (APPEND).
      app.removeAllContentTypeParsers()
      app.addContentTypeParser(
        'application/json',
        { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
        (_r, body, done) => {
          const text = String(body)
          if (text.trim() === '') return done(null, undefined)
          try {
            done(null, JSON.parse(text))
          } catch {
            done(Object.assign(new Error('The body is not valid JSON.'), { statusCode: 400 }), undefined)
          }
        },
      )
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT },
        (_r, body, done) => done(null, parseForm(String(body))),
      )
      app.addContentTypeParser(
        'multipart/form-data',
        { parseAs: 'buffer', bodyLimit: MULTIPART_BODY_LIMIT },
        (_r, body, done) => done(null, body),
      )
      app.setErrorHandler((error: FastifyError, request, reply) => {
        const status = error.statusCode ?? 500
        if (status >= 500) request.log.error({ err: error }, 'X sandbox request failed')
        if (status === 415) return send(reply, { status, body: problems.unsupportedMediaType(error.message) })
        if (status >= 500) return send(reply, { status: 500, body: problems.internal() })
        return send(reply, { status, body: { ...problems.invalid(error.message), status } })
      })
      app.setNotFoundHandler((request, reply) =>
        send(reply, {
          status: 404,
          body: problems.notFound(`No route ${request.method} ${request.url.split('?')[0]}`),
        }),
      )

      registerAuthorizeRoutes(app, state, `${prefix}/i/oauth2/authorize`)
      await app.register(
        async (api) => {
          registerTokenRoute(api, state)
          registerRevokeRoute(api, state)
          registerPostRoutes(api, state)
          registerMediaRoutes(api, state)
        },
        { prefix: '/api' },
      )
      if (options.controls ?? true) registerControlRoutes(app, state)
    },
    { prefix },
  )
  registerTwitterWebPages(server, state, `${prefix}/web`)

  return {
    prefix,
    createAccount: (input) => state.upsertAccount(input),
    registerClient: (input) => state.registerClient(input),
    issueTokens: ({ username, clientId = 'herald-sandbox', scopes = ALL_SCOPES }) => {
      const user = state.findAccount(username) ?? state.upsertAccount({ username })
      state.client(clientId)
      return { user, ...state.grants.issueTokens(user.id, clientId, scopes) }
    },
    revokeTokens: (username) => {
      const account = state.findAccount(username)
      return account ? state.grants.revokeUser(account.id) : 0
    },
    expireAccessTokens: (username) => {
      const account = state.findAccount(username)
      return account ? state.grants.expireAccessTokens(account.id) : 0
    },
    injectFailure: (endpoint, failure) => state.faults.injectFailure(endpoint, failure),
    failNextProcessing: (count = 1) => state.faults.failNextProcessing(count),
    setRateLimit: (endpoint, limit) => state.faults.setRateLimit(endpoint, limit),
    setTimelineLag: (ms) => {
      state.options.timelineLagMs = ms
    },
    postOnX: (input) => {
      const tweet = postOnX(state, input)
      return tweet && tweetView(tweet)
    },
    tweets: () => [...state.tweets.values()].map(tweetView),
    media: () => [...state.media.values()].map((media) => mediaView(state, media)),
    reset: () => state.reset(),
  }
}

/** The rate-limit headers X sends with a 429: the window used up, and when it resets (epoch seconds). */
function exhaustedWindow(now: number, windowMs: number): Record<string, string> {
  return {
    'x-rate-limit-limit': '100',
    'x-rate-limit-remaining': '0',
    'x-rate-limit-reset': String(Math.ceil((now + windowMs) / 1000)),
  }
}
