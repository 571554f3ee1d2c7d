import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * End to end in sandbox mode, through REST and through MCP: a thread of three statuses with an image and a
 * content warning goes to a Mastodon profile, and the simulated instance holds each status once, every
 * reply answering the one before, the image with its processing done. Counted on the simulator's own state.
 */

interface HeldStatus {
  id: string
  text: string
  spoilerText: string
  visibility: string
  inReplyToId: string | null
  mediaIds: string[]
}

describe('a Mastodon thread with an image, end to end', () => {
  let h: Harness
  let images: TestServer
  let profileId = ''
  let worker: Worker

  beforeAll(async () => {
    const photo = await solidImage(1200, 900, 'jpeg')
    images = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(photo.length) })
      response.end(photo)
    })
    h = await startHarness({ sandbox: true, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    profileId = (
      await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'mastodon',
        username: 'e2e@thread.example',
      })
    ).profileId
    worker = createAppWorker(h.app, { id: 'e2e-mastodon' })
    worker.start()
  }, 60_000)
  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await images?.close()
  })

  const request = (tag: string) => ({
    content: `${tag} 1/ the post, with a picture`,
    mediaUrls: [`${images.url}/harbour.jpg`],
    targetAccounts: [{ platform: 'mastodon', profileId }],
    thread: [{ content: `${tag} 2/ the second` }, { content: `${tag} 3/ the third` }],
    mastodon: { visibility: 'unlisted', contentWarning: 'harbour photos', language: 'en' },
    publishImmediately: true,
  })

  const held = async (tag: string) => {
    const state = (await (await fetch(`${h.baseUrl}/sandbox/mastodon/_sandbox/state`)).json()) as {
      instances: Array<{
        host: string
        statuses: HeldStatus[]
        media: Array<{ id: string; pollsLeft: number }>
      }>
      violations: string[]
    }
    expect(state.violations).toEqual([])
    const instance = state.instances.find((i) => i.host === 'thread.example')!
    return { statuses: instance.statuses.filter((s) => s.text.startsWith(tag)), media: instance.media }
  }

  /** The thread as the instance holds it: once each, in order, every reply to the one before. */
  const expectThread = async (tag: string, post: any) => {
    const { statuses, media } = await held(tag)
    expect(statuses, JSON.stringify(post.targets)).toHaveLength(3)
    const [first, second, third] = ['1/', '2/', '3/'].map(
      (n) => statuses.find((s) => s.text.startsWith(`${tag} ${n}`))!,
    )
    expect(first!.inReplyToId).toBeNull()
    expect(second!.inReplyToId).toBe(first!.id)
    expect(third!.inReplyToId).toBe(second!.id)
    for (const status of statuses)
      expect(status).toMatchObject({ spoilerText: 'harbour photos', visibility: 'unlisted' })
    expect(first!.mediaIds).toHaveLength(1)
    expect(media.find((m) => m.id === first!.mediaIds[0])?.pollsLeft).toBe(0)
    const [target] = post.targets
    expect(target).toMatchObject({ status: 'published', postId: first!.id })
    expect(target.url).toBe(`${h.baseUrl}/sandbox/mastodon/web/thread.example/@e2e/${first!.id}`)
    expect(target.items.map((i: { postId: string }) => i.postId)).toEqual([second!.id, third!.id])
    // The sandbox page shows the toot behind its content warning.
    const page = await (await fetch(target.url)).text()
    expect(page).toContain('<details class="cw"><summary><span class="cw-text">harbour photos</span>')
  }

  it('publishes once through REST', async () => {
    const { status, body } = await h.call('create_post', request('[REST]'))
    expect(status, JSON.stringify(body)).toBe(200)
    await expectThread('[REST]', body.posts[0])
  }, 60_000)

  it('publishes once through MCP', async () => {
    const client = new Client({ name: 'herald-e2e', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    try {
      const result = (await client.callTool({ name: 'create_post', arguments: request('[MCP]') })) as {
        content: Array<{ text: string }>
        isError?: boolean
      }
      expect(result.isError, result.content[0]?.text).toBeFalsy()
      const created = JSON.parse(result.content[0]!.text)
      await expectThread('[MCP]', created.posts[0])
    } finally {
      await client.close()
    }
  }, 60_000)
})
