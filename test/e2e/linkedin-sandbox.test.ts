import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxPrefixes } from '../../src/networks/registry.js'
import type { Worker } from '../../src/worker/worker.js'
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
    const start = await browser.get('/connect/linkedin')
    expect(start.status).toBe(302)
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
    const boxes = [...choose.text.matchAll(/<input type="checkbox" name="profile" value="(\d+)"> ([^<]+)</g)]
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
        expect(target.url).toBe(`https://www.linkedin.com/feed/update/${target.postId}`)
    }

    const s = await state()
    expect(s.violations).toEqual([])
    const byText = (commentaryText: string) => s.posts!.filter((p) => p.visibleText === commentaryText)
    const cards = byText(linkCopy)
    expect(cards).toHaveLength(2)
    for (const card of cards) {
      expect(card.truncated).toBe(false)
      expect(card.content.article.source).toBe(`${sources.url}/notes.html`)
      expect(card.content.article.title).toBeTruthy()
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
        return body.targets[0]
      }
      const pageTarget = await read(page)
      const memberTarget = await read(member)
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
        .select('credentials')
        .where('platform', '=', 'linkedin')
        .execute()
    ).flatMap((r) => {
      const c = h.app.vault.openJson<{ accessToken: string; refreshToken?: string }>(r.credentials)
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
})
