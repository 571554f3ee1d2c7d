import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import sharp from 'sharp'
import type {
  AdapterDeps,
  Credentials,
  GrantProfile,
  NetworkAdapter,
  PublishRequest,
} from '../../src/adapters/adapter.js'
import { createPinterestAdapter, type PinterestSettings } from '../../src/adapters/pinterest/index.js'
import type { MediaPort, PreparedMedia } from '../../src/core/media-port.js'
import { extractFirstFrame } from '../../src/modules/media/first-frame.js'
import { FakeClock } from '../../src/platform/clock.js'
import { createLogger } from '../../src/platform/logger.js'
import type { FaultInjector } from '../../src/sandbox/fault-injector.js'
import { type PinterestSandbox, registerPinterestSandbox } from '../../src/sandbox/pinterest/index.js'
import {
  createValidatingFetch,
  OpenApiRequestValidator,
  type ValidatingFetch,
} from '../helpers/openapi-request-validator.js'
import { referenceAvailable, referencePath } from '../helpers/reference.js'
import { createTestMediaPort } from '../helpers/test-media-port.js'
import { mp4File, solidImage } from '../media/fixtures.js'

/** Pinterest's official API description (5.23.0), which every request the adapter sends is held to. */
export const PINTEREST_OPENAPI = referencePath('openapi/pinterest-v5.openapi.json')
export const hasPinterestOpenApi = referenceAvailable(PINTEREST_OPENAPI)

let validator: OpenApiRequestValidator | undefined
/** The description, parsed once per test file; the token form's `continuous_refresh` is named in its words. */
export function pinterestOpenApi(): OpenApiRequestValidator {
  if (!validator) {
    validator = OpenApiRequestValidator.fromFile(PINTEREST_OPENAPI)
    validator.allowDescribedField('POST', '/oauth/token', 'continuous_refresh')
    validator.readOverlappingOneOfAsAnyOf('GET', '/pins/{pin_id}/analytics', 'metric_types')
  }
  return validator
}

export const START = Date.UTC(2026, 7, 3, 9, 0, 0)
export const PREFIX = '/sandbox/pinterest'
const REDIRECT_URI = 'http://127.0.0.1:9/connect/pinterest/callback'

export interface PinterestWorld {
  origin: string
  sandbox: PinterestSandbox
  clock: FakeClock
  validation: ValidatingFetch
  /** Requests to the upload address (S3's, outside the API description), in order. */
  uploads: string[]
  deps: AdapterDeps
  settings: PinterestSettings
  /** The adapter over a media port that hosts nothing (images go inline). */
  adapter: NetworkAdapter
  /** The adapter over a media port whose images Pinterest fetches by URL, and that makes first frames. */
  hosting: NetworkAdapter
  src(name: string): string
  /** Serves more bytes under `/files/<name>`. */
  addFile(name: string, type: string, bytes: Buffer): void
  connect(username: string): Promise<GrantProfile[]>
  request(
    board: GrantProfile,
    content: string,
    mediaUrls: string[],
    extra?: Partial<PublishRequest>,
  ): PublishRequest
  close(): Promise<void>
}

/** Files the world's server hands out: pictures of two sizes, a PNG, a small MP4 and a real H.264 clip. */
async function files(): Promise<Record<string, { type: string; bytes: Buffer }>> {
  return {
    'tall.jpg': { type: 'image/jpeg', bytes: await solidImage(1000, 1500, 'jpeg') },
    'tall2.jpg': { type: 'image/jpeg', bytes: await solidImage(1000, 1500, 'jpeg') },
    'square.jpg': { type: 'image/jpeg', bytes: await solidImage(800, 800, 'jpeg') },
    'tall.png': { type: 'image/png', bytes: await solidImage(1000, 1500, 'png') },
    'clip.mp4': {
      type: 'video/mp4',
      bytes: mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 16 * 1024 }),
    },
  }
}

/** The test media port, with pixel sizes read, a URL for Pinterest to fetch when `hosted`, and first frames. */
function mediaPort(hosted: boolean): MediaPort {
  const base = createTestMediaPort()
  return {
    async prepare(url, options) {
      const file = await base.prepare(url, options)
      if (file.kind === 'image') {
        const { width, height } = await sharp(file.path).metadata()
        Object.assign(file, { width, height })
      }
      return hosted && file.kind !== 'video' ? { ...file, publicUrl: url } : file
    },
    ...(hosted
      ? {
          async firstFrame(video: PreparedMedia): Promise<PreparedMedia> {
            const target = path.join(tmpdir(), `pin-frame-${randomBytes(6).toString('hex')}.jpg`)
            const frame = await extractFirstFrame(video.path, target, { ffmpeg: 'ffmpeg', timeoutMs: 30_000 })
            return {
              path: frame.path,
              contentType: 'image/jpeg',
              size: frame.size,
              kind: 'image',
              name: 'frame.jpg',
              dispose: async () => {},
            }
          },
        }
      : {}),
  }
}

export async function startPinterestWorld(
  options: { mediaPolls?: number; faults?: FaultInjector } = {},
): Promise<PinterestWorld> {
  const clock = new FakeClock(START)
  const server = Fastify({ logger: false })
  const sandbox = registerPinterestSandbox(server, {
    prefix: PREFIX,
    clock: () => clock.now(),
    mediaPolls: options.mediaPolls ?? 1,
    ...(options.faults ? { faults: options.faults } : {}),
  })
  const served = await files()
  server.get<{ Params: { name: string } }>('/files/:name', async (request, reply) => {
    const file = served[request.params.name]
    if (!file) return reply.code(404).send('not found')
    return reply.type(file.type).send(file.bytes)
  })
  const address = await server.listen({ host: '127.0.0.1', port: 0 })
  const origin = address.replace('localhost', '127.0.0.1')
  const settings: PinterestSettings = {
    appId: 'herald-sandbox',
    appSecret: 'herald-sandbox-secret',
    apiUrl: `${origin}${PREFIX}/v5`,
    authorizeUrl: `${origin}${PREFIX}/oauth/`,
    webUrl: `${origin}${PREFIX}/web`,
  }
  const validation = createValidatingFetch(pinterestOpenApi(), settings.apiUrl)
  const uploads: string[] = []
  // The upload goes to the address Pinterest answered (S3's), which its API description does not cover.
  const http: typeof fetch = async (input, init) => {
    const url = new Request(input, init).url
    if (new URL(url).pathname.startsWith(`${PREFIX}/upload/`)) {
      uploads.push(url)
      return fetch(input, init)
    }
    return validation.fetch(input, init)
  }
  const deps: AdapterDeps = {
    http,
    logger: createLogger('silent'),
    now: () => clock.now(),
    sleep: async (ms) => clock.advance(ms),
    media: mediaPort(false),
  }
  const adapter = createPinterestAdapter(settings, deps)
  const hosting = createPinterestAdapter(settings, { ...deps, media: mediaPort(true) })
  return {
    origin,
    sandbox,
    clock,
    validation,
    uploads,
    deps,
    settings,
    adapter,
    hosting,
    src: (name) => `${origin}/files/${name}`,
    addFile: (name, type, bytes) => {
      served[name] = { type, bytes }
    },
    async connect(username) {
      const flow = adapter.oauth!
      const url = new URL(
        flow.authorizeUrl({ state: 'st', codeChallenge: 'unused', redirectUri: REDIRECT_URI }),
      )
      const form = new URLSearchParams(url.searchParams)
      form.set('username', username)
      form.set('decision', 'authorize')
      for (const scope of (url.searchParams.get('scope') ?? '').split(','))
        form.append('granted_scope', scope)
      const consent = await fetch(`${url.origin}${url.pathname}`, {
        method: 'POST',
        body: form,
        redirect: 'manual',
      })
      const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? ''
      const { credentials } = await flow.exchangeCode({
        code,
        codeVerifier: 'unused',
        redirectUri: REDIRECT_URI,
      })
      return flow.listProfiles!(credentials)
    },
    request(board, content, mediaUrls, extra = {}) {
      return {
        targetId: `tgt_${randomBytes(6).toString('hex')}`,
        profile: board.profile,
        credentials: board.credentials as Credentials,
        content,
        mediaUrls,
        signal: AbortSignal.timeout(30_000),
        ...extra,
      }
    },
    close: () => server.close(),
  }
}

/** Runs `action` and answers what it threw (failing when it did not throw). */
export async function failureOf(action: () => Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await action()
  } catch (error) {
    return error as Error & Record<string, any>
  }
  throw new Error('expected a failure, but the call succeeded')
}
