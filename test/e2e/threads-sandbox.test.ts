import { beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { assessConnection } from '../../src/modules/connections/health.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { createBrowser } from '../helpers/browser.js'
import type { Harness } from '../helpers/harness.js'
import { useSandboxPublishing } from '../helpers/sandbox-publishing.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import type { TestServer } from '../media/servers.js'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Threads end to end in sandbox mode: the Threads simulator mounted inside Herald, /connect/threads
 * through the simulator's consent page and back, create_post published by the worker through the real
 * adapter (a text post whose link becomes the preview, an image, a video, a carousel of two images and a
 * video), Herald's media pipeline converting and hosting each file and the simulator's Meta fetcher
 * downloading those hosted copies, analytics for each post, and preflight's Threads blockers.
 */
describe('Threads in sandbox mode, end to end', () => {
  const rig = useSandboxPublishing({
    simulator: 'threads',
    workerId: 'e2e-threads',
    files: async () => ({
      '/a.jpg': { type: 'image/jpeg', bytes: await solidImage(1080, 1080, 'jpeg') },
      '/b.png': { type: 'image/png', bytes: await solidImage(1200, 900, 'png') },
      '/huge.png': { type: 'image/png', bytes: await solidImage(3000, 2000, 'png') },
      '/clip.mp4': {
        type: 'video/mp4',
        bytes: mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 }),
      },
    }),
  })
  const { state, answers, call } = rig
  const threads = rig.simulator
  const post = (content: string, mediaUrls: string[], username?: string) =>
    rig.post('threads', content, mediaUrls, username)
  let h: Harness
  let sources: TestServer
  beforeAll(() => {
    ;({ h, sources } = rig)
  })

  it('connects through /connect/threads, publishes text with a link, an image, a video and a mixed carousel, and reads analytics', async () => {
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const channels = await browser.get('/channels')
    expect(channels.text).toContain('/connect/threads')
    const start = await browser.connect('/connect/threads')
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${threads()}/oauth/authorize`)
    expect(authorize.searchParams.get('scope')).toBe(
      'threads_basic,threads_content_publish,threads_manage_insights,threads_manage_replies',
    )
    const consentForm: Record<string, string[]> = { username: ['Pier Bakery'], decision: ['authorize'] }
    for (const [key, value] of authorize.searchParams) consentForm[key] = [value]
    consentForm.granted_scope = (authorize.searchParams.get('scope') ?? '').split(',')
    const consent = await browser.post(`${authorize.origin}${authorize.pathname}`, consentForm)
    expect(consent.location).toMatch(/#_$/)
    const callback = await browser.get(consent.location!)
    expect(callback.status, callback.text).toBe(303)
    expect(callback.location).toMatch(/connected=/)

    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('workspace_id', '=', h.workspaceId)
      .where('platform', '=', 'threads')
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ username: 'pierbakery', name: 'Pier Bakery', status: 'active' })
    // Account health counts down the 60-day token: nothing to say now, "expires in 4 days" at day 55.
    const credentials = h.app.vault.openJson<Credentials>(connectionCredentials(row.id), row.credentials)
    const input = {
      platform: 'threads',
      profileId: row.profile_id,
      username: row.username,
      status: 'active' as const,
      lastError: null,
      tokenExpiresAt: row.token_expires_at === null ? null : Number(row.token_expires_at),
      credentials,
    }
    expect(assessConnection(input, Date.now())).toBeUndefined()
    expect(assessConnection(input, Date.now() + 55 * DAY_MS + 60_000)).toMatchObject({
      daysLeft: 4,
      expired: false,
    })
    const health = await call('get_account_health', {})
    expect(health.status).toBe(200)

    const text = await post('Fresh loaves at 7: https://pier.example/bread today', [])
    expect(text.targets[0]!.url).toMatch(/\/sandbox\/threads\/web\/@pierbakery\/post\/[\w-]+$/)
    const image = await post('Sourdough crumb', ['/huge.png'])
    const video = await post('Shaping the dough', ['/clip.mp4'])
    const carousel = await post('This week', ['/a.jpg', '/b.png', '/clip.mp4'])
    for (const created of [image, video, carousel])
      expect(created.targets[0]!.url).toMatch(/\/sandbox\/threads\/web\/@pierbakery\/post\//)

    const s = await state()
    expect(s.violations).toEqual([])
    const textThread = s.threads!.find((t) => t.id === text.targets[0]!.postId)
    expect(textThread).toMatchObject({ mediaType: 'TEXT_POST', linkAttachment: 'https://pier.example/bread' })
    const carouselThread = s.threads!.find((t) => t.id === carousel.targets[0]!.postId)
    expect(carouselThread.mediaType).toBe('CAROUSEL_ALBUM')
    expect(
      carouselThread.children.map((id: string) => s.containers!.find((c) => c.id === id).mediaType),
    ).toEqual(['IMAGE', 'IMAGE', 'VIDEO'])
    // Herald hosted every file and the simulator's Meta fetcher downloaded each hosted copy.
    expect(s.fetches!.length).toBe(5)
    expect(s.fetches!.every((f) => f.ok && f.url.startsWith(`${h.baseUrl}/media/`))).toBe(true)

    for (const created of [text, image, video, carousel]) {
      const { status, body } = await call('get_post_analytics', { id: created.id, refresh: true })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.measured, JSON.stringify(body)).toBe(1)
      expect(body.targets[0].analytics.summary).toMatchObject({
        views: 512,
        likes: 33,
        comments: 7,
        shares: 9,
      })
    }
    const profile = await call('get_profile_analytics', {
      platform: 'threads',
      profileId: row.profile_id,
      refresh: true,
    })
    expect(profile.status, JSON.stringify(profile.body)).toBe(200)
    expect(profile.body.analytics.summary.followers).toBe(870)

    const tokens = [credentials.accessToken]
    const columns = JSON.stringify(
      await h.app.store.db
        .selectFrom('connections')
        .select(['profile_id', 'username', 'name', 'last_error'])
        .execute(),
    )
    const targets = JSON.stringify(await h.app.store.db.selectFrom('targets').selectAll().execute())
    for (const token of tokens) {
      for (const answer of answers) expect(answer).not.toContain(token)
      for (const line of h.logs) expect(line).not.toContain(token)
      expect(columns).not.toContain(token)
      expect(targets).not.toContain(token)
      expect(JSON.stringify(await state())).not.toContain(token)
    }
  }, 120_000)

  it('preflight blocks 501 characters as Threads counts them and a 21-item carousel, which create_post refuses', async () => {
    const preflight = async (input: Record<string, unknown>) => {
      const { status, body } = await call('preflight_post', {
        platforms: ['threads'],
        publishImmediately: true,
        ...input,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return body as { ok: boolean; blockers: string[]; limits: Record<string, number> }
    }
    expect((await preflight({ content: 'a'.repeat(500) })).ok).toBe(true)
    // 497 letters and one emoji of 4 UTF-8 bytes: 501 as Threads counts.
    const long = await preflight({ content: `${'a'.repeat(497)}😀` })
    expect(long.ok).toBe(false)
    expect(long.limits.threads).toBe(500)
    expect(long.blockers.join(' ')).toMatch(/threads.*501/i)
    const many = Array.from({ length: 21 }, () => `${sources.url}/a.jpg`)
    const big = await preflight({ content: 'Too many', mediaUrls: many })
    expect(big.ok).toBe(false)
    expect(big.blockers.join(' ')).toMatch(/21 attachments; threads takes at most 20/)
    const refused = await call('create_post', {
      content: 'Too many',
      platforms: ['threads'],
      mediaUrls: many,
      publishImmediately: true,
    })
    expect(refused.status).toBe(400)
  }, 60_000)

  it('an unanswered threads_publish is resolved by the worker looking among the recent threads: published once', async () => {
    await fetch(`${threads()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'threads_publish', action: 'drop_after' }),
    })
    const created = await post('Answer lost on the way back', [], 'pierbakery')
    const found = (await state()).threads!.filter((t) => t.text === 'Answer lost on the way back')
    expect(found).toHaveLength(1)
    expect(created.targets[0]!.postId).toBe(found[0].id)
  }, 60_000)

  it('sandbox connect links a Threads profile the same way', async () => {
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'threads',
      username: 'second.oven',
    })
    expect(connected).toMatchObject({ platform: 'threads', username: 'second.oven', status: 'active' })
    expect((await state()).violations).toEqual([])
  }, 60_000)
})
