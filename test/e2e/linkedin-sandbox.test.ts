import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxPrefixes } from '../../src/adapters/registry.js'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * LinkedIn end to end in sandbox mode: the LinkedIn simulator mounted inside Herald, /connect/linkedin
 * through the simulator's authorization page to the choose-profiles page (the member and one of the two
 * pages they administer ticked), create_post published by the worker through the real adapter (a text
 * post with a link as an article card, three images as a multiImage, a video in byte ranges), analytics
 * for the page's posts and none for the member's, and the page's followers.
 */
describe('LinkedIn in sandbox mode, end to end', () => {
  let h: Harness
  let worker: Worker
  let sources: TestServer
  const files = new Map<string, { type: string; bytes: Buffer }>()
  const linkedin = () => `${h.baseUrl}${sandboxPrefixes.linkedin}`
  const state = async () =>
    (await (await fetch(`${linkedin()}/_sandbox/state`)).json()) as Record<string, any[]>

  beforeAll(async () => {
    files.set('/a.jpg', { type: 'image/jpeg', bytes: await solidImage(1080, 1080, 'jpeg') })
    files.set('/b.png', { type: 'image/png', bytes: await solidImage(1200, 900, 'png') })
    files.set('/c.jpg', { type: 'image/jpeg', bytes: await solidImage(900, 1100, 'jpeg') })
    files.set('/notes.html', {
      type: 'text/html; charset=utf-8',
      bytes: Buffer.from(
        '<!doctype html><html><head><title>fallback</title><meta property="og:title" content="Spring notes &amp; plans"><meta name="description" content="What the studio is doing this spring"><meta property="og:image" content="/a.jpg"></head><body>notes</body></html>',
      ),
    })
    files.set('/clip.mp4', {
      type: 'video/mp4',
      bytes: mp4File({ width: 1280, height: 720, durationMs: 9000, mdatBytes: 48 * 1024 }),
    })
    sources = await startServer((req, res) => {
      const file = files.get(req.url ?? '')
      if (!file) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.bytes.length) })
      res.end(file.bytes)
    })
    h = await startHarness({
      sandbox: true,
      credits: 500,
      env: {
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
        HERALD_IMMEDIATE_WAIT_MS: '30000',
        HERALD_UNKNOWN_OUTCOME_CHECK_MS: '200',
      },
    })
    worker = createAppWorker(h.app, { id: 'e2e-linkedin' })
    worker.start()
  }, 60_000)

  afterAll(async () => {
    await worker?.stop()
    await h?.close()
    await sources?.close()
  })

  const answers: string[] = []
  const call = async (tool: string, input: unknown) => {
    const answer = await h.call(tool, input)
    answers.push(JSON.stringify(answer.body))
    return answer
  }
  const post = async (content: string, mediaUrls: string[], profileIds: string[]) => {
    const { status, body } = await call('create_post', {
      content,
      targetAccounts: profileIds.map((profileId) => ({ platform: 'linkedin', profileId })),
      ...(mediaUrls.length > 0 ? { mediaUrls: mediaUrls.map((p) => `${sources.url}${p}`) } : {}),
      publishImmediately: true,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const posts = body.posts as {
      id: string
      status: string
      targets: { url: string; postId: string; profileId: string }[]
    }[]
    for (const created of posts) expect(created.status, JSON.stringify(created)).toBe('published')
    return posts
  }

  it('connects the member and a page, publishes a link card, three images and a video to each, and reads analytics', async () => {
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const start = await browser.connect('/connect/linkedin')
    expect(start.status).toBe(303)
    const authorize = new URL(start.location!)
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${linkedin()}/oauth/v2/authorization`)
    expect(authorize.searchParams.get('scope')).toBe(
      'openid profile email w_member_social w_organization_social r_organization_social rw_organization_admin',
    )
    const consentForm: Record<string, string[]> = { username: ['Avery Quinn'], decision: ['authorize'] }
    for (const [key, value] of authorize.searchParams) consentForm[key] = [value]
    consentForm.granted_scope = (authorize.searchParams.get('scope') ?? '').split(' ')
    const consent = await browser.post(`${authorize.origin}${authorize.pathname}`, consentForm)
    const callback = await browser.get(consent.location!)
    expect(callback.status, callback.text).toBe(303)
    const choose = await browser.get(callback.location!)
    const boxes = [
      ...choose.text.matchAll(/<input type="checkbox" name="profile" value="(\d+)"\s*\/?> ([^<]+)</g),
    ]
    expect(boxes.map((b) => b[2])).toEqual([
      'Avery Quinn (@Avery Quinn) · LinkedIn Personal profile',
      'Avery Quinn Studio (@avery-quinn-studio) · LinkedIn Page',
      'Avery Quinn Labs (@avery-quinn-labs) · LinkedIn Page',
    ])
    const action = /<form method="post" action="([^"]*\/choose\/[^"]+)"/.exec(choose.text)![1]!
    const chosen = await browser.post(new URL(action, h.baseUrl).toString(), {
      csrf: [browser.csrf(choose)],
      profile: [boxes[0]![1]!, boxes[1]![1]!],
    })
    expect(chosen.status, chosen.text).toBe(303)
    const rows = await h.app.store.db
      .selectFrom('connections')
      .select(['profile_id', 'name', 'is_organization'])
      .where('workspace_id', '=', h.workspaceId)
      .where('platform', '=', 'linkedin')
      .orderBy('is_organization')
      .execute()
    expect(rows.map((r) => [r.name, r.is_organization])).toEqual([
      ['Avery Quinn', 0],
      ['Avery Quinn Studio', 1],
    ])
    const [member, page] = rows.map((r) => r.profile_id) as [string, string]
    expect(page).toMatch(/^\d+$/)

    const linkCopy = `Spring notes (draft) with {braces}, [brackets], <angles>, a*b, snake_case, ~tilde, a|b, back\\slash, mail@example.com #launch ${sources.url}/notes.html`
    const text = await post(linkCopy, [], [member, page])
    const images = await post('Three shots from the studio', ['/a.jpg', '/b.png', '/c.jpg'], [member, page])
    const video = await post('The studio in nine seconds', ['/clip.mp4'], [member, page])
    for (const created of [text, images, video]) {
      expect(created.flatMap((p) => p.targets.map((t) => t.profileId)).sort()).toEqual([member, page].sort())
      for (const target of created.flatMap((p) => p.targets))
        expect(target.url).toBe(`${linkedin()}/web/feed/update/${target.postId}`)
    }

    const s = await state()
    expect(s.violations).toEqual([])
    const byText = (commentaryText: string) => s.posts!.filter((p) => p.visibleText === commentaryText)
    const cards = byText(linkCopy)
    expect(cards).toHaveLength(2)
    for (const card of cards) {
      expect(card.truncated).toBe(false)
      expect(card.content.article.source).toBe(`${sources.url}/notes.html`)
      // Title, description and image read from the page through Herald's guarded fetcher; the image uploaded.
      expect(card.content.article).toMatchObject({
        title: 'Spring notes & plans',
        description: 'What the studio is doing this spring',
        thumbnail: expect.stringMatching(/^urn:li:image:/),
      })
    }
    const sets = byText('Three shots from the studio')
    expect(sets.map((p) => p.content.multiImage.images.length)).toEqual([3, 3])
    const clips = byText('The studio in nine seconds')
    expect(clips.every((p) => String(p.content.media.id).startsWith('urn:li:video:'))).toBe(true)
    const videoAsset = s.assets!.find((a) => a.urn === clips[0].content.media.id)
    expect(videoAsset.parts.every((p: { etag?: string }) => p.etag)).toBe(true)
    expect(new Set(sets.concat(cards, clips).map((p) => p.author))).toEqual(
      new Set([`urn:li:person:${member}`, `urn:li:organization:${page}`]),
    )

    for (const created of [text, images, video]) {
      const read = async (profileId: string) => {
        const id = created.find((p) => p.targets[0]!.profileId === profileId)!.id
        const { status, body } = await call('get_post_analytics', { id, refresh: true })
        expect(status, JSON.stringify(body)).toBe(200)
        return { ...body.targets[0], charged: body.credits?.charged }
      }
      const pageTarget = await read(page)
      const memberTarget = await read(member)
      // The page's reading costs its credit; the personal one reads nothing and costs nothing.
      expect(pageTarget.charged).toBe(1)
      expect(memberTarget.charged ?? 0).toBe(0)
      expect(pageTarget.analytics.unavailable, JSON.stringify(pageTarget)).toBe(false)
      expect(pageTarget.analytics.summary.likes, JSON.stringify(pageTarget)).toBeGreaterThan(0)
      expect(pageTarget.analytics.summary.views).toBeGreaterThan(0)
      expect(memberTarget.analytics.unavailable, JSON.stringify(memberTarget)).toBe(true)
    }
    const followers = await call('get_profile_analytics', {
      platform: 'linkedin',
      profileId: page,
      refresh: true,
    })
    expect(followers.status, JSON.stringify(followers.body)).toBe(200)
    expect(followers.body.analytics.summary.followers).toBeGreaterThan(0)
    const personal = await call('get_profile_analytics', {
      platform: 'linkedin',
      profileId: member,
      refresh: true,
    })
    expect(personal.body.analytics.unavailable, JSON.stringify(personal.body)).toBe(true)

    // No token in any response, log line or plaintext column.
    const tokens = (
      await h.app.store.db
        .selectFrom('connections')
        .select(['id', 'credentials'])
        .where('platform', '=', 'linkedin')
        .execute()
    ).flatMap((r) => {
      const c = h.app.vault.openJson<{ accessToken: string; refreshToken?: string }>(
        connectionCredentials(r.id),
        r.credentials,
      )
      return [c.accessToken, c.refreshToken ?? '']
    })
    expect(tokens.filter(Boolean).length).toBeGreaterThanOrEqual(2)
    const plaintext = JSON.stringify([
      await h.app.store.db
        .selectFrom('connections')
        .select(['profile_id', 'username', 'name', 'last_error', 'avatar_url'])
        .execute(),
      await h.app.store.db.selectFrom('targets').selectAll().execute(),
      await h.app.store.db.selectFrom('analytics_readings').selectAll().execute(),
    ])
    for (const token of tokens.filter(Boolean)) {
      for (const answer of answers) expect(answer).not.toContain(token)
      for (const line of h.logs) expect(line).not.toContain(token)
      expect(plaintext).not.toContain(token)
    }
  }, 120_000)

  const control = (path: string, body: unknown) =>
    fetch(`${linkedin()}/_sandbox/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('sandbox connect links a member, and with --organization a page the member administers', async () => {
    const person = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Kai Moreno',
    })
    expect(person).toMatchObject({
      platform: 'linkedin',
      name: 'Kai Moreno',
      isOrganization: false,
      status: 'active',
    })
    const org = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Kai Moreno',
      organization: true,
    })
    expect(org).toMatchObject({
      platform: 'linkedin',
      name: 'Kai Moreno Studio',
      username: 'kai-moreno-studio',
      isOrganization: true,
    })
    expect(org.profileId).toMatch(/^\d+$/)
  }, 60_000)

  it('blocks 3,001 characters as LinkedIn counts them and passes 3,000; blocks 21 images and a video mixed with images', async () => {
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Rule Checker',
    })
    const target = [{ platform: 'linkedin', profileId }]
    const preflight = async (content: string, mediaUrls: string[] = []) => {
      const { status, body } = await h.call('preflight_post', {
        content,
        targetAccounts: target,
        ...(mediaUrls.length ? { mediaUrls: mediaUrls.map((m) => `${sources.url}${m}`) } : {}),
        publishImmediately: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return body as { ok: boolean; blockers: string[] }
    }
    // An emoji outside the BMP is two UTF-16 code units, as LinkedIn counts.
    const at3000 = `${'a'.repeat(2998)}😀`
    expect((await preflight(at3000)).blockers).toEqual([])
    const over = await preflight(`${at3000}b`)
    expect(over.blockers.join()).toMatch(/3001 characters; linkedin allows 3000/)
    const created = await h.call('create_post', {
      content: `${at3000}b`,
      targetAccounts: target,
      publishImmediately: true,
    })
    expect(created.status).toBe(400)
    // 21 images: preflight reports the blocker for the target (it takes up to 100 URLs); create_post refuses
    // the request itself with a 400 naming the limit.
    const many = await preflight(
      'Too many',
      Array.from({ length: 21 }, () => '/a.jpg'),
    )
    expect(many.ok).toBe(false)
    expect(many.blockers.join()).toMatch(/21 attachments; linkedin takes at most 20/)
    const manyCreated = await h.call('create_post', {
      content: 'Too many',
      targetAccounts: target,
      mediaUrls: Array.from({ length: 21 }, () => `${sources.url}/a.jpg`),
      publishImmediately: true,
    })
    expect(manyCreated.status).toBe(400)
    expect(JSON.stringify(manyCreated.body)).toMatch(/at most 20/)
    const twenty = await preflight(
      'Twenty',
      Array.from({ length: 20 }, () => '/a.jpg'),
    )
    expect(twenty.blockers).toEqual([])
    const mixed = await preflight('Mixed', ['/clip.mp4', '/a.jpg'])
    expect(mixed.ok).toBe(false)
    expect(mixed.blockers.join()).toMatch(/video/i)
  }, 60_000)

  it('after a revoked token, refreshes once, then fails the target and marks the profile for reconnecting', async () => {
    const { profileId, connectionId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Revoked Member',
    })
    const before =
      ((await state()) as unknown as { tokenCalls: Record<string, number> }).tokenCalls.refresh_token ?? 0
    expect((await control('revoke', { username: 'Revoked Member', refresh: true })).status).toBe(200)
    const { body } = await call('create_post', {
      content: 'Nobody will see this',
      targetAccounts: [{ platform: 'linkedin', profileId }],
      publishImmediately: true,
    })
    expect(body.posts[0].status, JSON.stringify(body)).toBe('failed')
    const after =
      ((await state()) as unknown as { tokenCalls: Record<string, number> }).tokenCalls.refresh_token ?? 0
    expect(after - before).toBe(1)
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('needs_reconnect')
    const health = await call('get_account_health', {})
    const entry = health.body.connections.find((a: { profileId: string }) => a.profileId === profileId)
    expect(entry).toMatchObject({ needsReconnect: true, daysLeft: 0 })
  }, 60_000)

  it('an unanswered create is resolved by the worker looking among the author’s recent posts: published once', async () => {
    const { profileId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Lost Answer',
      organization: true,
    })
    expect((await control('faults', { op: 'posts', status: 504, afterCreate: true })).status).toBe(200)
    const [created] = await post('Answer lost on the way back', [], [profileId])
    const posts = (await state()).posts!.filter((p) => p.visibleText === 'Answer lost on the way back')
    expect(posts).toHaveLength(1)
    expect(created!.targets[0]!.postId).toBe(posts[0].id)
  }, 60_000)

  it('shows daysLeft: 5 for a member whose access token (no refresh token) expires in five days', async () => {
    await control('settings', { refreshTokens: false })
    const { profileId, connectionId } = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'linkedin',
      username: 'Short Lived',
    })
    await control('settings', { refreshTokens: true })
    const row = await h.app.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', connectionId)
      .executeTakeFirstOrThrow()
    const credentials = h.app.vault.openJson<{ refreshToken?: string; expiresAt?: number }>(
      connectionCredentials(row.id),
      row.credentials,
    )
    expect(credentials.refreshToken).toBeUndefined()
    // Fifty-five days later: the 60-day token has five days and a bit left.
    const expiresAt = h.app.clock.now() + 5 * 86_400_000 + 3_600_000
    await h.app.store.db
      .updateTable('connections')
      .set({ token_expires_at: expiresAt })
      .where('id', '=', connectionId)
      .execute()
    const health = await call('get_account_health', {})
    const entry = health.body.connections.find((a: { profileId: string }) => a.profileId === profileId)
    expect(entry).toMatchObject({ needsReconnect: false, expired: false, daysLeft: 5 })
    expect(entry.reason).toMatch(/no refresh token .*reconnect the profile before then/)
  }, 60_000)
})
