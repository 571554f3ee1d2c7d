import { randomBytes } from 'node:crypto'
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
import { createThreadsAdapter } from '../../src/networks/threads/index.js'
import type { ThreadsSettings } from '../../src/networks/threads/settings.js'
import { loadThreadsContract } from '../../src/sandbox/threads/contract.js'
import {
  registerThreadsSandbox,
  type ThreadsSandbox,
  type ThreadsSandboxOptions,
} from '../../src/sandbox/threads/index.js'
import { referenceAvailable, referencePath } from '../helpers/reference.js'
import { mp4File, solidImage } from '../media/fixtures.js'

/**
 * Shared setup of the Threads suites: the simulator on 127.0.0.1 (every call checked against Meta's
 * Threads collection, found through the reference helper), a source server for media, a media port that
 * hosts each prepared file on the same server (as Herald's `/media/...` does) so the simulator's fetcher
 * downloads it, and the adapter with a clock the tests can move.
 */

export const PREFIX = '/threads'
export const COLLECTION = referencePath('openapi/meta/threads-api.postman_collection.json')
export const hasCollection = referenceAvailable(COLLECTION)

export interface ThreadsWorld {
  server: FastifyInstance
  sandbox: ThreadsSandbox
  origin: string
  settings: ThreadsSettings
  threads: NetworkAdapter
  /** Source URLs: photo.jpg, wide.png, clip.mp4, notes.txt (not media). */
  src: (name: string) => string
  /** Every URL the adapter was handed by the media port, and every request it sent. */
  hosted: string[]
  requests: { method: string; url: string; auth?: string; body?: string }[]
  sleeps: number[]
  /** Called on every wait the adapter makes (after it is recorded in `sleeps`). */
  onSleep?: ((ms: number) => void) | undefined
  logs: string[]
  /** The clock the adapter and the simulator share, and a way to move it. */
  now(): number
  advance(ms: number): void
  /** Makes the next hosted file answer 404 (Herald's copy unreachable for Meta). */
  breakHosting(): void
  close(): Promise<void>
}

export async function startThreadsWorld(options: Partial<ThreadsSandboxOptions> = {}): Promise<ThreadsWorld> {
  const server = Fastify({ logger: false })
  let offset = 0
  const now = () => Date.now() + offset
  const sources = new Map<string, { type: string; bytes: Buffer }>([
    ['photo.jpg', { type: 'image/jpeg', bytes: await solidImage(1080, 1080, 'jpeg') }],
    ['wide.png', { type: 'image/png', bytes: await solidImage(1440, 600, 'png') }],
    [
      'clip.mp4',
      {
        type: 'video/mp4',
        bytes: mp4File({ width: 1080, height: 1920, durationMs: 8000, mdatBytes: 32 * 1024 }),
      },
    ],
    ['notes.txt', { type: 'image/jpeg', bytes: Buffer.from('not an image at all') }],
  ])
  const hostedFiles = new Map<string, { type: string; bytes: Buffer }>()
  let broken = false
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
  const sandbox = registerThreadsSandbox(server, {
    prefix: PREFIX,
    clock: now,
    contract: hasCollection ? loadThreadsContract(COLLECTION) : false,
    ...options,
  })
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
      if (!broken) hostedFiles.set(id, { type, bytes })
      broken = false
      const publicUrl = `${origin}/hosted/${id}`
      hosted.push(publicUrl)
      const file = path.join(tmpdir(), `herald-threads-${id}`)
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
  const requests: ThreadsWorld['requests'] = []
  const sleeps: number[] = []
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
  const hooks: { onSleep?: ((ms: number) => void) | undefined } = {}
  const deps: AdapterDeps = {
    http,
    logger: createLogger('debug', { write: (line: string) => logs.push(line) } as never),
    now,
    sleep: async (ms) => {
      sleeps.push(ms)
      hooks.onSleep?.(ms)
    },
    media,
  }
  const settings: ThreadsSettings = {
    appId: 'herald-threads-app',
    appSecret: 'threads-app-secret-value',
    version: 'v1.0',
    graphUrl: `${origin}${PREFIX}/graph`,
    authorizeUrl: `${origin}${PREFIX}/oauth/authorize`,
  }
  const world: ThreadsWorld = {
    server,
    sandbox,
    origin,
    settings,
    threads: createThreadsAdapter(settings, deps),
    src: (name) => `${origin}/src/${name}`,
    hosted,
    requests,
    sleeps,
    logs,
    now,
    advance: (ms) => {
      offset += ms
    },
    breakHosting: () => {
      broken = true
    },
    close: () => server.close(),
    get onSleep() {
      return hooks.onSleep
    },
    set onSleep(hook) {
      hooks.onSleep = hook
    },
  }
  return world
}

/** Runs the Threads consent page as a browser would and exchanges the code; returns the connection. */
export async function threadsGrant(world: ThreadsWorld, username: string, options: { drop?: string[] } = {}) {
  const oauth = world.threads.oauth!
  const redirectUri = 'http://127.0.0.1:1/connect/threads/callback'
  const authorize = oauth.authorizeUrl({ state: 'st', codeChallenge: 'x'.repeat(43), redirectUri })
  const form = new URLSearchParams(new URL(authorize).searchParams)
  form.set('username', username)
  form.set('decision', 'authorize')
  for (const scope of oauth.scopes) if (!options.drop?.includes(scope)) form.append('granted_scope', scope)
  const consent = await fetch(authorize.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' })
  const location = consent.headers.get('location')!
  const code = new URL(location).searchParams.get('code')!
  const exchanged = await oauth.exchangeCode({ code, codeVerifier: 'unused', redirectUri })
  const profile = await world.threads.resolveProfile(exchanged.credentials)
  return { ...exchanged, profile, authorize, location }
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
