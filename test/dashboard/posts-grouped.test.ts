import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { fail, type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'

/** The Posts list as composes: the posts one create_post made are one row, found by its filters. */
describe.each(backends)('the Posts list grouped by compose ($name)', (backend) => {
  let h: Harness
  let browser: Browser
  let twitter: ScriptedAdapter

  beforeAll(async () => {
    twitter = scriptedAdapter('twitter')
    h = await startHarness({
      backend,
      adapters: { twitter, bluesky: scriptedAdapter('bluesky'), threads: scriptedAdapter('threads') },
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
    await connectProfile(h, 'threads', 'th-1', 'acme_threads')
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const create = async (content: string, profiles: Array<[string, string]>, date = '2031-05-01') => {
    const res = await h.call('create_post', {
      content,
      targetAccounts: profiles.map(([platform, profileId]) => ({ platform, profileId })),
      scheduleDate: date,
      scheduleTime: '09:00',
      timezone: 'Europe/Paris',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.postIds as string[]
  }
  const rows = (html: string) => html.match(/<li class="compose">/g)?.length ?? 0
  const all: Array<[string, string]> = [
    ['twitter', 'tw-1'],
    ['bluesky', 'bs-1'],
    ['threads', 'th-1'],
  ]

  it('shows one row with three status chips for a compose to three profiles', async () => {
    const ids = await create('Three networks at once\nsecond line stays off the list', all)
    const list = await browser.get('/posts')
    expect(list.status).toBe(200)
    expect(rows(list.text)).toBe(1)
    expect(list.text).toContain(`<a href="/posts/${ids[0]}">Three networks at once</a>`)
    expect(list.text).not.toContain('second line stays off the list')
    const row = list.text.slice(list.text.indexOf('<li class="compose">'))
    const chips = row.slice(0, row.indexOf('</ul>')).match(/class="profile-chip"/g)
    expect(chips).toHaveLength(3)
    expect(row).toContain('X @acme:')
    expect(row).toContain('Bluesky @acme.bsky.social:')
    expect((row.slice(0, row.indexOf('</ul>')).match(/Scheduled/g) ?? []).length).toBe(3)
    // The three posts share one compose id; list_posts pages by compose when asked.
    const api = await h.call('list_posts', { byCompose: true })
    expect(api.status).toBe(200)
    expect(new Set(api.body.posts.map((p: { composeId: string }) => p.composeId))).toEqual(new Set([ids[0]]))
    expect(api.body.pagination.totalComposes).toBe(1)
    expect(api.body.pagination.totalPosts).toBe(3)
  })

  it('narrows the list by status, network, profile, dates and words in the copy', async () => {
    await create('Only on X, about the harbour', [['twitter', 'tw-1']], '2031-06-10')
    await create('Bluesky and Threads about the 50%_sale', [all[1]!, all[2]!], '2031-07-20')
    expect(rows((await browser.get('/posts')).text)).toBe(3)
    const only = async (query: string) => {
      const page = await browser.get(`/posts?${query}`)
      expect(page.status).toBe(200)
      return [...page.text.matchAll(/<h2 class="compose-title"><a href="[^"]+">([^<]+)<\/a>/g)].map(
        (m) => m[1],
      )
    }
    expect(await only('q=HARBOUR')).toEqual(['Only on X, about the harbour'])
    expect(await only('q=50%25_sale')).toEqual(['Bluesky and Threads about the 50%_sale'])
    expect(await only('q=0%25s')).toEqual([])
    expect(await only('network=bluesky')).toEqual([
      'Bluesky and Threads about the 50%_sale',
      'Three networks at once',
    ])
    expect(await only('profile=tw-1&from=2031-06-01')).toEqual(['Only on X, about the harbour'])
    expect(await only('from=2031-05-02&to=2031-06-30')).toEqual(['Only on X, about the harbour'])
    expect(await only('status=draft')).toEqual([])
    const filtered = await browser.get('/posts?network=bluesky&q=about')
    expect(filtered.text).toContain('<option value="bluesky" selected>')
    expect(filtered.text).toContain('value="about"')
  })

  it('keeps the filters in the pager', async () => {
    for (let i = 0; i < 21; i++) await create(`Pager post ${i}`, [['twitter', 'tw-1']], '2031-08-01')
    const first = await browser.get('/posts?q=pager&network=twitter')
    expect(rows(first.text)).toBe(20)
    expect(first.text.match(/<nav class="pager".*?<\/nav>/)?.[0]).toContain(
      'href="/posts?network=twitter&amp;q=pager&amp;page=2"',
    )
    const second = await browser.get('/posts?network=twitter&q=pager&page=2')
    expect(rows(second.text)).toBe(1)
    expect(second.text).toContain('Pager post 0')
  })

  it('titles a post page by its copy and offers the fix for a failed profile', async () => {
    twitter.script.push(
      fail('auth_expired', 'The token was revoked'),
      fail('auth_expired', 'The token was revoked'),
    )
    const res = await h.call('create_post', {
      content: 'Launch day is here\nwith details below',
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      publishImmediately: true,
    })
    const id = res.body.postIds[0] as string
    const worker = createAppWorker(h.app, { id: `grouped-${backend.name}` })
    await worker.tick()
    await worker.idle()
    await h.app.store.db
      .updateTable('connections')
      .set({ status: 'needs_reconnect' })
      .where('profile_id', '=', 'tw-1')
      .execute()
    const shown = await browser.get(`/posts/${id}`)
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('<title>Launch day is here')
    expect(shown.text).toContain('<h1>Launch day is here</h1>')
    expect(shown.text).not.toContain(`Post ${id}`)
    expect(shown.text).toContain('The token was revoked')
    expect(shown.text).toContain('<a class="button primary" href="/channels">')
    expect(shown.text).toMatch(/Reconnect X @acme<\/a>/)
    expect(shown.text).toContain(`action="/posts/${id}/retry"`)
    expect(shown.text).toMatch(/Retry<\/button>/)
    expect(shown.text).not.toContain('@@')
    // Its history, in words: made, then the send X refused, in X's words.
    const history = shown.text.slice(shown.text.indexOf('id="history-head"'))
    expect(history).toMatch(
      /Created<\/span>.*Sent to X @acme: refused<span class="detail">The token was revoked<\/span>/s,
    )
  })
})
