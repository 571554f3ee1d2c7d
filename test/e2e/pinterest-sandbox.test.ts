import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { type SandboxConnected, sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'
import { h264Clip } from '../media/video-fixtures.js'

type SandboxState = {
  pins: Array<Record<string, any>>
  media: Array<Record<string, any>>
  violations: unknown[]
}

/**
 * Pinterest in sandbox mode, end to end: the account connected through the whole flow (every board a
 * profile), an image carousel published to two boards through REST and a video pin to the same two through
 * MCP, by the real worker, tools, media pipeline (ffmpeg makes the video's cover) and adapter. Each pin is
 * counted on the simulator: once per board, with live pin pages.
 */
describe('Pinterest pins to two boards through REST and MCP, end to end', () => {
  let h: Harness
  let worker: Worker
  let files: TestServer
  let boards: SandboxConnected[]

  beforeAll(async () => {
    const photo = await solidImage(1000, 1500, 'jpeg')
    const clip = await readFile(
      await h264Clip(path.join(tmpdir(), `pinterest-e2e-${process.pid}.mp4`), {
        seconds: 5,
        width: 320,
        height: 480,
      }),
    )
    files = await startServer((request, response) => {
      const video = request.url?.endsWith('.mp4')
      const bytes = video ? clip : photo
      response.writeHead(200, {
        'content-type': video ? 'video/mp4' : 'image/jpeg',
        'content-length': String(bytes.length),
      })
      response.end(bytes)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_IMMEDIATE_WAIT_MS: '30000' },
    })
    worker = createAppWorker(h.app, { id: 'e2e-pinterest' })
    worker.start()
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'pinterest',
      username: 'studio_pia',
    })
    boards = (connected.profiles ?? [connected]).filter((b) => b.name !== 'Drafts')
  }, 120_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await files?.close()
  })

  const state = async () =>
    (await (await fetch(`${h.baseUrl}${sandboxPrefixes.pinterest}/_sandbox/state`)).json()) as SandboxState
  const targets = () => boards.map((b) => ({ platform: 'pinterest', profileId: b.profileId }))
  const livePage = async (url: string, title: string) => {
    const page = await fetch(url)
    expect(page.status, url).toBe(200)
    expect(await page.text()).toContain(title)
  }

  it('lists the two boards as profiles of the account, each named by its board', async () => {
    expect(boards.map((b) => b.name).sort()).toEqual(['Shop window', 'Spring recipes'])
    const accounts = (await h.call('get_connected_accounts', {})).body as Array<Record<string, string>>
    const pinterest = accounts.filter((a) => a.platform === 'pinterest')
    expect(pinterest).toHaveLength(3)
    expect(new Set(pinterest.map((a) => a.username))).toEqual(new Set(['studio_pia']))
  })

  it('publishes an image carousel to both boards through REST, one pin each, with live pin pages', async () => {
    const content = 'Spring tarts, in three steps'
    const { status, body } = await h.call('create_post', {
      content,
      targetAccounts: targets(),
      mediaUrls: [`${files.url}/one.jpg`, `${files.url}/two.jpg`, `${files.url}/three.jpg`],
      pinterest: { title: 'Spring tarts', link: 'https://bakery.example/spring' },
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const posts = body.posts as Array<{
      status: string
      targets: Array<{ status: string; url: string; postId: string }>
    }>
    expect(posts.map((p) => p.status)).toEqual(['published', 'published'])
    const pins = (await state()).pins.filter((p) => p.description === content)
    expect(pins.map((p) => p.boardId).sort()).toEqual(boards.map((b) => b.profileId).sort())
    for (const pin of pins)
      expect(pin).toMatchObject({
        title: 'Spring tarts',
        link: 'https://bakery.example/spring',
        mediaType: 'multiple_images',
        sourceType: 'multiple_image_urls',
      })
    for (const post of posts) {
      const [target] = post.targets
      expect(pins.map((p) => p.id)).toContain(target!.postId)
      expect(target!.url).toBe(`${h.baseUrl}${sandboxPrefixes.pinterest}/web/pin/${target!.postId}/`)
      await livePage(target!.url, 'Spring tarts')
    }
  }, 60_000)

  it('publishes a video pin to both boards through MCP, each file uploaded once and covered by its first frame', async () => {
    const content = 'The tart, baking, in five seconds'
    const client = new Client({ name: 'herald-e2e', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    const result = await client.callTool({
      name: 'create_post',
      arguments: {
        content,
        targetAccounts: targets(),
        mediaUrl: `${files.url}/bake.mp4`,
        pinterest: { title: 'Baking' },
        publishImmediately: true,
      },
    })
    await client.close()
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    const body = JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
    const posts = body.posts as Array<{ status: string; targets: Array<{ url: string; postId: string }> }>
    expect(posts.map((p) => p.status)).toEqual(['published', 'published'])
    const sandbox = await state()
    const pins = sandbox.pins.filter((p) => p.description === content)
    expect(pins.map((p) => p.boardId).sort()).toEqual(boards.map((b) => b.profileId).sort())
    for (const pin of pins) {
      expect(pin).toMatchObject({ mediaType: 'video', title: 'Baking', cover: { width: 320, height: 480 } })
      expect(sandbox.media.find((m) => m.id === pin.mediaId)).toMatchObject({
        status: 'succeeded',
        uploads: 1,
      })
    }
    for (const post of posts) await livePage(post.targets[0]!.url, 'Baking')
    expect(sandbox.violations).toEqual([])
  }, 90_000)

  it('reads a pin’s analytics and the board’s through the analytics tools', async () => {
    const [pin] = (await state()).pins
    const post = await h.app.store.db
      .selectFrom('targets')
      .select('post_id')
      .where('remote_id', '=', pin!.id)
      .executeTakeFirstOrThrow()
    const reading = await h.call('get_post_analytics', { id: post.post_id, refresh: true })
    expect(reading.status, JSON.stringify(reading.body)).toBe(200)
    expect(reading.body.targets[0].analytics.summary).toMatchObject({
      views: expect.any(Number),
      saves: expect.any(Number),
    })
    const profile = await h.call('get_profile_analytics', {
      platform: 'pinterest',
      profileId: boards[0]!.profileId,
      refresh: true,
    })
    expect(profile.status, JSON.stringify(profile.body)).toBe(200)
    expect(profile.body.analytics.summary.followers).toBeGreaterThan(0)
  }, 30_000)
})
