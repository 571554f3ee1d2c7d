import { createHash, randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import { describe, it } from 'vitest'
import type {
  AdapterDeps,
  Credentials,
  NetworkAdapter,
  Profile,
  PublishResult,
} from '../../src/adapters/adapter.js'
import { createTwitterAdapter, type TwitterSettings } from '../../src/adapters/twitter/index.js'
import { FakeClock } from '../../src/platform/clock.js'
import { createLogger } from '../../src/platform/logger.js'
import {
  registerTwitterSandbox,
  type TwitterSandbox,
  type TwitterSandboxOptions,
  type TwitterTier,
} from '../../src/sandbox/twitter/index.js'
import {
  createValidatingFetch,
  OpenApiRequestValidator,
  type ValidatingFetch,
} from '../helpers/openapi-request-validator.js'
import { referenceAvailable, referencePath } from '../helpers/reference.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'

/** The X API v2 OpenAPI document (v2.167) every adapter request is checked against. */
export const X_OPENAPI_PATH = referencePath('openapi/x-api-v2.openapi.json')
export const xOpenApiAvailable = referenceAvailable(X_OPENAPI_PATH)
export const SKIP_NOTE = `${X_OPENAPI_PATH} is absent (no ../shared): the X adapter tests need it to validate every request`

/** When the document is absent, reports `suite` as skipped with {@link SKIP_NOTE}; registers nothing otherwise. */
export function reportSkippedWithoutOpenApi(suite: string) {
  if (xOpenApiAvailable) return
  describe(suite, () => {
    it('is skipped because the X OpenAPI document is absent', ({ skip }) => skip(SKIP_NOTE))
  })
}

let sharedValidator: OpenApiRequestValidator | undefined
/** Parsing and indexing the 850 KB document once per test file is enough. */
export function xOpenApi(): OpenApiRequestValidator {
  sharedValidator ??= OpenApiRequestValidator.fromFile(X_OPENAPI_PATH)
  return sharedValidator
}

export const START = Date.UTC(2026, 2, 2, 12, 0, 0)
export const CLIENT_ID = 'herald-test-client'
export const REDIRECT_URI = 'http://127.0.0.1:9/connect/twitter/callback'

/** Bytes the fixture's file server returns per name; anything else is a 404 (an unreachable URL). */
const files: Record<string, { size: number; type: string }> = {
  'photo.png': { size: 20_000, type: 'image/png' },
  'photo.jpg': { size: 15_000, type: 'image/jpeg' },
  'photo.jpeg': { size: 15_000, type: 'image/jpeg' },
  'photo.heic': { size: 15_000, type: 'image/heic' },
  photo: { size: 15_000, type: 'image/jpeg' },
  'pic.webp': { size: 12_000, type: 'image/webp' },
  'anim.gif': { size: 40_000, type: 'image/gif' },
  // 2.5 MiB: three APPEND segments of at most 1 MiB.
  'clip.mp4': { size: 2.5 * 1024 * 1024, type: 'video/mp4' },
  // One byte over X's 5 MB image ceiling.
  'huge.png': { size: 5 * 1024 * 1024 + 1, type: 'image/png' },
}

export interface Connection {
  credentials: Credentials
  profile: Profile
  grantedScopes: string[]
}

export interface TwitterFixture {
  origin: string
  apiUrl: string
  authorizeUrl: string
  sandbox: TwitterSandbox
  clock: FakeClock
  /** Every deps.sleep call, in ms. */
  sleeps: number[]
  validation: ValidatingFetch
  logs: string[]
  deps: AdapterDeps
  adapter: NetworkAdapter
  /** Another adapter on the same sandbox and deps, with other settings. */
  adapterWith(settings: Partial<TwitterSettings>): NetworkAdapter
  fileUrl(name: string): string
  /** Runs the whole connect flow: consent page POST, callback code, PKCE exchange, users/me. */
  connect(
    username: string,
    options?: { tier?: TwitterTier; untick?: string[]; adapter?: NetworkAdapter },
  ): Promise<Connection>
  /** Consents as `username` and returns the callback's code (and the verifier it needs). */
  authorize(
    username: string,
    options?: { untick?: string[]; adapter?: NetworkAdapter },
  ): Promise<{ code: string; verifier: string }>
  publish(
    connection: Connection,
    content: string,
    mediaUrls?: string[],
    signal?: AbortSignal,
  ): Promise<PublishResult>
  close(): Promise<void>
}

export async function startTwitterFixture(
  options: { sandbox?: Partial<Omit<TwitterSandboxOptions, 'prefix'>>; clientSecret?: string } = {},
): Promise<TwitterFixture> {
  const clock = new FakeClock(START)
  const server = Fastify({ logger: false })
  const sandbox = registerTwitterSandbox(server, {
    prefix: '/sandbox/x',
    clock: () => clock.now(),
    processingDelayMs: 3000,
    ...options.sandbox,
  })
  server.get('/files/:name', async (request, reply) => {
    const file = files[(request.params as { name: string }).name]
    if (!file) return reply.code(404).send({ error: 'not found' })
    return reply.type(file.type).send(Buffer.alloc(file.size, 0x5a))
  })
  const address = await server.listen({ host: '127.0.0.1', port: 0 })
  const origin = address.replace('localhost', '127.0.0.1')
  const apiUrl = `${origin}/sandbox/x/api`
  const authorizeUrl = `${origin}/sandbox/x/i/oauth2/authorize`

  const validation = createValidatingFetch(xOpenApi(), apiUrl, {
    exempt: [
      {
        method: 'POST',
        path: '/2/oauth2/token',
        // v2.167 names this URL only as the OAuth2UserToken scheme's `tokenUrl`; `paths` has no operation
        // for it, so there is no request schema to check. Every other request is validated.
        reason: 'The OAuth 2.0 token endpoint is not an operation in the X OpenAPI document',
      },
      {
        method: 'POST',
        path: '/2/oauth2/revoke',
        // Like the token endpoint, revocation is OAuth 2.0 machinery the document has no operation for.
        reason: 'The OAuth 2.0 revocation endpoint is not an operation in the X OpenAPI document',
      },
    ],
  })
  const logs: string[] = []
  const logger = createLogger(
    'debug',
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(chunk.toString())
        done()
      },
    }),
  )
  const sleeps: number[] = []
  const deps: AdapterDeps = {
    http: validation.fetch,
    logger,
    now: () => clock.now(),
    // The sandbox runs on the same fake clock, so a sleep moves X's processing forward too.
    sleep: async (ms) => {
      sleeps.push(ms)
      clock.advance(ms)
    },
    media: createTestMediaPort(),
  }
  const baseSettings: TwitterSettings = {
    clientId: CLIENT_ID,
    clientSecret: options.clientSecret,
    apiUrl,
    authorizeUrl,
  }
  const adapterWith = (settings: Partial<TwitterSettings>) =>
    createTwitterAdapter({ ...baseSettings, ...settings }, deps)
  const adapter = adapterWith({})

  const authorize: TwitterFixture['authorize'] = async (username, authorizeOptions = {}) => {
    const flow = (authorizeOptions.adapter ?? adapter).oauth!
    const verifier = randomBytes(32).toString('base64url')
    const state = randomBytes(12).toString('base64url')
    const url = new URL(
      flow.authorizeUrl({
        state,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        redirectUri: REDIRECT_URI,
      }),
    )
    // What the consent form posts back: the authorize parameters, the username and the ticked scopes.
    const form = new URLSearchParams(url.searchParams)
    form.set('username', username)
    form.set('decision', 'authorize')
    for (const scope of (url.searchParams.get('scope') ?? '').split(' ')) {
      if (!authorizeOptions.untick?.includes(scope)) form.append('granted_scope', scope)
    }
    const response = await fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    })
    if (response.status !== 302)
      throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    const callback = new URL(response.headers.get('location') ?? '')
    if (callback.searchParams.get('state') !== state) throw new Error('the callback carried another state')
    return { code: callback.searchParams.get('code') ?? '', verifier }
  }

  return {
    origin,
    apiUrl,
    authorizeUrl,
    sandbox,
    clock,
    sleeps,
    validation,
    logs,
    deps,
    adapter,
    adapterWith,
    fileUrl: (name) => `${origin}/files/${name}`,
    authorize,
    async connect(username, connectOptions = {}) {
      const flow = connectOptions.adapter ?? adapter
      sandbox.createAccount({ username, tier: connectOptions.tier ?? 'standard' })
      const { code, verifier } = await authorize(username, connectOptions)
      const { credentials, grantedScopes } = await flow.oauth!.exchangeCode({
        code,
        codeVerifier: verifier,
        redirectUri: REDIRECT_URI,
      })
      const profile = await flow.resolveProfile(credentials)
      return { credentials, profile, grantedScopes }
    },
    publish(connection, content, mediaUrls = [], signal = new AbortController().signal) {
      return adapter.publish({
        targetId: `target-${randomBytes(4).toString('hex')}`,
        profile: connection.profile,
        credentials: connection.credentials,
        content,
        mediaUrls,
        signal,
      })
    },
    close: () => server.close(),
  }
}

/** Runs `action` and returns what it threw (failing the test if it did not throw). */
export async function failureOf(action: () => Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await action()
  } catch (error) {
    return error as Error & Record<string, any>
  }
  throw new Error('expected a failure, but the call succeeded')
}
