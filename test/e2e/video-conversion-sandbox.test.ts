import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { startServer, type TestServer } from '../media/servers.js'
import { movClip, webmClip } from '../media/video-fixtures.js'

/**
 * Video conversion end to end in sandbox mode: a WebM (VP8/Vorbis) and a MOV (MPEG-4 Part 2/AAC), made
 * with the shipped ffmpeg and served from a loopback server, go through preflight_post (which names the
 * conversion) and create_post to LinkedIn (uploaded in parts) and Instagram (hosted by Herald, fetched by
 * the simulator). Both simulators read the bytes they receive and refuse anything but H.264 in MP4.
 */
describe('video conversion to LinkedIn and Instagram in sandbox mode, end to end', () => {
  let h: Harness
  let worker: Worker
  let sources: TestServer
  let dir: string
  const files = new Map<string, { type: string; bytes: Buffer }>()
  const simulator = async (prefix: string) =>
    (await (await fetch(`${h.baseUrl}${prefix}/_sandbox/state`)).json()) as Record<string, any[]>
  let linkedinProfile: string
  let instagramProfile: string

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-e2e-video-'))
    const [webm, mov] = await Promise.all([
      webmClip(path.join(dir, 'clip.webm')),
      movClip(path.join(dir, 'clip.mov')),
    ])
    files.set('/clip.webm', { type: 'video/webm', bytes: readFileSync(webm) })
    files.set('/clip.mov', { type: 'video/quicktime', bytes: readFileSync(mov) })
    sources = await startServer((req, res) => {
      const file = files.get(req.url ?? '')
      if (!file) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) })
      res.end(file.bytes)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '60000' },
    })
    worker = createAppWorker(h.app, { id: 'e2e-video' })
    worker.start()
    linkedinProfile = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'linkedin', username: 'Rowan Vale' })
    ).profileId
    instagramProfile = (
      await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'instagram',
        username: 'Rowan Films',
      })
    ).profileId
  }, 120_000)

  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await sources?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const targets = () => [
    { platform: 'linkedin', profileId: linkedinProfile },
    { platform: 'instagram', profileId: instagramProfile },
  ]

  it('preflight names the conversion each network gets', async () => {
    const { status, body } = await h.call('preflight_post', {
      content: 'Rushes from the shoot',
      targetAccounts: targets(),
      mediaUrls: [`${sources.url}/clip.webm`],
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.blockers).toEqual([])
    expect(body.warnings).toEqual(
      expect.arrayContaining([
        `linkedin: ${sources.url}/clip.webm will be converted (WEBM (VP8) → MP4 (H.264/AAC))`,
        `instagram: ${sources.url}/clip.webm will be converted (WEBM (VP8) → MP4 (H.264/AAC))`,
      ]),
    )
  })

  it.each(['/clip.webm', '/clip.mov'])(
    'publishes %s to LinkedIn and Instagram as H.264 MP4, checked by the simulators',
    async (source) => {
      const { status, body } = await h.call('create_post', {
        content: `Rushes (${source})`,
        targetAccounts: targets(),
        mediaUrls: [`${sources.url}${source}`],
        publishImmediately: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      for (const created of body.posts) expect(created.status, JSON.stringify(created)).toBe('published')

      // LinkedIn: the Videos API upload, finalized, read back by the simulator as MP4 with an avc1 track.
      const linkedin = await simulator(sandboxPrefixes.linkedin)
      const post = linkedin.posts!.find((p) => p.visibleText === `Rushes (${source})`)
      const asset = linkedin.assets!.find((a) => a.urn === post.content.media.id)
      expect(asset).toMatchObject({ kind: 'video', status: 'AVAILABLE' })
      expect(asset.videoCodec).toMatch(/^avc1\./)
      expect(asset.problem).toBeUndefined()

      // Instagram: the Reel's video_url is Herald's hosted .mp4; the simulator fetched it and found avc1.
      const meta = await simulator(sandboxPrefixes.instagram)
      const fetched = meta.fetches!.filter((f) => f.format !== 'jpeg' && f.format !== 'png').at(-1)
      expect(fetched).toMatchObject({ ok: true, format: 'mp4' })
      expect(fetched.url).toMatch(/\/media\/[0-9a-f]{32}\/clip\.mp4$/)
      expect(fetched.videoCodec).toMatch(/^avc1\./)
    },
    120_000,
  )
})

describe('a Herald without ffmpeg, in sandbox mode', () => {
  let h: Harness
  let sources: TestServer
  let dir: string
  let profileId: string

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'herald-e2e-noffmpeg-'))
    const webm = readFileSync(await webmClip(path.join(dir, 'clip.webm')))
    sources = await startServer((req, res) => {
      if (req.url !== '/clip.webm') return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'video/webm', 'content-length': String(webm.length) }).end(webm)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_FFMPEG_PATH: 'none' },
    })
    profileId = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'linkedin', username: 'Sam Reed' })
    ).profileId
  }, 120_000)

  afterAll(async () => {
    await h?.close()
    await sources?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('blocks a video that needs converting at preflight_post and refuses it at create_post, spending nothing', async () => {
    const request = {
      content: 'Rushes',
      targetAccounts: [{ platform: 'linkedin', profileId }],
      mediaUrls: [`${sources.url}/clip.webm`],
    }
    const expected = `linkedin: ${sources.url}/clip.webm: LinkedIn needs this video converted (WEBM (VP8) → MP4 (H.264/AAC)), and this Herald has no ffmpeg: install ffmpeg or set HERALD_FFMPEG_PATH`
    const preflight = await h.call('preflight_post', request)
    expect(preflight.status).toBe(200)
    expect(preflight.body).toMatchObject({ ok: false, blockers: [expected] })
    const created = await h.call('create_post', { ...request, publishImmediately: true })
    expect(created.status).toBe(400)
    expect(JSON.stringify(created.body)).toContain('this Herald has no ffmpeg')
    const posts = await h.app.store.db.selectFrom('posts').select('id').execute()
    expect(posts).toEqual([])
  })
})
