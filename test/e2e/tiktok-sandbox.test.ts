import { beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import type { Harness } from '../helpers/harness.js'
import { mcpCall } from '../helpers/oauth.js'
import { useSandboxPublishing } from '../helpers/sandbox-publishing.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import type { TestServer } from '../media/servers.js'

/**
 * TikTok end to end in sandbox mode: `herald sandbox connect --network tiktok` through the simulator's
 * consent page, preflight naming the creator's privacy levels, a video sent through REST and another
 * through MCP (each made once, counted on the simulator, with a live URL that opens the post's page), a
 * photo carousel TikTok fetches from Herald's hosted copies, a draft to the creator's inbox, and the
 * post's and the profile's figures.
 */
describe('TikTok in sandbox mode, end to end', () => {
  const rig = useSandboxPublishing({
    simulator: 'tiktok',
    workerId: 'e2e-tiktok',
    files: async () => ({
      '/a.jpg': { type: 'image/jpeg', bytes: await solidImage(1080, 1350, 'jpeg') },
      '/b.png': { type: 'image/png', bytes: await solidImage(1200, 1600, 'png') },
      '/clip.mp4': {
        type: 'video/mp4',
        bytes: mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 }),
      },
    }),
  })
  const { state, answers, call } = rig
  let h: Harness
  let sources: TestServer
  let connection: { connectionId: string; profileId: string }
  beforeAll(async () => {
    ;({ h, sources } = rig)
    connection = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'tiktok',
      username: 'Pier Bakery',
    })
  })
  const src = (path: string) => `${sources.url}${path}`
  const video = (content: string, tiktok: Record<string, unknown>) => ({
    content,
    platforms: ['tiktok'],
    mediaUrl: src('/clip.mp4'),
    publishImmediately: true,
    tiktok,
  })

  it('connects the creator as a profile: open id, display name and handle', async () => {
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connection.connectionId)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      platform: 'tiktok',
      username: 'pierbakery',
      name: 'Pier Bakery',
      status: 'active',
    })
    const creator = (await state()).users!.find((u) => u.username === 'pierbakery')
    expect(row.profile_id).toBe(creator.openId)
    const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    expect(credentials.refreshToken).toMatch(/^rft\./)
    expect(Number(credentials.extra?.refreshTokenExpiresAt)).toBeGreaterThan(Date.now() + 170 * 86_400_000)
  })

  it('blocks a TikTok target without a privacy level in preflight, naming the levels the creator may choose', async () => {
    const { status, body } = await call('preflight_post', {
      content: 'Shaping the dough',
      platforms: ['tiktok'],
      mediaUrl: src('/clip.mp4'),
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.ok).toBe(false)
    expect(body.blockers).toContainEqual(
      'tiktok @pierbakery: choose who can watch the post in tiktok.privacyLevel (TikTok allows no default): @pierbakery may choose PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS or SELF_ONLY',
    )
    expect(body.limits.tiktok).toBe(2200)
    const refused = await call('create_post', { ...video('Shaping the dough', {}), publishImmediately: true })
    expect(refused.status).toBe(400)
    expect((await state()).jobs).toEqual([])
  })

  it('publishes a video sent through REST once, with a live URL that opens the post on the simulator', async () => {
    // TikTok processes the upload for a status poll before it says the post is complete.
    h.sandboxes!.tiktok.processingPolls = 1
    const { status, body } = await call(
      'create_post',
      video('Shaping the dough at dawn', { privacyLevel: 'PUBLIC_TO_EVERYONE', allowComments: true }),
    )
    expect(status, JSON.stringify(body)).toBe(200)
    const target = body.posts[0].targets[0]
    expect(body.posts[0].status, JSON.stringify(body.posts[0])).toBe('published')
    expect(target.url).toBe(`${h.baseUrl}/sandbox/tiktok/web/@pierbakery/video/${target.postId}`)
    const held = (await state()).posts!.filter((p) => p.title === 'Shaping the dough at dawn')
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({
      id: target.postId,
      privacyLevel: 'PUBLIC_TO_EVERYONE',
      disableComment: false,
    })
    expect(held[0].disableDuet).toBe(true)
    const page = await fetch(target.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Shaping the dough at dawn')
    h.sandboxes!.tiktok.processingPolls = 0
  })

  it('publishes a video sent through MCP once, with a live URL', async () => {
    const { status, body } = await mcpCall(
      h,
      h.apiKey,
      'create_post',
      video('Crumb shot through MCP', { privacyLevel: 'PUBLIC_TO_EVERYONE' }),
    )
    expect(status).toBe(200)
    const result = body.result.structuredContent ?? JSON.parse(body.result.content[0].text)
    expect(body.result.isError ?? false, JSON.stringify(body)).toBe(false)
    const target = result.posts[0].targets[0]
    expect(result.posts[0].status).toBe('published')
    const held = (await state()).posts!.filter((p) => p.title === 'Crumb shot through MCP')
    expect(held).toHaveLength(1)
    expect(target.url).toBe(`${h.baseUrl}/sandbox/tiktok/web/@pierbakery/video/${held[0].id}`)
    expect((await fetch(target.url)).status).toBe(200)
  })

  it('publishes a photo carousel that TikTok fetches from Herald’s hosted copies', async () => {
    const { status, body } = await call('create_post', {
      content: 'This week at the bakery\nRye, spelt and a new sourdough',
      platforms: ['tiktok'],
      mediaUrls: [src('/a.jpg'), src('/b.png')],
      publishImmediately: true,
      tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE', yourBrand: true },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts[0].status, JSON.stringify(body.posts[0])).toBe('published')
    const s = await state()
    const post = s.posts!.find((p) => p.kind === 'photo')
    expect(post).toMatchObject({ title: 'This week at the bakery', brandOrganic: true, brandContent: false })
    expect(body.posts[0].targets[0].url).toBe(`${h.baseUrl}/sandbox/tiktok/web/@pierbakery/photo/${post.id}`)
    // TikTok downloaded both photos, each a JPEG from Herald's media host (the PNG converted first).
    expect(s.pulls!.map((p) => [p.ok, p.contentType, p.url.startsWith(`${h.baseUrl}/media/`)])).toEqual([
      [true, 'image/jpeg', true],
      [true, 'image/jpeg', true],
    ])
  })

  it('sends a video to the creator’s inbox as a draft, without a privacy level', async () => {
    const { status, body } = await call(
      'create_post',
      video('For the creator to finish', { sendAsDraft: true }),
    )
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts[0].status).toBe('published')
    expect(body.posts[0].targets[0].url).toBe(`${h.baseUrl}/sandbox/tiktok/web/@pierbakery`)
    const s = await state()
    expect(s.drafts).toHaveLength(1)
    expect(s.posts!.filter((p) => p.title === 'For the creator to finish')).toHaveLength(0)
  })

  it('reads a video’s figures and the profile’s', async () => {
    const post = (await state()).posts!.find((p) => p.title === 'Shaping the dough at dawn')
    await fetch(`${rig.simulator()}/_sandbox/posts/${post.id}/counts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ views: 1200, likes: 88, comments: 9, shares: 4 }),
    })
    const list = await call('list_posts', {})
    const published = list.body.posts.find((p: any) => p.content === 'Shaping the dough at dawn')
    const reading = await call('get_post_analytics', { id: published.id, refresh: true })
    expect(reading.status, JSON.stringify(reading.body)).toBe(200)
    expect(reading.body.targets[0].analytics.summary).toMatchObject({
      views: 1200,
      likes: 88,
      comments: 9,
      shares: 4,
      engagements: 101,
      saves: null,
      clicks: null,
    })
    const profile = await call('get_profile_analytics', {
      platform: 'tiktok',
      profileId: connection.profileId,
      refresh: true,
    })
    expect(profile.status, JSON.stringify(profile.body)).toBe(200)
    expect(profile.body.analytics.summary).toMatchObject({ followers: 1520, following: 180, posts: 3 })
  })

  it('never shows a token in any answer, and every call matched TikTok’s published shape', async () => {
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connection.connectionId)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    for (const answer of answers) {
      expect(answer).not.toContain(credentials.accessToken)
      expect(answer).not.toContain(credentials.refreshToken!)
    }
    expect((await state()).violations).toEqual([])
  })
})
