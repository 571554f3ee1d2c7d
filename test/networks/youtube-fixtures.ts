import { createHash, randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import type { AdapterDeps, Credentials, Profile, PublishRequest } from '../../src/adapters/adapter.js'
import {
  createYouTubeAdapter,
  type YouTubeAdapter,
  type YouTubeSettings,
} from '../../src/adapters/youtube/index.js'
import type { MediaKind, MediaPort, PreparedMedia } from '../../src/core/media-port.js'
import { createLogger } from '../../src/platform/logger.js'
import {
  registerYouTubeSandbox,
  type YouTubeSandbox,
  type YouTubeSandboxOptions,
} from '../../src/sandbox/youtube/index.js'
import {
  createValidatingFetch,
  DiscoveryRequestValidator,
  loadDiscovery,
  type ValidatingFetch,
} from '../helpers/discovery-request-validator.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'

/** Shared setup of the YouTube suites: the sandbox on 127.0.0.1, a media server, the adapter under test. */

export const discovery = loadDiscovery()

export const PREFIX = '/google'
export const CLIENT = { id: 'herald-test.apps.googleusercontent.com', secret: 'sandbox-secret' }
export const REDIRECT_URI = 'http://127.0.0.1:1/connect/youtube/callback'

/** A small "video": the first bytes of an MP4 `ftyp` box, then filler. */
export const clipBytes = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]),
  randomBytes(64 * 1024),
])
export const pngBytes = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
)

export interface YouTubeWorld {
  server: FastifyInstance
  sandbox: YouTubeSandbox
  origin: string
  settings: YouTubeSettings
  /** Serves clip.mp4, photo.png, photo.jpg, image-as.mp4 (a PNG behind a video name) for the media port. */
  mediaOrigin: string
  http: ValidatingFetch
  close(): Promise<void>
}

export async function startWorld(options: Partial<YouTubeSandboxOptions> = {}): Promise<YouTubeWorld> {
  const server = Fastify({ logger: false })
  const sandbox = registerYouTubeSandbox(server, {
    prefix: PREFIX,
    client: CLIENT,
    redirectUris: [REDIRECT_URI],
    ...options,
  })
  server.get('/media/clip.mp4', async (_request, reply) => reply.type('video/mp4').send(clipBytes))
  server.get('/media/clip.mov', async (_request, reply) => reply.type('video/quicktime').send(clipBytes))
  server.get('/media/photo.png', async (_request, reply) => reply.type('image/png').send(pngBytes))
  server.get('/media/photo.jpg', async (_request, reply) => reply.type('image/jpeg').send(pngBytes))
  server.get('/media/image-as.mp4', async (_request, reply) => reply.type('image/png').send(pngBytes))
  await server.listen({ host: '127.0.0.1', port: 0 })
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const origin = `http://127.0.0.1:${port}`
  const settings: YouTubeSettings = {
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    authorizeUrl: `${origin}${PREFIX}/o/oauth2/v2/auth`,
    tokenUrl: `${origin}${PREFIX}/token`,
    revokeUrl: `${origin}${PREFIX}/revoke`,
    apiUrl: `${origin}${PREFIX}`,
    dailyQuota: options.dailyQuota ?? 10_000,
    uploadUnits: options.uploadUnits ?? 1_600,
  }
  const http = createValidatingFetch({
    validator: discovery ? new DiscoveryRequestValidator(discovery, { apiUrl: settings.apiUrl }) : undefined,
    apiUrl: settings.apiUrl,
    exempt: [settings.tokenUrl],
    validateResponses: true,
  })
  return {
    server,
    sandbox,
    origin,
    settings,
    mediaOrigin: `${origin}/media`,
    http,
    close: () => server.close(),
  }
}

export const silentLogger = createLogger('silent')

export function makeDeps(world: YouTubeWorld, overrides: Partial<AdapterDeps> = {}): AdapterDeps {
  return {
    http: world.http.fetch,
    logger: silentLogger,
    now: () => world.sandbox.clock.now(),
    sleep: async () => {},
    media: createTestMediaPort(),
    ...overrides,
  }
}

export function makeAdapter(world: YouTubeWorld, overrides: Partial<AdapterDeps> = {}): YouTubeAdapter {
  return createYouTubeAdapter(world.settings, makeDeps(world, overrides))
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/**
 * Drives the consent page as a person would: opens the authorize URL the adapter built, submits the form
 * with the chosen account and the scopes left ticked, and returns the callback's query.
 */
export async function consent(
  world: YouTubeWorld,
  adapter: YouTubeAdapter,
  choice: {
    account: string
    granted?: string[]
    decision?: 'allow' | 'deny'
    state?: string
    challenge?: string
  },
): Promise<{ callback: URL; page: string }> {
  const authorizeUrl = adapter.oauth!.authorizeUrl({
    state: choice.state ?? 'state-123',
    codeChallenge: choice.challenge ?? pkcePair().challenge,
    redirectUri: REDIRECT_URI,
  })
  const pageResponse = await fetch(authorizeUrl)
  const page = await pageResponse.text()
  if (pageResponse.status !== 200) throw new Error(`consent page answered ${pageResponse.status}: ${page}`)
  const form = new URLSearchParams()
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(match[1]!, unescapeHtml(match[2]!))
  form.set('account', choice.account)
  const requested = new URL(authorizeUrl).searchParams.get('scope')!.split(' ')
  for (const scope of choice.granted ?? requested) form.append('granted', scope)
  form.set('decision', choice.decision ?? 'allow')
  const action = page.match(/<form method="post" action="([^"]+)">/)![1]!
  const answer = await fetch(`${world.origin}${unescapeHtml(action)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  })
  if (answer.status !== 302) throw new Error(`consent answered ${answer.status}: ${await answer.text()}`)
  return { callback: new URL(answer.headers.get('location')!), page }
}

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
}

/** Connects an account end to end and returns what the connect flow would store. */
export async function connectAccount(
  world: YouTubeWorld,
  adapter: YouTubeAdapter,
  account = 'creator@example.com',
): Promise<{ credentials: Credentials; profile: Profile; grantedScopes: string[] }> {
  const pkce = pkcePair()
  const { callback } = await consent(world, adapter, { account, challenge: pkce.challenge })
  const { credentials, grantedScopes } = await adapter.oauth!.exchangeCode({
    code: callback.searchParams.get('code')!,
    codeVerifier: pkce.verifier,
    redirectUri: REDIRECT_URI,
  })
  const profile = await adapter.resolveProfile(credentials)
  return { credentials, profile, grantedScopes }
}

export function publishRequest(
  connection: { credentials: Credentials; profile: Profile },
  input: Partial<Omit<PublishRequest, 'credentials' | 'profile'>>,
): PublishRequest {
  return {
    targetId: input.targetId ?? 'target-1',
    profile: connection.profile,
    credentials: connection.credentials,
    content: input.content ?? 'A day at the beach\nSun, sand and #summer #beach vibes',
    mediaUrls: input.mediaUrls ?? [],
    ...(input.youtube ? { youtube: input.youtube } : {}),
    signal: input.signal ?? new AbortController().signal,
  }
}

/**
 * A MediaPort that hands the adapter an existing local file without fetching anything (the big-upload
 * test's file, or a file with chosen probe results).
 */
export function fileMediaPort(file: {
  path: string
  size: number
  kind?: MediaKind
  contentType?: string
  width?: number
  height?: number
  durationMs?: number
  keep?: boolean
}): MediaPort & { prepared: number } {
  const port = {
    prepared: 0,
    async prepare(url: string): Promise<PreparedMedia> {
      port.prepared++
      return {
        path: file.path,
        size: file.size,
        kind: file.kind ?? 'video',
        contentType: file.contentType ?? 'video/mp4',
        ...(file.width === undefined ? {} : { width: file.width }),
        ...(file.height === undefined ? {} : { height: file.height }),
        ...(file.durationMs === undefined ? {} : { durationMs: file.durationMs }),
        name: path.basename(new URL(url).pathname),
        dispose: async () => {
          if (!file.keep) await rm(file.path, { force: true })
        },
      }
    },
  }
  return port
}

/** Writes `bytes` to a fresh temp file named `*.mp4` and returns its path. */
export async function tempVideo(bytes: Buffer): Promise<string> {
  const file = path.join(tmpdir(), `herald-yt-${randomBytes(6).toString('hex')}.mp4`)
  await writeFile(file, bytes)
  return file
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}
