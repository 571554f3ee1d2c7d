import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * Every page the dashboard shows needs a signed-in person, and every change it takes checks the session and
 * the form's CSRF token. The routes are the ones Fastify registered (the server's `onRoute` list), so a page
 * or a POST added to the dashboard is checked here without being named; only the other surfaces, which have
 * their own authentication, are left out, and the routes open to visitors without a session are named, each
 * with its own answer.
 */
const OTHER_SURFACES: Array<[string, RegExp]> = [
  ['the API (API keys and OAuth tokens)', /^\/api\//],
  ['MCP', /^\/(mcp|messages)(\/|$)/],
  ["the OAuth server's own endpoints (the consent form is the dashboard's)", /^\/oauth\/(?!consent\/)/],
  ['the network simulators', /^\/sandbox\//],
]

/** What the server shows besides the dashboard, open to anyone or behind its own authentication. */
const OTHER_PAGES = /^\/(healthz|readyz|openapi\.json|docs|\.well-known\/|media\/|mcp$|sse$)/

/** Pages open to a visitor without a session, with their answer to one (this Herald has its owner). */
const PAGES_FOR_VISITORS: Record<string, string> = {
  '/favicon.ico': '204',
  // No such bundled file.
  '/assets/:file': '404',
  // Signed out: to the sign-in page, which comes back to the posts.
  '/': '303 /login?next=%2Fposts',
  '/login': '200',
  // Set up already: to the sign-in page.
  '/setup': '303 /login',
  // The network's answer finishes a connection only for the person who started it.
  '/connect/:network/callback': '401',
  // A video's poster frame is a picture in a page, not a page: it answers 401 rather than the sign-in page.
  '/compose/poster/:id/:name': '401',
}

/** Open to a visitor without a session; each checks its own double-submit token, or refuses outright. */
const OPEN_TO_VISITORS: Record<string, number> = {
  '/login': 403,
  '/login/invitation': 403,
  // This Herald has its owner already: setting up again is refused before any token is looked at.
  '/setup': 409,
}

/** A plausible value for each route parameter (the guard runs before the handler reads any). */
const PARAMS: Record<string, string> = {
  id: 'ffffffffffffffffffffffff',
  network: 'twitter',
  action: 'delete',
  answer: 'accept',
  uid: 'no-such-interaction',
}

const fill = (url: string) => url.replace(/:(\w+)/g, (_, name: string) => PARAMS[name] ?? 'x')

describe("the dashboard's sign-in guard", () => {
  let h: Harness
  let browser: Browser
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const changes = () =>
    [
      ...new Set(
        h.routes
          .filter((route) => route.startsWith('POST '))
          .map((route) => route.slice('POST '.length))
          .filter((url) => !OTHER_SURFACES.some(([, pattern]) => pattern.test(url))),
      ),
    ].sort()

  const post = (url: string, cookie: string | undefined) =>
    fetch(`${h.baseUrl}${fill(url)}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { cookie } : {}),
      },
      body: 'note=x',
    })

  const pages = () =>
    [
      ...new Set(
        h.routes
          .filter((route) => route.startsWith('GET '))
          .map((route) => route.slice('GET '.length))
          .filter(
            (url) => !OTHER_SURFACES.some(([, pattern]) => pattern.test(url)) && !OTHER_PAGES.test(url),
          ),
      ),
    ].sort()

  const get = (url: string, cookie: string | undefined) =>
    fetch(`${h.baseUrl}${url}`, { redirect: 'manual', headers: cookie ? { cookie } : {} })

  it("finds the dashboard's pages among the registered routes", () => {
    const found = pages()
    expect(found.length).toBeGreaterThan(25)
    for (const url of [
      '/posts',
      '/compose',
      '/oauth/consent/:uid',
      '/webhooks/:id',
      ...Object.keys(PAGES_FOR_VISITORS),
    ])
      expect(found).toContain(url)
  })

  it('sends a visitor without a session from every page to the sign-in page and back to the same address', async () => {
    const answers: Record<string, string> = {}
    const expected: Record<string, string> = {}
    for (const url of pages()) {
      const address = `${fill(url)}?from=guard`
      const answer = await get(address, undefined)
      answers[url] = `${answer.status} ${answer.headers.get('location') ?? ''}`.trim()
      expected[url] = PAGES_FOR_VISITORS[url] ?? `303 /login?next=${encodeURIComponent(address)}`
    }
    expect(answers).toEqual(expected)
  })

  it('lets a signed-in person through to every page', async () => {
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    for (const url of pages().filter((url) => !(url in PAGES_FOR_VISITORS))) {
      const answer = await get(fill(url), cookie)
      expect(answer.headers.get('location') ?? '', url).not.toMatch(/^\/login/)
      expect(answer.status, url).toBeLessThan(500)
    }
  })

  it("finds the dashboard's changes among the registered routes", () => {
    const found = changes()
    expect(found.length).toBeGreaterThan(40)
    for (const url of ['/compose', '/compose/upload', '/connect/:network', '/oauth/consent/:uid', '/logout'])
      expect(found).toContain(url)
    for (const url of Object.keys(OPEN_TO_VISITORS)) expect(found).toContain(url)
  })

  it('refuses every change from a signed-in person without the CSRF token with 403', async () => {
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const answers: Record<string, number> = {}
    for (const url of changes()) answers[url] = (await post(url, cookie)).status
    const expected = Object.fromEntries(changes().map((url) => [url, OPEN_TO_VISITORS[url] ?? 403]))
    expect(answers).toEqual(expected)
  })

  it('refuses every change without a session: to the sign-in page, 401 for a page script, or its own check', async () => {
    const refused: Record<string, string> = {}
    for (const url of changes()) {
      const answer = await post(url, undefined)
      const location = answer.headers.get('location') ?? ''
      refused[url] =
        url in OPEN_TO_VISITORS
          ? String(answer.status)
          : answer.status === 303 && /^\/login(\?|$)/.test(location)
            ? 'sign in'
            : answer.status === 401
              ? 'signed out'
              : `${answer.status} ${location}`
    }
    for (const [url, outcome] of Object.entries(refused)) {
      if (url in OPEN_TO_VISITORS) expect(outcome, url).toBe(String(OPEN_TO_VISITORS[url]))
      else expect(['sign in', 'signed out'], url).toContain(outcome)
    }
  })

  it('still signs a person out with the token, and signs nobody out without it', async () => {
    const other = createBrowser(h.baseUrl)
    const posts = await other.login(h.email, h.password)
    expect((await other.post('/logout', {})).status).toBe(403)
    expect((await other.get('/posts')).status).toBe(200)
    const out = await other.post('/logout', { csrf: other.csrf(posts) })
    expect(out.status).toBe(303)
    expect((await other.get('/posts')).status).toBe(303)
  })
})
