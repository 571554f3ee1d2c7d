import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { createBrowser } from '../helpers/browser.js'
import type { Harness } from '../helpers/harness.js'
import { useSandboxPublishing } from '../helpers/sandbox-publishing.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import type { TestServer } from '../media/servers.js'

/**
 * Facebook Pages and Instagram end to end in sandbox mode: the Meta simulator mounted inside Herald, a
 * Facebook Login grant listing the Page and its linked Instagram account, create_post published by the
 * worker through the real adapters, Herald's media pipeline converting and hosting each file, and the
 * simulator's Meta fetcher downloading those hosted copies.
 */
describe('Facebook and Instagram in sandbox mode, end to end', () => {
  const rig = useSandboxPublishing({
    simulator: 'facebook',
    workerId: 'e2e-meta',
    files: async () => ({
      '/wide.png': { type: 'image/png', bytes: await solidImage(2000, 600, 'png') },
      '/a.jpg': { type: 'image/jpeg', bytes: await solidImage(1080, 1080, 'jpeg') },
      '/b.jpg': { type: 'image/jpeg', bytes: await solidImage(1200, 900, 'jpeg') },
      '/c.jpg': { type: 'image/jpeg', bytes: await solidImage(900, 1100, 'jpeg') },
      '/clip.mp4': {
        type: 'video/mp4',
        bytes: mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 48 * 1024 }),
      },
    }),
  })
  /** Every response body the tools gave, for the no-token check. */
  const { state, answers, call, post } = rig
  const meta = rig.simulator
  let h: Harness
  let sources: TestServer
  beforeAll(() => {
    ;({ h, sources } = rig)
  })

  it('connects a Page and its Instagram account, publishes every kind of post, and reads analytics for each', async () => {
    // /connect/facebook → the simulator's Facebook dialog → the callback → the choose-profiles page, where
    // the Page and its linked Instagram account are both ticked.
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const start = await browser.connect('/connect/facebook')
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    const consentForm: Record<string, string[]> = { username: ['Harbour Cafe'], decision: ['authorize'] }
    for (const [key, value] of authorize.searchParams) consentForm[key] = [...(consentForm[key] ?? []), value]
    consentForm.granted_scope = (authorize.searchParams.get('scope') ?? '').split(',')
    const consent = await browser.post(`${authorize.origin}${authorize.pathname}`, consentForm)
    const callback = await browser.get(consent.location!)
    expect(callback.status, callback.text).toBe(303)
    const choose = await browser.get(callback.location!)
    const boxes = [
      ...choose.text.matchAll(/<input type="checkbox" name="profile" value="(\d+)"\s*\/?> ([^<]+)</g),
    ]
    expect(boxes.map((b) => b[2])).toEqual([
      'Harbour Cafe (@harbourcafe) · Facebook Page',
      'Harbour Cafe (@harbourcafe) · Instagram professional account (linked to Harbour Cafe)',
    ])
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const chosen = await browser.post(new URL(action, h.baseUrl).toString(), {
      csrf: [browser.csrf(choose)],
      profile: boxes.map((b) => b[1]!),
    })
    expect(chosen.status, chosen.text).toBe(303)
    const profiles = await h.app.store.db
      .selectFrom('connections')
      .select(['platform as network', 'profile_id as profileId', 'name', 'is_organization'])
      .where('workspace_id', '=', h.workspaceId)
      .orderBy('platform')
      .execute()
    expect(profiles.map((p) => [p.network, p.name, p.is_organization])).toEqual([
      ['facebook', 'Harbour Cafe', 1],
      ['instagram', 'Harbour Cafe', 0],
    ])

    const text = await post('facebook', 'Open until 6 today', [])
    expect(text.targets[0]!.url).toBe(
      `${meta()}/web/facebook/${text.targets[0]!.postId.replace('_', '/posts/')}`,
    )
    const photos = await post('facebook', 'Three cakes', ['/a.jpg', '/b.jpg', '/c.jpg'])
    const video = await post('facebook', 'The espresso machine', ['/clip.mp4'])
    expect(video.targets[0]!.url).toMatch(/\/videos\//)
    const image = await post('instagram', 'Wide harbour view #coffee', ['/wide.png'])
    expect(image.targets[0]!.url).toMatch(new RegExp(`^${meta()}/web/instagram/p/[\\w-]+/$`))
    const reel = await post('instagram', 'Latte art', ['/clip.mp4'])
    expect(reel.targets[0]!.url).toMatch(new RegExp(`^${meta()}/web/instagram/reel/[\\w-]+/$`))
    const carousel = await post('instagram', 'Menu', ['/a.jpg', '/b.jpg', '/clip.mp4'])

    const s = await state()
    expect(s.violations).toEqual([])
    const album = s.posts!.find((p) => p.message === 'Three cakes')
    expect(album.attachedMedia).toHaveLength(3)
    // The PNG reached the simulator as a JPEG within 4:5..1.91:1, fetched from Herald's hosted copy.
    const igImage = s.containers!.find((c) => c.caption === 'Wide harbour view #coffee')
    const fetched = s.fetches!.find((f) => f.url === igImage.url)
    expect(fetched).toMatchObject({ ok: true, format: 'jpeg' })
    expect(fetched.width / fetched.height).toBeGreaterThanOrEqual(0.8)
    expect(fetched.width / fetched.height).toBeLessThanOrEqual(1.91 + 0.01)
    expect(igImage.url.startsWith(`${h.baseUrl}/media/`)).toBe(true)
    const carouselMedia = s.media!.find((m) => m.caption === 'Menu')
    expect(carouselMedia.children).toHaveLength(3)
    expect(s.fetches!.every((f) => f.ok && f.url.startsWith(`${h.baseUrl}/media/`))).toBe(true)

    for (const created of [text, photos, video, image, reel, carousel]) {
      const { status, body } = await call('get_post_analytics', { id: created.id, refresh: true })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.measured, JSON.stringify(body)).toBe(1)
      const summary = body.targets[0].analytics.summary
      expect(
        Object.values(summary).some((v) => typeof v === 'number' && v > 0),
        JSON.stringify(summary),
      ).toBe(true)
    }

    // No token in any response, log line or plaintext column.
    const tokens = [
      ...new Set(
        (await h.app.store.db.selectFrom('connections').select(['id', 'credentials']).execute()).map(
          (r) =>
            h.app.vault.openJson<{ accessToken: string }>(connectionCredentials(r.id), r.credentials)
              .accessToken,
        ),
      ),
    ]
    expect(tokens.length).toBeGreaterThan(0)
    const columns = JSON.stringify(
      await h.app.store.db
        .selectFrom('connections')
        .select(['profile_id', 'username', 'name', 'last_error'])
        .execute(),
    )
    const targets = JSON.stringify([
      ...(await h.app.store.db.selectFrom('targets').selectAll().execute()),
      ...(await h.app.store.db.selectFrom('analytics_readings').selectAll().execute()),
    ])
    await call('get_connected_accounts', {})
    for (const grant of profiles) {
      const { status, body } = await call('get_profile_analytics', {
        platform: grant.network,
        profileId: grant.profileId,
        refresh: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.analytics.summary.followers, JSON.stringify(body)).toBeGreaterThan(0)
    }
    for (const token of tokens) {
      for (const answer of answers) expect(answer).not.toContain(token)
      for (const line of h.logs) expect(line).not.toContain(token)
      expect(columns).not.toContain(token)
      expect(targets).not.toContain(token)
      expect(JSON.stringify(s)).not.toContain(token)
    }
  }, 120_000)

  it('sandbox connect links an Instagram professional account through Instagram Login, which publishes the same way', async () => {
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'instagram',
      username: 'solo.maker',
    })
    expect(connected).toMatchObject({ platform: 'instagram', username: 'solo.maker', status: 'active' })
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connected.connectionId)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<{ extra?: Record<string, string>; expiresAt?: number }>(
      connectionCredentials(row.id),
      row.credentials,
    )
    expect(credentials.extra?.host).toBe('instagram')
    expect(row.token_expires_at).toBe(credentials.expiresAt ?? null)
    const { body } = await h.call('create_post', {
      content: 'Made by hand',
      targetAccounts: [{ platform: 'instagram', username: 'solo.maker' }],
      mediaUrls: [`${sources.url}/a.jpg`],
      publishImmediately: true,
    })
    expect(body.posts[0].status, JSON.stringify(body)).toBe('published')
    expect(body.posts[0].targets[0].url).toMatch(new RegExp(`^${meta()}/web/instagram/p/[\\w-]+/$`))
    expect((await state()).violations).toEqual([])
  }, 60_000)

  it('an unanswered media_publish is resolved by the worker looking among the recent media: published once', async () => {
    await fetch(`${meta()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'media_publish', action: 'drop_after' }),
    })
    const created = await post('instagram', 'Answer lost on the way back', ['/a.jpg'], 'harbourcafe')
    const media = (await state()).media!.filter((m) => m.caption === 'Answer lost on the way back')
    expect(media).toHaveLength(1)
    expect(created.targets[0]!.postId).toBe(media[0].id)
  }, 60_000)

  it('an unanswered Facebook feed post is resolved the same way', async () => {
    await fetch(`${meta()}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'feed', action: 'drop_after' }),
    })
    const created = await post('facebook', 'Feed answer lost', [], 'harbourcafe')
    const posts = (await state()).posts!.filter((p) => p.message === 'Feed answer lost')
    expect(posts).toHaveLength(1)
    expect(created.targets[0]!.postId).toBe(posts[0].id)
  }, 60_000)
})
