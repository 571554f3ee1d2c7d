import { createHash, randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { createLogger } from '../../src/logger.js'
import { MediaError, type MediaKind, type MediaPort, type PreparedMedia } from '../../src/media/port.js'
import type {
  AdapterDeps,
  Credentials,
  NetworkAdapter,
  Profile,
  PublishRequest,
} from '../../src/networks/adapter.js'
import { createFacebookAdapter } from '../../src/networks/facebook/index.js'
import { createInstagramAdapter } from '../../src/networks/instagram/index.js'
import { defaultMetaSettings, type MetaSettings } from '../../src/networks/meta/settings.js'
import {
  type MetaSandbox,
  type MetaSandboxOptions,
  registerMetaSandbox,
} from '../../src/sandbox/meta/index.js'
import { mp4File, solidImage } from '../media/fixtures.js'

/**
 * Shared setup of the Meta suites: the simulator on 127.0.0.1 (every Graph call checked against Meta's
 * spec files), a source server for media, a media port that hosts each prepared file on the same server
 * (as Herald's `/media/...` does) so the simulator's fetcher downloads it, and both adapters.
 */

export const PREFIX = '/meta'

export interface MetaWorld {
  server: FastifyInstance
  sandbox: MetaSandbox
  origin: string
  settings: MetaSettings
  facebook: NetworkAdapter
  instagram: NetworkAdapter
  /** Source URLs: photo.jpg (1080x1080), wide.jpg (1600x900), clip.mp4. */
  src: (name: string) => string
  /** Every URL the adapters were handed by the media port, and every request they sent. */
  hosted: string[]
  requests: { method: string; url: string; auth?: string; body?: string }[]
  logs: string[]
  close(): Promise<void>
}

export async function startMetaWorld(options: Partial<MetaSandboxOptions> = {}): Promise<MetaWorld> {
  const server = Fastify({ logger: false })
  const sources = new Map<string, { type: string; bytes: Buffer }>([
    ['photo.jpg', { type: 'image/jpeg', bytes: await solidImage(1080, 1080, 'jpeg') }],
    ['wide.jpg', { type: 'image/jpeg', bytes: await solidImage(1600, 900, 'jpeg') }],
    ['tall.jpg', { type: 'image/jpeg', bytes: await solidImage(600, 1400, 'jpeg') }],
    [
      'clip.mp4',
      {
        type: 'video/mp4',
        bytes: mp4File({ width: 1080, height: 1920, durationMs: 8000, mdatBytes: 32 * 1024 }),
      },
    ],
  ])
  const hostedFiles = new Map<string, { type: string; bytes: Buffer }>()
  server.get('/src/:name', async (request, reply) => {
    const file = sources.get((request.params as { name: string }).name)
    if (!file) return reply.code(404).send('no')
    return reply.type(file.type).send(file.bytes)
  })
  server.get('/hosted/:id', async (request, reply) => {
    const file = hostedFiles.get((request.params as { id: string }).id)
    if (!file) return reply.code(404).send('no')
    return reply.type(file.type).send(file.bytes)
  })
  const sandbox = registerMetaSandbox(server, { prefix: PREFIX, ...options })
  await server.listen({ host: '127.0.0.1', port: 0 })
  const address = server.server.address()
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const hosted: string[] = []
  const media: MediaPort = {
    async prepare(url) {
      const response = await fetch(url).catch(() => undefined)
      if (!response?.ok) throw new MediaError('fetch_failed', `Could not fetch ${url}`)
      const bytes = Buffer.from(await response.arrayBuffer())
      const type = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!
      const kind: MediaKind = type.startsWith('video/') ? 'video' : 'image'
      const id = randomBytes(8).toString('hex')
      hostedFiles.set(id, { type, bytes })
      const publicUrl = `${origin}/hosted/${id}`
      hosted.push(publicUrl)
      const file = path.join(tmpdir(), `herald-meta-${id}`)
      await writeFile(file, bytes)
      const prepared: PreparedMedia = {
        path: file,
        contentType: type,
        size: bytes.length,
        kind,
        name: path.basename(new URL(url).pathname),
        publicUrl,
        dispose: () => rm(file, { force: true }),
      }
      return prepared
    },
  }
  const logs: string[] = []
  const requests: MetaWorld['requests'] = []
  const http: typeof fetch = async (input, init) => {
    const auth = new Headers(init?.headers).get('authorization') ?? undefined
    requests.push({
      method: init?.method ?? 'GET',
      url: String(input),
      ...(auth ? { auth } : {}),
      ...(init?.body ? { body: String(init.body) } : {}),
    })
    return fetch(input, init)
  }
  const deps: AdapterDeps = {
    http,
    logger: createLogger('debug', { write: (line: string) => logs.push(line) } as never),
    now: () => Date.now(),
    sleep: async () => {},
    media,
  }
  const base = `${origin}${PREFIX}`
  const settings: MetaSettings = {
    ...defaultMetaSettings,
    appId: 'herald-test-app',
    appSecret: 'meta-app-secret-value',
    graphUrl: `${base}/graph`,
    dialogUrl: `${base}/www`,
    instagramAppId: 'herald-test-ig-app',
    instagramAppSecret: 'ig-app-secret-value',
    instagramGraphUrl: `${base}/ig`,
    instagramAuthorizeUrl: `${base}/instagram/oauth/authorize`,
    instagramTokenUrl: `${base}/api-instagram/oauth/access_token`,
  }
  return {
    server,
    sandbox,
    origin,
    settings,
    facebook: createFacebookAdapter(settings, deps),
    instagram: createInstagramAdapter(settings, deps),
    src: (name) => `${origin}/src/${name}`,
    hosted,
    requests,
    logs,
    close: () => server.close(),
  }
}

/** Runs the Facebook Login dialog as a browser would, exchanges the code and lists the grant's profiles. */
export async function facebookGrant(world: MetaWorld, username: string, options: { drop?: string[] } = {}) {
  const oauth = world.facebook.oauth!
  const redirectUri = 'http://127.0.0.1:1/connect/facebook/callback'
  const codeVerifier = randomBytes(32).toString('base64url')
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url')
  const authorize = oauth.authorizeUrl({ state: 'st', codeChallenge, redirectUri })
  const form = new URLSearchParams(new URL(authorize).searchParams)
  form.set('username', username)
  form.set('decision', 'authorize')
  for (const scope of oauth.scopes) if (!options.drop?.includes(scope)) form.append('granted_scope', scope)
  const consent = await fetch(authorize.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' })
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!
  const exchanged = await oauth.exchangeCode({ code, codeVerifier, redirectUri })
  const profiles = await oauth.listProfiles!(exchanged.credentials)
  const page = profiles.find((p) => p.network === 'facebook')!
  const ig = profiles.find((p) => p.network === 'instagram')!
  return { ...exchanged, profiles, page, ig, code }
}

export function request(
  profile: Profile,
  credentials: Credentials,
  content: string,
  mediaUrls: string[],
  extra: Partial<PublishRequest> = {},
): PublishRequest {
  return {
    targetId: `t-${randomBytes(4).toString('hex')}`,
    profile,
    credentials,
    content,
    mediaUrls,
    signal: new AbortController().signal,
    ...extra,
  }
}
