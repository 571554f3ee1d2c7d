import { createHash, randomBytes } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import type { AdapterDeps, NetworkAdapter } from '../../src/adapters/adapter.js'
import { createFacebookAdapter } from '../../src/adapters/facebook/index.js'
import { createInstagramAdapter } from '../../src/adapters/instagram/index.js'
import { defaultMetaSettings, type MetaSettings } from '../../src/adapters/meta/settings.js'
import { createLogger } from '../../src/platform/logger.js'
import {
  type MetaSandbox,
  type MetaSandboxOptions,
  registerMetaSandbox,
} from '../../src/sandbox/meta/index.js'
import {
  approveConsent,
  hostMedia,
  publishRequest,
  recordingFetch,
  type SentRequest,
} from '../helpers/hosted-media.js'
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
  requests: SentRequest[]
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
  const host = hostMedia(server, sources, 'herald-meta-')
  const sandbox = registerMetaSandbox(server, { prefix: PREFIX, ...options })
  await server.listen({ host: '127.0.0.1', port: 0 })
  const origin = host.origin()
  const logs: string[] = []
  const requests: SentRequest[] = []
  const deps: AdapterDeps = {
    http: recordingFetch(requests),
    logger: createLogger('debug', { write: (line: string) => logs.push(line) } as never),
    now: () => Date.now(),
    sleep: async () => {},
    media: host.media,
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
    src: host.src,
    hosted: host.hosted,
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
  const location = await approveConsent(authorize, username, oauth.scopes, options.drop)
  const code = new URL(location).searchParams.get('code')!
  const exchanged = await oauth.exchangeCode({ code, codeVerifier, redirectUri })
  const profiles = await oauth.listProfiles!(exchanged.credentials)
  const page = profiles.find((p) => p.network === 'facebook')!
  const ig = profiles.find((p) => p.network === 'instagram')!
  return { ...exchanged, profiles, page, ig, code }
}

export const request = publishRequest
