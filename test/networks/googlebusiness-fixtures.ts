import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll } from 'vitest'
import type { Credentials, NetworkAdapter, Profile, PublishRequest } from '../../src/adapters/adapter.js'
import { createGoogleBusinessAdapter } from '../../src/adapters/googlebusiness/index.js'
import { googleBusinessSettings, sandboxPrefixes } from '../../src/adapters/registry.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import type { GoogleBusinessSandbox } from '../../src/sandbox/googlebusiness/index.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import { type GoogleBusinessValidation, googleBusinessValidatingFetch } from '../helpers/gbp-discovery.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * What the Google Business Profile suites stand on: a sandbox-mode Herald whose simulators a suite programs
 * call by call (cleared after each test), the two locations of one simulated business connected through
 * the whole connect flow, a media server (any `.mp4` path a short video, any other a 1200×900 JPEG), and the
 * adapter under test built over a fetch that holds every call to Google's own descriptions of the APIs.
 */
export interface GbpRig {
  readonly h: Harness
  readonly sandbox: GoogleBusinessSandbox
  readonly script: ScriptedFaults
  /** The validating fetch the adapter uses; undefined without ../shared. */
  readonly validation: GoogleBusinessValidation | undefined
  readonly adapter: NetworkAdapter
  /** The business's two locations as the worker hands them to the adapter. */
  location(index: 0 | 1): { profile: Profile; credentials: Credentials }
  media(name: string): string
  /** A publish request for a location, a new target id each time. */
  request(index: 0 | 1, content: string, extra?: Partial<PublishRequest>): PublishRequest
  /** The simulator's base URL. */
  simulator(): string
}

export function useGbpRig(business: string): GbpRig {
  const script = scriptedFaults()
  let h: Harness
  let server: TestServer
  let validation: GoogleBusinessValidation | undefined
  let adapter: NetworkAdapter
  const locations: Array<{ profile: Profile; credentials: Credentials }> = []
  beforeAll(async () => {
    server = await serveJpegOrVideo(
      await solidImage(1200, 900, 'jpeg'),
      mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 16 * 1024 }),
    )
    h = await startHarness({ sandbox: true, faults: script, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'googlebusiness',
      username: business,
    })
    for (const made of connected.profiles ?? [connected]) {
      const row = await h.app.store.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', made.connectionId)
        .executeTakeFirstOrThrow()
      locations.push({
        profile: { profileId: row.profile_id, username: row.username, name: row.name, isOrganization: true },
        credentials: h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials),
      })
    }
    const settings = googleBusinessSettings(h.app.config)
    validation = googleBusinessValidatingFetch(settings)
    adapter = createGoogleBusinessAdapter(settings, {
      http: validation?.fetch ?? fetch,
      logger: h.app.logger,
      now: () => h.app.clock.now(),
      sleep: async () => {},
      media: h.app.media,
    })
  }, 60_000)
  afterEach(() => script.clear())
  afterAll(async () => {
    await h?.close()
    await server?.close()
  })
  return {
    get h() {
      return h
    },
    get sandbox() {
      return h.sandboxes!.googlebusiness
    },
    script,
    get validation() {
      return validation
    },
    get adapter() {
      return adapter
    },
    location: (index) => locations[index] as { profile: Profile; credentials: Credentials },
    media: (name) => `${server.url}/${name}`,
    request: (index, content, extra = {}) => ({
      targetId: `tgt_${randomBytes(8).toString('hex')}`,
      ...(locations[index] as { profile: Profile; credentials: Credentials }),
      content,
      mediaUrls: [],
      signal: AbortSignal.timeout(30_000),
      saveProgress: async () => {},
      ...extra,
    }),
    simulator: () => `${h.baseUrl}${sandboxPrefixes.googlebusiness}`,
  }
}
