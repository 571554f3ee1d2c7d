import { AtpAgent } from '@atproto/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { startTestPds, type TestPds } from '../helpers/bluesky-pds.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * One create_post to a YouTube profile (the Google/YouTube simulator, reached over HTTP by the real
 * adapter) and a Bluesky profile (a real PDS on 127.0.0.1) at once, published by the worker.
 */
describe('create_post to YouTube and Bluesky at once, end to end', () => {
  let pds: TestPds
  let h: Harness
  let worker: Worker
  let videos: TestServer
  let browser: Browser
  const video = mp4File({ width: 1080, height: 1920, durationMs: 42_000, mdatBytes: 64 * 1024 })
  const copy =
    'Launch day <3\nHerald ships to every network at once. #launch #OpenSource\nhttps://example.com/herald'

  beforeAll(async () => {
    pds = await startTestPds()
    await pds.createAccount('dana.test', 'dana-account-password')
    const appPassword = await pds.createAppPassword('dana.test', 'dana-account-password')
    videos = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(video.length) })
      res.end(video)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: {
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '30000',
        HERALD_BLUESKY_SERVICE_URL: pds.url,
        HERALD_BLUESKY_PLC_URL: pds.plcUrl,
        HERALD_BLUESKY_ALLOW_LOCAL_PDS: '1',
      },
    })
    worker = createAppWorker(h.app, { id: 'e2e-yt-bsky' })
    worker.start()
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'youtube',
      username: 'creator@example.com',
    })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const form = await browser.get('/connect/bluesky')
    const connected = await browser.post('/connect/bluesky', {
      csrf: browser.csrf(form),
      identifier: 'dana.test',
      appPassword,
    })
    expect(connected.status, connected.text).toBe(303)
  }, 60_000)

  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await videos?.close()
    await pds?.close()
  })

  it('publishes both targets with their URLs, and YouTube gets the title, description, tags and privacy the rules give', async () => {
    const accounts = (await h.call('get_connected_accounts')).body as Array<{
      platform: string
      profileId: string
    }>
    expect(accounts.map((a) => a.platform).sort()).toEqual(['bluesky', 'youtube'])

    const { status, body } = await h.call('create_post', {
      content: copy,
      platforms: ['youtube', 'bluesky'],
      mediaUrl: `${videos.url}/launch.mp4`,
      youtube: { privacyStatus: 'unlisted' },
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.credits.charged).toBe(1 + 1 + 50)
    const byPlatform = Object.fromEntries(body.posts.map((p: { platforms: string[] }) => [p.platforms[0], p]))
    expect(byPlatform.youtube.status).toBe('published')
    expect(byPlatform.bluesky.status).toBe('published')
    const youtubeTarget = byPlatform.youtube.targets[0]
    const blueskyTarget = byPlatform.bluesky.targets[0]
    expect(youtubeTarget.url).toBe(`${h.baseUrl}/sandbox/youtube/web/shorts/${youtubeTarget.postId}`)
    expect(blueskyTarget.url).toMatch(/^https:\/\/bsky\.app\/profile\/dana\.test\/post\/[\w]+$/)

    const uploads = (await (await fetch(`${h.baseUrl}/sandbox/youtube/_sandbox/uploads`)).json()) as Array<{
      videoId: string
      bytes: number
      metadata: { snippet: Record<string, unknown>; status: Record<string, unknown> }
    }>
    expect(uploads).toHaveLength(1)
    const [upload] = uploads
    expect(youtubeTarget.url.endsWith(`/${upload?.videoId}`)).toBe(true)
    expect(upload?.bytes).toBe(video.length)
    expect(upload?.metadata.snippet).toMatchObject({
      title: 'Launch day 3',
      description:
        'Launch day 3\nHerald ships to every network at once. #launch #OpenSource\nhttps://example.com/herald\n\n#Shorts',
      tags: ['launch', 'OpenSource'],
      categoryId: '22',
    })
    expect(upload?.metadata.status).toMatchObject({
      privacyStatus: 'unlisted',
      selfDeclaredMadeForKids: false,
    })

    const agent = new AtpAgent({ service: pds.url })
    const uri = blueskyTarget.postId as string
    const [, , repo, collection, rkey] = uri.split('/')
    const record = await agent.com.atproto.repo.getRecord({
      repo: repo as string,
      collection: collection as string,
      rkey: rkey as string,
    })
    const value = record.data.value as {
      text: string
      embed: { $type: string }
      facets: Array<{ features: Array<{ $type: string }> }>
    }
    expect(value.text).toBe(copy)
    expect(value.embed.$type).toBe('app.bsky.embed.video')
    expect(value.facets.flatMap((f) => f.features.map((x) => x.$type)).sort()).toEqual([
      'app.bsky.richtext.facet#link',
      'app.bsky.richtext.facet#tag',
      'app.bsky.richtext.facet#tag',
    ])
  }, 60_000)
})
