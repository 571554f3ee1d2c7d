import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NetworkAdapter, Profile, PublishRequest } from '../../src/adapters/adapter.js'
import { callbackUrl } from '../../src/adapters/apps.js'
import { tiktokSettings } from '../../src/adapters/registry.js'
import { createTikTokAdapter, TIKTOK_SCOPES } from '../../src/adapters/tiktok/index.js'
import { SANDBOX_CLIENT_KEY } from '../../src/sandbox/tiktok/index.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { referenceAvailable } from '../helpers/reference.js'
import {
  loadZernio,
  requestDifferences,
  responseDifferences,
  type SentCall,
  ZERNIO_FILE,
  type ZernioSpec,
} from '../helpers/tiktok-openapi.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'

/**
 * Every request the TikTok adapter makes, and every answer the simulator gives it, held to the
 * community-written OpenAPI description (`tiktok-zernio.openapi.yaml`). Where that file and TikTok's own
 * pages (reference A) disagree, Herald and its simulator follow TikTok's pages; the differences the file
 * shows are exactly the ones listed here (and in docs/networks.md), so a new one fails the test.
 */

/** Herald follows TikTok's pages here; the community file says otherwise. */
const KNOWN_REQUEST_DIFFERENCES = [
  // TikTok's authorize URL ends in a slash (www.tiktok.com/v2/auth/authorize/); the file has none.
  'GET /v2/auth/authorize/: no such operation',
  // TikTok takes max_count and cursor in the JSON body (only `fields` is a query parameter); the file puts
  // them in the query string and gives the body no fields.
  'POST /v2/video/list/: body field max_count',
  'POST /v2/video/list/: body field cursor',
]
const KNOWN_RESPONSE_DIFFERENCES = [
  // TikTok spells the field `publicaly_available_post_id` (sic) and sends a list of int64s; the file has
  // `publicly_available_post_id`, strings, and no byte counts.
  'POST /v2/post/publish/status/fetch/ answer: publicaly_available_post_id',
  'POST /v2/post/publish/status/fetch/ answer: uploaded_bytes',
  'POST /v2/post/publish/status/fetch/ answer: downloaded_bytes',
  // The file's UserInfo lists only some of the fields TikTok's user info answers.
  'GET /v2/user/info/ answer: user.username',
  'GET /v2/user/info/ answer: user.following_count',
  'GET /v2/user/info/ answer: user.likes_count',
  'GET /v2/user/info/ answer: user.video_count',
]

describe.runIf(referenceAvailable(ZERNIO_FILE))(
  'the TikTok adapter held to the community OpenAPI description',
  () => {
    let spec: ZernioSpec
    let h: Harness
    let media: TestServer
    let adapter: NetworkAdapter
    const sent: Array<{ call: SentCall; status: number; answer: unknown }> = []

    /** `fetch`, recording what the adapter sent and what came back. */
    const recording: typeof fetch = async (input, init) => {
      const url = new URL(String(input))
      const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>))
      const text = typeof init?.body === 'string' ? init.body : undefined
      const form = headers['content-type']?.startsWith('application/x-www-form-urlencoded')
      const body =
        text === undefined
          ? undefined
          : form
            ? Object.fromEntries(new URLSearchParams(text))
            : JSON.parse(text)
      const response = await fetch(input, init)
      const answer = await response
        .clone()
        .text()
        .then((t) =>
          t ? JSON.parse(t.replace(/("publicaly_available_post_id":\[)(\d+)/, '$1"$2"')) : undefined,
        )
        .catch(() => undefined)
      sent.push({
        call: {
          method: init?.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          body,
          headers,
        },
        status: response.status,
        answer,
      })
      return response
    }

    beforeAll(async () => {
      spec = loadZernio()
      media = await serveJpegOrVideo(
        await solidImage(1080, 1350, 'jpeg'),
        mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 16 * 1024 }),
      )
      h = await startHarness({ sandbox: true, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
      h.sandboxes!.tiktok.processingPolls = 0
      adapter = createTikTokAdapter(tiktokSettings(h.app.config), {
        http: recording,
        logger: h.app.logger,
        now: () => Date.now(),
        sleep: () => Promise.resolve(),
        media: h.app.media,
      })
    }, 60_000)
    afterAll(async () => {
      await h?.close()
      await media?.close()
    })

    it('reads the file, whose creator info path is written twice', () => {
      expect(spec.duplicatePaths).toEqual(['/post/publish/creator_info/query/'])
      expect(Object.keys(spec.paths['/post/publish/creator_info/query/']!).sort()).toEqual(['get', 'post'])
      // The file's server already ends in /v2, and it writes the user info path with /v2 again.
      expect(spec.paths['/v2/user/info/']?.get).toBeDefined()
    })

    it('finds only the known differences in every call of connecting, posting each kind, looking up and reading figures', async () => {
      const redirectUri = callbackUrl(h.app.config, 'tiktok')
      const authorize = new URL(
        adapter.oauth!.authorizeUrl({ state: 'st4te', codeChallenge: 'unused', redirectUri }),
      )
      sent.push({
        call: {
          method: 'GET',
          path: authorize.pathname.replace(/^\/sandbox\/tiktok/, ''),
          query: Object.fromEntries(authorize.searchParams),
          headers: {},
        },
        status: 200,
        answer: undefined,
      })
      // The consent page's answer, as a person allowing every permission would give it.
      const sim = h.sandboxes!.tiktok
      const code = sim.issueCode({
        openId: sim.ensureUser('Contract Bakery').openId,
        clientKey: SANDBOX_CLIENT_KEY,
        scopes: [...TIKTOK_SCOPES],
        redirectUri,
      })
      const { credentials } = await adapter.oauth!.exchangeCode({ code, codeVerifier: 'unused', redirectUri })
      const profile: Profile = await adapter.resolveProfile(credentials)
      const request = (
        content: string,
        mediaUrls: string[],
        tiktok: PublishRequest['tiktok'],
      ): PublishRequest => ({
        targetId: `tgt_${content.length}`,
        profile,
        credentials,
        content,
        mediaUrls,
        tiktok,
        signal: AbortSignal.timeout(30_000),
        saveProgress: async () => {},
      })
      const posted = await adapter.publish(
        request('A video', [`${media.url}/clip.mp4`], { privacyLevel: 'PUBLIC_TO_EVERYONE' }),
      )
      await adapter.publish(
        request('Two photos\nand a description', [`${media.url}/a.jpg`, `${media.url}/b.jpg`], {
          privacyLevel: 'PUBLIC_TO_EVERYONE',
        }),
      )
      await adapter.publish(request('A draft video', [`${media.url}/clip.mp4`], { sendAsDraft: true }))
      await adapter.publish(request('A draft photo', [`${media.url}/c.jpg`], { sendAsDraft: true }))
      // Enough posts that the list is read on a second page, with the cursor.
      for (let i = 0; i < 20; i++) {
        // Six inits a minute per creator: as if each came a minute after the last.
        sim.refillBudgets()
        await adapter.publish(
          request(`Photo ${i}`, [`${media.url}/p${i}.jpg`], { privacyLevel: 'PUBLIC_TO_EVERYONE' }),
        )
      }
      await adapter.findPublished!({
        targetId: 'tgt_lookup',
        profile,
        credentials,
        content: 'Two photos\nand a description',
        mediaUrls: [`${media.url}/a.jpg`],
        tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
        since: Date.now() - 3 * 3_600_000,
        signal: AbortSignal.timeout(30_000),
      })
      await adapter.postMetrics({ credentials, profile, remoteId: posted.remoteId })
      await adapter.profileMetrics({ credentials, profile })
      await adapter.refresh(credentials)

      const calls = sent.map((s) => ({ ...s.call, path: s.call.path.replace(/^\/sandbox\/tiktok/, '') }))
      expect([...new Set(calls.map((c) => `${c.method} ${c.path}`))].sort()).toEqual([
        'GET /v2/auth/authorize/',
        'GET /v2/user/info/',
        'POST /v2/oauth/token/',
        'POST /v2/post/publish/content/init/',
        'POST /v2/post/publish/creator_info/query/',
        'POST /v2/post/publish/inbox/video/init/',
        'POST /v2/post/publish/status/fetch/',
        'POST /v2/post/publish/video/init/',
        'POST /v2/video/list/',
        'POST /v2/video/query/',
        'PUT /upload/video/',
      ])
      const requests = calls.filter((c) => c.method !== 'PUT').flatMap((c) => requestDifferences(spec, c))
      expect([...new Set(requests)].sort()).toEqual([...KNOWN_REQUEST_DIFFERENCES].sort())
      // The authorize URL's parameters are the ones the file declares (under its path without the slash).
      expect(requestDifferences(spec, { ...calls[0]!, path: '/auth/authorize' })).toEqual([])
      const answers = sent
        .filter((s) => s.status === 200 && s.call.method !== 'PUT')
        .flatMap((s) =>
          responseDifferences(
            spec,
            { ...s.call, path: s.call.path.replace(/^\/sandbox\/tiktok/, '') },
            s.answer,
          ),
        )
      expect([...new Set(answers)].sort()).toEqual([...KNOWN_RESPONSE_DIFFERENCES].sort())
      // The chunk PUTs carry the three headers the file's upload operation requires.
      const declared = (spec.paths['/{upload_url}']!.put.parameters as Array<{ name: string; in: string }>)
        .filter((p) => p.in === 'header')
        .map((p) => p.name.toLowerCase())
      for (const put of calls.filter((c) => c.method === 'PUT'))
        expect(Object.keys(put.headers).sort()).toEqual([...declared].sort())
      expect(sim.violations).toEqual([])
    }, 120_000)

    it('catches a body field, a query parameter and an operation the file does not have', () => {
      expect(
        requestDifferences(spec, {
          method: 'POST',
          path: '/v2/post/publish/video/init/',
          query: {},
          body: { post_info: { title: 'x', privacy: 'SELF_ONLY' }, source_info: { source: 'FILE_UPLOAD' } },
          headers: {},
        }),
      ).toEqual(['POST /v2/post/publish/video/init/: body field post_info.privacy'])
      expect(
        requestDifferences(spec, {
          method: 'GET',
          path: '/v2/user/info/',
          query: { fields: 'open_id', limit: '1' },
          headers: {},
        }),
      ).toEqual(['GET /v2/user/info/: query parameter limit'])
      expect(
        requestDifferences(spec, { method: 'DELETE', path: '/v2/video/list/', query: {}, headers: {} }),
      ).toEqual(['DELETE /v2/video/list/: no such operation'])
    })
  },
)
