import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'
import { mp4File } from '../media/fixtures.js'

/**
 * Compose: the live check runs preflight_post (counts per profile, blockers, warnings, cost, preview), then
 * create_post creates the post.
 */
/** A loaded machine runs the debounced check and the uploads slowly. */
const slow = { timeout: 15_000 }

describe('the Compose page', () => {
  let h: Harness
  let browser: Browser

  beforeAll(async () => {
    h = await startHarness({
      adapters: {
        twitter: scriptedAdapter('twitter'),
        linkedin: scriptedAdapter('linkedin'),
        youtube: scriptedAdapter('youtube'),
        instagram: scriptedAdapter('instagram'),
      },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
      credits: 100,
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    await connectProfile(h, 'youtube', 'yt-1', 'acme-yt')
    await connectProfile(h, 'instagram', 'ig-1', 'acme-ig')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const compose = async (fields: Record<string, string[]>) => {
    const form = await browser.get('/compose')
    return browser.post(`${h.baseUrl}/compose`, { csrf: [browser.csrf(form)], ...fields })
  }

  interface LiveCheck {
    ok: boolean
    counts: Array<{ platform: string; profileId: string; count: number; limit: number }>
    blockers: string[]
    warnings: string[]
    credits: { cost: number; balance: number }
    checkHtml: string
    priceLine: string
    fields: Record<string, string>
    tabs: Record<string, { count: number; limit: number; blocked: boolean }>
    previewHtml: string
  }
  /** What the page's script sends as the person types: the whole form, CSRF token included. */
  const liveCheck = async (fields: Record<string, string[]>, options: { csrf?: boolean } = {}) => {
    const form = await browser.get('/compose')
    const csrf: Record<string, string[]> = options.csrf === false ? {} : { csrf: [browser.csrf(form)] }
    const answer = await browser.post(`${h.baseUrl}/compose/preflight`, { ...csrf, ...fields })
    return { status: answer.status, body: JSON.parse(answer.text) as LiveCheck }
  }

  const cookie = () => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  const upload = (query: string, type: string, body: Buffer<ArrayBuffer>) =>
    fetch(`${h.baseUrl}/compose/upload?${query}`, {
      method: 'POST',
      headers: { 'content-type': type, cookie: cookie() },
      body,
    })
  /** Uploads a file as the page does; answers the URL Herald hosts it at. */
  const hosted = async (name: string, type: string, bytes: Buffer<ArrayBuffer>) => {
    const csrf = browser.csrf(await browser.get('/compose'))
    const answer = await upload(`name=${encodeURIComponent(name)}&csrf=${csrf}`, type, bytes)
    expect(answer.status).toBe(201)
    return ((await answer.json()) as { url: string }).url
  }
  const square = (r: number, g: number, b: number, width = 64, height = 64) =>
    sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer()
  const later = { when: ['schedule'], date: ['2031-06-01'], time: ['10:00'], timezone: ['Europe/Berlin'] }

  it('lists the profiles as chips named by network and handle, copy per network and per profile, a zone picker, and the three buttons', async () => {
    const form = await browser.get('/compose')
    expect(form.status).toBe(200)
    expect(form.text).toContain('value="twitter:tw-1" aria-label="X @acme"')
    expect(form.text).toContain('value="linkedin:li-1" aria-label="LinkedIn @acme-li"')
    expect(form.text).toContain('name="variant_linkedin"')
    expect(form.text).toContain('name="variant_linkedin:li-1"')
    expect(form.text).toContain('Copy for LinkedIn @acme-li only (empty: the copy for LinkedIn)')
    expect(form.text).toMatch(/<select name="timezone" id="timezone" data-browser-default>/)
    expect(form.text).toContain('<option>America/New_York</option>')
    expect(form.text).toContain('<div id="check" class="check" aria-live="polite">')
    // Without a script the form still posts: the buttons start enabled, and the server checks again.
    for (const when of ['now', 'schedule', 'queue'])
      expect(form.text).toMatch(new RegExp(`name="intent" value="${when}" data-when="${when}"[^>]*>`))
    expect(form.text).not.toMatch(/data-when="[a-z]+"[^>]* disabled/)
    expect(form.text).toMatch(/<script type="module" src="\/assets\/compose-[A-Z0-9]+\.js"><\/script>/)
    expect(form.text).not.toMatch(/<script>/)
    expect((await browser.get('/dashboard/compose.js')).status).toBe(404)
  })

  it('the live check counts each profile’s copy as Herald counts it on that network', async () => {
    const { status, body } = await liveCheck({
      content: ['こんにちは世界'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      ...later,
    })
    expect(status).toBe(200)
    expect(body.ok).toBe(true)
    // X weighs CJK 2 (twitter-text); LinkedIn counts UTF-16 units.
    expect(body.counts).toEqual([
      expect.objectContaining({ platform: 'twitter', count: 14, limit: 280 }),
      expect.objectContaining({ platform: 'linkedin', count: 7, limit: 3000 }),
    ])
    expect(body.fields['copy:all']).toContain('X @acme: <strong>14</strong> / 280 characters')
    expect(body.fields['copy:twitter']).toContain('X @acme: <strong>14</strong> / 280 characters')
    expect(body.tabs).toMatchObject({
      twitter: { count: 14, limit: 280 },
      linkedin: { count: 7, limit: 3000 },
    })
    expect(body.checkHtml).toContain('It costs <strong>6</strong> credits of')
    expect(body.priceLine).toBe('Ready · costs 6 credits · balance 100')
  })

  it('the live check shows X past 280 as over with Herald’s warning, and a real blocker as not ready', async () => {
    const longForX = await liveCheck({ content: ['x'.repeat(281)], profile: ['twitter:tw-1'], ...later })
    expect(longForX.body.counts[0]).toMatchObject({ count: 281, limit: 280 })
    expect(longForX.body.fields['copy:twitter']).toContain(
      '<li class="over">X @acme: <strong>281</strong> / 280',
    )
    expect(longForX.body.warnings.join(' ')).toContain('X allows 280 on standard access')
    // Over 280 is a warning in Herald (premium X accounts take up to 25,000): preflight_post decides.
    expect(longForX.body.ok).toBe(true)

    const blocked = await liveCheck({
      content: ['Short'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      'variant_linkedin:li-1': ['l'.repeat(3001)],
      ...later,
    })
    expect(blocked.body.ok).toBe(false)
    expect(blocked.body.counts[1]).toMatchObject({ platform: 'linkedin', count: 3001, limit: 3000 })
    expect(blocked.body.blockers.join(' ')).toContain('linkedin allows 3000')
    // The blocker is shown in LinkedIn's copy tab, which is marked, and not under X's.
    // The API's finding, said with the network's name beside the field.
    expect(blocked.body.fields['copy:linkedin']).toContain('LinkedIn allows 3000')
    expect(blocked.body.fields['copy:twitter']).not.toContain('LinkedIn allows 3000')
    expect(blocked.body.tabs.linkedin).toMatchObject({ blocked: true })
    expect(blocked.body.checkHtml).toContain('Not ready: fix the blockers below.')
    expect(blocked.body.checkHtml).toContain('1 blocker shown beside its field.')
    expect((await h.call('list_posts', {})).body.counts.all).toBe(0)
  })

  it('the live check answers a refused argument as a 400 with the reason, and refuses a missing CSRF token or session', async () => {
    const refused = await liveCheck({ content: ['Hello'], profile: ['twitter:tw-1'], mediaUrls: ['notaurl'] })
    expect(refused.status).toBe(400)
    expect(refused.body.ok).toBe(false)
    expect(refused.body.checkHtml).toContain('Not ready:')
    const unknownZone = await liveCheck({
      content: ['Hello'],
      profile: ['twitter:tw-1'],
      ...later,
      timezone: ['Mars/Olympus'],
    })
    expect(unknownZone.body.ok).toBe(false)
    // The zone's blocker is shown by the time fields.
    expect(unknownZone.body.fields.when).toContain('Mars/Olympus')
    const forged = await liveCheck({ content: ['Hello'], profile: ['twitter:tw-1'] }, { csrf: false })
    expect(forged.status).toBe(403)
    expect(forged.body.ok).toBe(false)
    const signedOut = await fetch(`${h.baseUrl}/compose/preflight`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'content=Hello&profile=twitter%3Atw-1',
    })
    expect(signedOut.status).toBe(401)
    expect(((await signedOut.json()) as LiveCheck).ok).toBe(false)
  })

  it('the preview cuts the copy where each network folds it and numbers the media in order', async () => {
    const red = await hosted('red.png', 'image/png', await square(200, 40, 40, 120, 60))
    const blue = await hosted('blue.png', 'image/png', await square(10, 90, 200))
    const copy = `${'Spring is here. '.repeat(16)}The end.`
    const { body } = await liveCheck({
      content: [copy],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      mediaUrls: [`${blue}\n${red}`],
      ...later,
    })
    const [xCard, linkedInCard] = body.previewHtml.split('<article').slice(1) as [string, string]
    expect(xCard).toContain('class="pv pv-twitter" aria-label="X @acme"')
    expect(xCard).toContain(`${copy}</p>`)
    expect(linkedInCard).toContain('class="pv pv-linkedin" aria-label="LinkedIn @acme-li"')
    const shown = copy.slice(0, 210).trimEnd()
    expect(linkedInCard).toContain(`${shown} <span class="more">…see more</span>`)
    expect(linkedInCard).not.toContain(copy.slice(0, 211))
    expect(linkedInCard).toContain('The feed folds the copy after 210 characters.')
    // Both images, in the order given, numbered, served by Herald itself (the CSP allows only 'self').
    const order = [...linkedInCard.matchAll(/<img src="([^"]+)" alt="([^"]+)"[^>]*><figcaption>(\d) of 2/g)]
    expect(order.map((m) => [m[2], m[3]])).toEqual([
      ['blue.png', '1'],
      ['red.png', '2'],
    ])
    expect(order[0]![1]).toBe(new URL(blue).pathname)
    expect(linkedInCard).toContain('aria-label="Grid of 2"')

    // Instagram: a carousel in the given order, the caption cut after about 125 characters.
    const instagram = await liveCheck({
      content: [copy],
      profile: ['instagram:ig-1'],
      mediaUrls: [`${red}\n${blue}`],
      ...later,
    })
    const card = instagram.body.previewHtml
    expect(card).toContain('aria-label="Carousel of 2, in this order"')
    expect([...card.matchAll(/alt="([^"]+)"/g)].map((m) => m[1])).toEqual(['red.png', 'blue.png'])
    expect(card).toContain(`${copy.slice(0, 125).trimEnd()} <span class="more">… more</span>`)
  })

  it('the preview shows a link in the copy as a card with its site when there is no media', async () => {
    const { body } = await liveCheck({
      content: ['Our menu: https://menu.invalid/spring.'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      ...later,
    })
    const cards = body.previewHtml.split('<article').slice(1)
    expect(cards).toHaveLength(2)
    for (const card of cards)
      expect(card).toContain('<p class="link-card"><span class="link-host">menu.invalid</span>')
    const red = await hosted('red.png', 'image/png', await square(200, 40, 40))
    const withMedia = await liveCheck({
      content: ['Our menu: https://menu.invalid/spring.'],
      profile: ['twitter:tw-1'],
      mediaUrls: [red],
      ...later,
    })
    expect(withMedia.body.previewHtml).not.toContain('link-card')
  })

  it('the preview keeps a lone image between the shapes its network shows', async () => {
    const tall = await hosted('tall.png', 'image/png', await square(30, 30, 30, 60, 200))
    const { body } = await liveCheck({
      content: ['One tall picture'],
      profile: ['instagram:ig-1', 'twitter:tw-1'],
      mediaUrls: [tall],
      ...later,
    })
    const [instagramCard, xCard] = body.previewHtml.split('<article').slice(1) as [string, string]
    // The page's script fits a lone image into this range once it knows the image's own shape.
    expect(instagramCard).toContain('data-min="0.8" data-max="1.91"')
    expect(xCard).toContain('class="ratio-17778" data-min="1.7777777777777777"')
  })

  it('a check shows the blockers as Herald counts them and the cost, and creates nothing', async () => {
    const checked = await compose({
      intent: ['check'],
      content: ['x'.repeat(281)],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      when: ['schedule'],
      date: ['2031-06-01'],
      time: ['10:00'],
      timezone: ['Europe/Berlin'],
    })
    expect(checked.status).toBe(200)
    expect(checked.text).toContain('It costs <strong>6</strong> credits of 100')
    expect(checked.text).toContain('X allows 280')
    expect((await h.call('list_posts', {})).body.counts.all).toBe(0)
  })

  it('creates the post with a per-network variant once the check passes, scheduled in the given zone', async () => {
    const fields = {
      content: ['Hello from the dashboard'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      variant_linkedin: ['Hello, LinkedIn network'],
      when: ['schedule'],
      date: ['2031-06-01'],
      time: ['10:00'],
      timezone: ['Europe/Berlin'],
    }
    const checked = await compose({ intent: ['check'], ...fields })
    expect(checked.text).toContain('Ready to create.')
    const created = await compose({ intent: ['schedule'], ...fields })
    expect(created.status).toBe(303)
    const posts = (await h.call('list_posts', {})).body.posts as Array<{
      content: string
      timezone: string
      targets: Array<{ platform: string }>
      variants?: Record<string, string>
    }>
    expect(posts).toHaveLength(2)
    expect(posts.every((p) => p.timezone === 'Europe/Berlin')).toBe(true)
    const rows = await h.app.store.db.selectFrom('targets').select(['platform', 'content']).execute()
    expect(rows.find((r) => r.platform === 'linkedin')?.content).toBe('Hello, LinkedIn network')
    expect(rows.find((r) => r.platform === 'twitter')?.content).toBe('Hello from the dashboard')
  })

  it('adds thread posts and a first comment: each counted and previewed per profile, created with the post, listed on its page', async () => {
    const fields = {
      content: ['Our new oven 1/'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      threadContent: ['Our new oven 2/ forty loaves an hour', 'Our new oven 3/ come and taste', ''],
      threadMedia: ['', '', ''],
      firstComment: ['Open daily from eight'],
      when: ['schedule'],
      date: ['2031-06-02'],
      time: ['10:00'],
      timezone: ['UTC'],
    }
    const { body: check } = await liveCheck(fields)
    expect(check.ok, JSON.stringify(check)).toBe(true)
    expect(check.fields.thread).toContain('X @acme, thread post 2 of 3: <strong>36</strong> / 280 characters')
    expect(check.fields.comment).toContain(
      'LinkedIn @acme-li, first comment: <strong>21</strong> / 1250 characters',
    )
    expect(check.warnings.join(' ')).toMatch(/linkedin @acme-li: linkedin takes no threads/)
    // X: the post, two thread posts and the comment at 5; LinkedIn: the post and its comment at 1.
    expect(check.credits.cost).toBe(5 * 4 + 2)
    expect(check.previewHtml).toContain('Thread post 3 of 3')
    expect(check.previewHtml).toContain('First comment')
    const form = await browser.get('/compose')
    expect(form.text).toContain('Add to thread')
    expect(form.text).toContain('name="firstComment"')
    const created = await compose({ intent: ['schedule'], ...fields })
    expect(created.status, created.text).toBe(303)
    const location = created.headers.get('location') ?? ''
    const posts = (await h.call('list_posts', {})).body.posts as Array<{
      id: string
      content: string
      thread?: Array<{ content: string }>
      firstComment?: string
    }>
    const onX = posts.find((p) => p.content === 'Our new oven 1/' && p.thread)
    expect(onX?.thread?.map((i) => i.content)).toEqual([
      'Our new oven 2/ forty loaves an hour',
      'Our new oven 3/ come and taste',
    ])
    expect(onX?.firstComment).toBe('Open daily from eight')
    const page = await browser.get(location.startsWith('/posts/') ? location : `/posts/${onX!.id}`)
    // Each profile's card on the post page lists its thread posts and first comment with their own state.
    expect(page.text).toContain('<ul class="items"><li>Thread post 2 <span class="chip')
    expect(page.text).toContain('<li>First comment <span class="chip')
  })

  it('sends copy for one profile as variants["linkedin:<profileId>"], and that profile’s post gets it', async () => {
    const created = await compose({
      intent: ['schedule'],
      content: ['Shared copy'],
      profile: ['twitter:tw-1', 'linkedin:li-1'],
      variant_linkedin: ['Copy for every LinkedIn profile'],
      'variant_linkedin:li-1': ['Copy for the acme-li page only'],
      ...later,
      date: ['2031-06-03'],
    })
    expect(created.status).toBe(303)
    const listed = (await h.call('list_posts', {})).body.posts as Array<{
      id: string
      platforms: string[]
      scheduleDate: string
    }>
    const linkedIn = listed.find((p) => p.platforms[0] === 'linkedin' && p.scheduleDate === '2031-06-03')
    const post = (await h.call('get_post', { id: linkedIn!.id })).body
    expect(post.content).toBe('Copy for the acme-li page only')
    expect(post.variants).toEqual({
      linkedin: 'Copy for every LinkedIn profile',
      'linkedin:li-1': 'Copy for the acme-li page only',
    })
  })

  it('creates a YouTube post only once the chosen visibility is confirmed', async () => {
    const video = await hosted(
      'short.mp4',
      'video/mp4',
      mp4File({ width: 1080, height: 1920, durationMs: 30_000 }),
    )
    const fields = {
      content: ['Behind the scenes'],
      profile: ['youtube:yt-1'],
      mediaUrls: [video],
      youtubeTitle: ['Behind the scenes at Acme'],
      youtubePrivacy: ['public'],
      ...later,
    }
    const checked = await liveCheck(fields)
    expect(checked.body.ok, checked.body.blockers.join('; ')).toBe(true)
    expect(checked.body.previewHtml).toContain(
      '<strong class="short-title">Behind the scenes at Acme</strong>',
    )
    expect(checked.body.previewHtml).toContain('Visibility: <strong>Public</strong>')
    const count = async () => (await h.call('list_posts', {})).body.counts.all as number
    const before = await count()
    const unconfirmed = await compose({ intent: ['schedule'], ...fields })
    expect(unconfirmed.status).toBe(400)
    expect(unconfirmed.text).toContain('Confirm that this video will be Public on YouTube')
    // A confirmation given for another visibility does not count.
    const stale = await compose({ intent: ['schedule'], ...fields, youtubeConfirm: ['private'] })
    expect(stale.status).toBe(400)
    expect(await count()).toBe(before)
    const created = await compose({ intent: ['schedule'], ...fields, youtubeConfirm: ['public'] })
    expect(created.status).toBe(303)
    const id = decodeURIComponent(created.location!.split('/posts/')[1]!)
    const post = (await h.call('get_post', { id })).body
    expect(post.youtube).toMatchObject({ title: 'Behind the scenes at Acme', privacyStatus: 'public' })
  })

  it('hosts an uploaded image and accepts its URL in a post, with no private-media setting', async () => {
    const form = await browser.get('/compose')
    const csrf = browser.csrf(form)
    const png = await sharp({
      create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer()
    const upload = (query: string, type: string, body: Buffer<ArrayBuffer>) =>
      fetch(`${h.baseUrl}/compose/upload?${query}`, {
        method: 'POST',
        headers: {
          'content-type': type,
          cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
        body,
      })
    expect((await upload('name=red.png', 'image/png', png)).status).toBe(403)
    expect((await upload(`name=notes.txt&csrf=${csrf}`, 'text/plain', Buffer.from('hello'))).status).toBe(415)
    const answer = await upload(`name=red%20square.png&csrf=${csrf}`, 'image/png', png)
    expect(answer.status).toBe(201)
    const { url } = (await answer.json()) as { url: string }
    expect(url).toMatch(/\/media\/[0-9a-f]{32}\/red-square\.png$/)
    const hosted = await fetch(new URL(new URL(url).pathname, h.baseUrl))
    expect(Buffer.from(await hosted.arrayBuffer()).equals(png)).toBe(true)
    const created = await h.call('create_post', {
      content: 'With an uploaded image',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      mediaUrl: url,
      scheduleDate: '2031-06-02',
      scheduleTime: '10:00',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
  })

  it('refuses a submission without its CSRF token', async () => {
    const forged = await browser.post(`${h.baseUrl}/compose`, {
      intent: ['now'],
      content: ['Forged'],
      profile: ['twitter:tw-1'],
      when: ['now'],
    })
    expect(forged.status).toBe(403)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'in Chromium: the check runs live beside each field, the preview follows, YouTube asks to confirm, the zone is the browser’s, a draft survives a reload',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
        timezoneId: 'America/New_York',
      })
      try {
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        await tab.goto(`${h.baseUrl}/login?next=%2Fcompose`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/compose$/)
        expect(await tab.getByLabel('Time zone').inputValue()).toBe('America/New_York')
        const check = tab.locator('#check')
        const allCounts = tab.locator('[data-field="copy:all"]')
        const publish = tab.getByRole('button', { name: 'Publish now' })
        const schedule = tab.getByRole('button', { name: 'Schedule' })
        expect(await tab.getByRole('button', { name: 'Check and preview' }).count()).toBe(0)
        const box = (name: string) => tab.getByRole('checkbox', { name, exact: true })
        const copy = tab.getByRole('textbox', { name: 'Copy', exact: true })

        // Typing: X past 280 shows as over, with Herald's warning (X premium takes more).
        await box('X @acme').check()
        await box('LinkedIn @acme-li').check()
        await copy.fill('x'.repeat(281))
        await expect
          .poll(() => allCounts.textContent(), slow)
          .toContain('X @acme: 281 / 280 characters (over)')
        await expect
          .poll(() => tab.getByRole('tab', { name: /X/ }).textContent(), slow)
          .toContain('281 / 280')

        // LinkedIn's own copy past 3,000 is a blocker in LinkedIn's tab: the buttons are disabled until it is shortened.
        await tab.getByRole('tab', { name: /LinkedIn/ }).click()
        const panel = tab.getByRole('tabpanel', { name: /LinkedIn/ })
        await panel.getByText('Copy for one profile').click()
        const linkedInCopy = tab.getByLabel('Copy for LinkedIn @acme-li only (empty: the copy for LinkedIn)')
        await linkedInCopy.fill('l'.repeat(3001))
        await expect
          .poll(() => panel.locator('.field-note').textContent(), slow)
          .toContain('LinkedIn allows 3000')
        expect(await publish.isDisabled()).toBe(true)
        const launch = `Launch day! Our new site is live, with ${'a calmer, faster way to plan your week, '.repeat(5)}and more.`
        await linkedInCopy.fill(launch)
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        expect(await panel.locator('.field-note').textContent()).toContain(
          `LinkedIn @acme-li: ${launch.length} / 3000`,
        )
        // Any edit disables the buttons until the check has run for exactly the new contents.
        await tab.getByRole('tab', { name: 'All' }).click()
        await copy.fill('Launch day! Our new site is live.')
        expect(await publish.isDisabled()).toBe(true)
        await expect.poll(() => allCounts.textContent(), slow).toContain('X @acme: 33 / 280')
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        expect(await tab.locator('#price-line').textContent()).toMatch(
          /^Ready · costs 6 credits · balance \d+$/,
        )

        // Two uploads at once: the tray and the preview show them in order, and LinkedIn's copy cut at "see more".
        const wide = await square(10, 90, 200, 320, 120)
        const tall = await square(220, 120, 20, 120, 320)
        await tab.getByLabel('Add media').setInputFiles([
          { name: 'wide.png', mimeType: 'image/png', buffer: wide },
          { name: 'tall.png', mimeType: 'image/png', buffer: tall },
        ])
        await expect.poll(() => tab.locator('#media-urls').inputValue(), slow).toContain('tall.png')
        const linkedInCard = tab.getByRole('article', { name: 'LinkedIn @acme-li' })
        await expect
          .poll(() => linkedInCard.locator('figcaption').allTextContents(), slow)
          .toEqual(['1 of 2', '2 of 2'])
        expect(
          await linkedInCard.getByRole('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt'))),
        ).toEqual(['wide.png', 'tall.png'])
        expect(await linkedInCard.locator('.more').textContent()).toBe('…see more')
        const shown = (await linkedInCard.locator('.copy').textContent()) ?? ''
        expect(shown).toBe(`${launch.slice(0, 210).trimEnd()} …see more`)

        // Schedule needs a date and a time.
        expect(await schedule.isDisabled()).toBe(true)
        await tab.getByLabel('Date', { exact: true }).fill('2031-07-01')
        await tab.getByLabel('Time', { exact: true }).fill('09:30')
        await expect.poll(() => schedule.isEnabled(), slow).toBe(true)

        // A reload keeps the draft (kept in the browser), and its check runs again.
        await tab.reload()
        expect(await tab.getByText('Your draft from before was put back.').isVisible()).toBe(true)
        expect(await copy.inputValue()).toBe('Launch day! Our new site is live.')
        expect(await box('LinkedIn @acme-li').isChecked()).toBe(true)
        expect(await tab.locator('#media-urls').inputValue()).toContain('tall.png')
        await expect.poll(() => schedule.isEnabled(), slow).toBe(true)

        // Ctrl+Enter presses Schedule, the highlighted button once a date and time are given.
        expect(await schedule.getAttribute('class')).toContain('primary')
        await copy.press('Control+Enter')
        await tab.waitForURL(/\/posts$/)
        const posts = (await h.call('list_posts', {})).body.posts as Array<{
          id: string
          platforms: string[]
          scheduleDate: string
          timezone: string
        }>
        const made = posts.filter((p) => p.scheduleDate === '2031-07-01')
        expect(made).toHaveLength(2)
        expect(made.every((p) => p.timezone === 'America/New_York')).toBe(true)
        const linkedInPost = made.find((p) => p.platforms[0] === 'linkedin')!
        const stored = (await h.call('get_post', { id: linkedInPost.id })).body
        expect(stored.content).toBe(launch)
        expect(stored.mediaUrls.map((u: string) => u.split('/').pop())).toEqual(['wide.png', 'tall.png'])

        // YouTube: the buttons stay disabled until "This video will be Public on YouTube" is ticked.
        await tab.goto(`${h.baseUrl}/compose`)
        expect(await tab.getByText('Your draft from before was put back.').isVisible()).toBe(false)
        await box('YouTube @acme-yt').check()
        await copy.fill('Behind the scenes')
        await tab.getByLabel('Add media').setInputFiles({
          name: 'short.mp4',
          mimeType: 'video/mp4',
          buffer: mp4File({ width: 1080, height: 1920, durationMs: 30_000 }),
        })
        await expect.poll(() => tab.locator('#media-urls').inputValue(), slow).toContain('short.mp4')
        await tab.getByLabel('Visibility').selectOption('public')
        const confirm = tab.getByLabel('This video will be Public on YouTube')
        expect(await confirm.isChecked()).toBe(false)
        await expect.poll(() => check.textContent(), slow).toContain('Ready to create.')
        expect(await publish.isDisabled()).toBe(true)
        await confirm.check()
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        // Changing the visibility takes the confirmation back.
        await tab.getByLabel('Visibility').selectOption('unlisted')
        expect(await tab.getByLabel('This video will be Unlisted on YouTube').isChecked()).toBe(false)
        expect(await publish.isDisabled()).toBe(true)
        await tab.getByLabel('Visibility').selectOption('public')
        await confirm.check()
        await expect.poll(() => publish.isEnabled(), slow).toBe(true)
        await publish.click()
        await tab.waitForURL(/\/posts\/[^/]+$/)
        const id = decodeURIComponent(new URL(tab.url()).pathname.split('/').pop()!)
        const video = (await h.call('get_post', { id })).body
        expect(video.youtube).toMatchObject({ privacyStatus: 'public' })
        expect(video.timezone).toBe('America/New_York')

        // A lone tall image on Instagram is cropped to 4:5 once the page knows its shape; on X to 16:9.
        await tab.goto(`${h.baseUrl}/compose`)
        await box('Instagram @acme-ig').check()
        await box('X @acme').check()
        await copy.fill('Tall')
        await tab
          .getByLabel('Add media')
          .setInputFiles({ name: 'tall.png', mimeType: 'image/png', buffer: tall })
        const shape = (name: string) =>
          tab
            .getByRole('article', { name })
            .locator('.media img')
            .evaluate((image) => {
              const box = image.getBoundingClientRect()
              return Math.round((box.width / box.height) * 100) / 100
            })
        // The preview follows the upload and a debounced check: give a loaded machine time.
        await expect.poll(() => shape('Instagram @acme-ig'), { timeout: 10_000 }).toBe(0.8)
        expect(await shape('X @acme')).toBe(1.78)
        // The thread shows for X; with Instagram alone it is hidden.
        expect(await tab.locator('#thread').isVisible()).toBe(true)
        await box('X @acme').uncheck()
        expect(await tab.locator('#thread').isVisible()).toBe(false)
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    120_000,
  )
})
