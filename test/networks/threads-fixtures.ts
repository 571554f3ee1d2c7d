import Fastify, { type FastifyInstance } from 'fastify'
import type { AdapterDeps, NetworkAdapter } from '../../src/adapters/adapter.js'
import { createThreadsAdapter } from '../../src/adapters/threads/index.js'
import type { ThreadsSettings } from '../../src/adapters/threads/settings.js'
import { createLogger } from '../../src/platform/logger.js'
import { loadThreadsContract } from '../../src/sandbox/threads/contract.js'
import {
  registerThreadsSandbox,
  type ThreadsSandbox,
  type ThreadsSandboxOptions,
} from '../../src/sandbox/threads/index.js'
import {
  approveConsent,
  hostMedia,
  publishRequest,
  recordingFetch,
  type SentRequest,
} from '../helpers/hosted-media.js'
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
  requests: SentRequest[]
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
  const host = hostMedia(server, sources, 'herald-threads-')
  const sandbox = registerThreadsSandbox(server, {
    prefix: PREFIX,
    clock: now,
    contract: hasCollection ? loadThreadsContract(COLLECTION) : false,
    ...options,
  })
  await server.listen({ host: '127.0.0.1', port: 0 })
  const origin = host.origin()
  const logs: string[] = []
  const requests: SentRequest[] = []
  const sleeps: number[] = []
  const hooks: { onSleep?: ((ms: number) => void) | undefined } = {}
  const deps: AdapterDeps = {
    http: recordingFetch(requests),
    logger: createLogger('debug', { write: (line: string) => logs.push(line) } as never),
    now,
    sleep: async (ms) => {
      sleeps.push(ms)
      hooks.onSleep?.(ms)
    },
    media: host.media,
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
    src: host.src,
    hosted: host.hosted,
    requests,
    sleeps,
    logs,
    now,
    advance: (ms) => {
      offset += ms
    },
    breakHosting: host.breakHosting,
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
  const location = await approveConsent(authorize, username, oauth.scopes, options.drop)
  const code = new URL(location).searchParams.get('code')!
  const exchanged = await oauth.exchangeCode({ code, codeVerifier: 'unused', redirectUri })
  const profile = await world.threads.resolveProfile(exchanged.credentials)
  return { ...exchanged, profile, authorize, location }
}

export const request = publishRequest
