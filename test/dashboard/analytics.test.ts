import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertReading } from '../../src/platform/db/statements/analytics.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

/** Profile analytics: stored readings free, a refresh that states and takes 1 credit, a chart over time. */
describe('the Analytics page', () => {
  let h: Harness
  let browser: Browser
  let followers = 100

  beforeAll(async () => {
    const twitter = scriptedAdapter('twitter')
    twitter.profileMetrics = async () => {
      followers += 25
      return {
        summary: { followers, following: 10, posts: 3, views: null },
        metrics: {},
        source: 'test',
        window: 'lifetime',
      }
    }
    h = await startHarness({ adapters: { twitter }, credits: 10 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const balance = async () => (await h.call('get_user_info')).body.credits.balance as number

  it('shows stored readings for free and refreshes for 1 credit, keeping the history for a chart', async () => {
    const before = await balance()
    const shown = await browser.get('/analytics')
    expect(shown.status).toBe(200)
    // A profile never read: one call to read it, not rows of dashes.
    const card = shown.text.slice(shown.text.indexOf('<li class="card profile-figures">'))
    expect(card).toContain('Never read yet.')
    expect(card).toMatch(
      /<button type="submit" class="primary" aria-label="Read now X @acme \(1 credit\)">.*Read now \(1 credit\)<\/button>/,
    )
    expect(card.slice(0, card.indexOf('</li>'))).not.toContain('—')
    expect(card.slice(0, card.indexOf('</li>'))).not.toContain('<dl class="stats">')
    expect(await balance()).toBe(before)
    for (let i = 0; i < 2; i++) {
      const page = await browser.get('/analytics')
      const refreshed = await browser.post(`${h.baseUrl}/analytics/refresh`, {
        csrf: [browser.csrf(page)],
        platform: ['twitter'],
        profileId: ['tw-1'],
      })
      expect(refreshed.status).toBe(200)
    }
    expect(await balance()).toBe(before - 2)
    const after = await browser.get('/analytics')
    expect(after.text).toContain('<div><dt>Followers</dt><dd>150</dd></div>')
    expect(after.text).toContain('+25 followers</span>')
    expect(after.text).toContain('Refresh now (1 credit)</button>')
    expect(after.text).not.toContain('Never read yet')
    const series = /<script type="application\/json" id="series-0">([^<]*)<\/script>/.exec(after.text)?.[1]
    expect(JSON.parse(series!).map((p: { summary: { followers: number } }) => p.summary.followers)).toEqual([
      125, 150,
    ])
  })

  it('lists the published posts by engagement, or by views or date when asked, sorted on the server', async () => {
    await h.app.accounts.addCredits({ workspaceId: h.workspaceId, amount: 20 })
    const publish = async (content: string, at: number, summary: Record<string, number>) => {
      const created = await h.call('create_post', {
        content,
        targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
        scheduleDate: '2031-05-01',
        scheduleTime: '09:00',
        timezone: 'UTC',
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const postId = created.body.postIds[0] as string
      const target = await h.app.store.db
        .updateTable('targets')
        .set({ status: 'published', published_at: at, run_at: null })
        .where('post_id', '=', postId)
        .returning(['id', 'connection_id'])
        .executeTakeFirstOrThrow()
      await insertReading(h.app.store.db, {
        workspaceId: h.workspaceId,
        kind: 'post',
        targetId: target.id,
        connectionId: target.connection_id,
        fetchedAt: at + 1000,
        summary,
        metrics: {},
        window: null,
        source: 'test',
        error: '',
        unavailable: false,
      })
    }
    await publish('Older but loved', Date.UTC(2030, 0, 1), { views: 90, likes: 40, comments: 10 })
    await publish('Newer and quiet', Date.UTC(2030, 0, 2), { views: 900, engagements: 5 })
    const order = (html: string) =>
      ['Older but loved', 'Newer and quiet'].sort((a, b) => html.indexOf(a) - html.indexOf(b))
    const byEngagement = await browser.get('/analytics')
    expect(byEngagement.text).toContain('<th scope="col" class="figure" aria-sort="descending">')
    expect(order(byEngagement.text)).toEqual(['Older but loved', 'Newer and quiet'])
    expect(byEngagement.text).toContain('<td class="figure">50</td></tr>')
    expect(order((await browser.get('/analytics?sort=views')).text)).toEqual([
      'Newer and quiet',
      'Older but loved',
    ])
    expect(order((await browser.get('/analytics?sort=published')).text)).toEqual([
      'Newer and quiet',
      'Older but loved',
    ])
  })

  it('refuses a refresh without its CSRF token', async () => {
    const forged = await browser.post(`${h.baseUrl}/analytics/refresh`, {
      platform: ['twitter'],
      profileId: ['tw-1'],
    })
    expect(forged.status).toBe(403)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'draws the chart in Chromium',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/analytics')
      try {
        const canvas = browser.tab.locator('canvas[data-series]')
        await expect.poll(async () => (await canvas.boundingBox())?.height ?? 0).toBeGreaterThan(50)
        expect(await lookAt(browser.tab, 'analytics')).toEqual([])
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    60_000,
  )
})
