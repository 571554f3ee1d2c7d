import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { csvCell } from '../../src/modules/export/csv.js'
import { CSV_COLUMNS } from '../../src/modules/export/posts-export.js'
import { insertReading } from '../../src/platform/db/statements/analytics.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'

describe('a CSV cell', () => {
  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+2', "'+1+2"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['plain words', 'plain words'],
    ['a, b', '"a, b"'],
    ['line one\nline two', '"line one\nline two"'],
  ])('%j is written as %s', (value, written) => {
    expect(csvCell(value)).toBe(written)
  })

  it('leaves numbers as they are, negative ones too', () => {
    expect(csvCell(-3)).toBe('-3')
    expect(csvCell(null)).toBe('')
  })
})

describe.each(backends)('the export of a workspace’s posts ($name)', (backend) => {
  let h: Harness
  let browser: Browser

  beforeAll(async () => {
    h = await startHarness({
      backend,
      adapters: { bluesky: scriptedAdapter('bluesky'), twitter: scriptedAdapter('twitter') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    const published = await h.call('create_post', {
      content: '=HYPERLINK("http://evil.example","click") launch day',
      targetAccounts: [{ platform: 'bluesky', profileId: 'bs-1' }],
      publishImmediately: true,
    })
    expect(published.status).toBe(200)
    const worker = createAppWorker(h.app, { pollMs: 20 })
    worker.start()
    for (let i = 0; i < 100; i++) {
      const row = await h.app.store.db.selectFrom('targets').select(['status']).executeTakeFirst()
      if (row?.status === 'published') break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await worker.stop()
    const target = await h.app.store.db.selectFrom('targets').selectAll().executeTakeFirstOrThrow()
    for (const [fetchedAt, likes] of [
      [1_000, 1],
      [2_000, 7],
    ] as const)
      await insertReading(h.app.store.db, {
        workspaceId: h.workspaceId,
        kind: 'post',
        targetId: target.id,
        connectionId: target.connection_id,
        fetchedAt,
        summary: {
          views: 40,
          likes,
          comments: 2,
          shares: 1,
          saves: null,
          clicks: null,
          engagements: likes + 3,
        },
        metrics: {},
        window: null,
        source: 'test',
        error: '',
        unavailable: false,
      })
    const scheduled = await h.call('create_post', {
      content: 'Spring sale, "quoted", with a comma',
      targetAccounts: [
        { platform: 'bluesky', profileId: 'bs-1' },
        { platform: 'twitter', profileId: 'tw-1' },
      ],
      scheduleDate: '2031-04-01',
      scheduleTime: '10:00',
    })
    expect(scheduled.status).toBe(200)
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  it('is offered on the Posts page, keeping the filters shown', async () => {
    const page = await browser.get('/posts?network=twitter')
    // An ampersand in an attribute is written as an entity (`&amp;` by the JSX renderer).
    expect(page.text).toMatch(/href="\/posts\/export\?format=csv&(amp|#38);network=twitter"/)
    expect(page.text).toMatch(/href="\/posts\/export\?format=json&(amp|#38);network=twitter"/)
  })

  it('downloads CSV with one line per post and profile, remote URLs, the latest analytics and formulas neutralised', async () => {
    const page = await browser.get('/posts/export?format=csv')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; filename="herald-posts-.*\.csv"$/)
    const rows = parse(page.text.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[]
    expect(Object.keys(rows[0] ?? {})).toEqual([...CSV_COLUMNS])
    expect(rows).toHaveLength(3)
    const launch = rows.find((r) => r.content?.includes('launch day'))
    expect(launch?.content).toBe(`'=HYPERLINK("http://evil.example","click") launch day`)
    expect(launch).toMatchObject({
      platform: 'bluesky',
      delivery_status: 'published',
      likes: '7',
      views: '40',
    })
    expect(launch?.remote_url).toMatch(/^https:\/\/bluesky\.example\//)
    expect(rows.filter((r) => r.content === 'Spring sale, "quoted", with a comma')).toHaveLength(2)
  })

  it('downloads JSON in the tools’ shape, filtered like list_posts', async () => {
    const page = await browser.get('/posts/export?format=json&network=twitter')
    const body = JSON.parse(page.text)
    expect(body.workspace.id).toBe(h.workspaceId)
    expect(body.filter.network).toBe('twitter')
    expect(body.posts).toHaveLength(1)
    expect(body.posts[0]).toMatchObject({
      content: 'Spring sale, "quoted", with a comma',
      status: 'scheduled',
    })
    expect(body.posts[0].targets[0]).toMatchObject({
      platform: 'twitter',
      profileId: 'tw-1',
      analytics: null,
    })
    const all = JSON.parse((await browser.get('/posts/export?format=json&status=published')).text)
    expect(all.posts).toHaveLength(1)
    expect(all.posts[0].targets[0].analytics).toMatchObject({
      likes: 7,
      fetchedAt: new Date(2_000).toISOString(),
    })
  })

  it('refuses an unknown format and asks a signed-out visitor to sign in', async () => {
    expect((await browser.get('/posts/export?format=xlsx')).status).toBe(400)
    const anonymous = await fetch(`${h.baseUrl}/posts/export?format=csv`, { redirect: 'manual' })
    expect(anonymous.status).toBe(303)
  })
})
