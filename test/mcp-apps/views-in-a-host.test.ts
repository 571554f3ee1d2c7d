import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { build } from 'esbuild'
import { type BrowserContext, chromium, type Frame, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import { createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { accessibilityProblems } from '../helpers/look-at.js'
import {
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  metadataDocument,
  obtainTokens,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'
import { projectRoot, screenshotDir } from '../helpers/reference.js'
import { manage } from '../helpers/team.js'
import { startServer, type TestServer } from '../media/servers.js'

type Result = Record<string, any>

/**
 * The views as an assistant shows them: a test host page with the extension SDK's own AppBridge renders each
 * view in a sandboxed iframe in headless Chromium, feeds it a real tool result from a sandbox Herald, and
 * clicks through; the view's calls go back through the bridge to Herald over MCP. The oracles are Herald's
 * tools (list_posts counts what Schedule made) and the network simulator (what Retry sent).
 */
describe('MCP Apps views in a host', () => {
  let h: Harness
  let worker: Worker
  let mcp: Client
  /** The same host connected with an OAuth token granted `posts:read` only. */
  let readOnly: Client
  let documents: DocumentServer
  let callback: CallbackServer
  let hostPage: TestServer
  let context: BrowserContext
  let tab: Page
  let profileDir: string
  let failBluesky = false
  let retriedPostId = ''
  let publishedPostId = ''
  const requests: string[] = []
  const errors: string[] = []

  const call = async (name: string, args: Record<string, unknown>) =>
    (await mcp.callTool({ name, arguments: args })) as Result
  const answer = async (name: string, args: Record<string, unknown>) =>
    (await call(name, args)).structuredContent

  /** Reads the view, makes the real call, and has the host render the view with both; answers the frame. */
  async function show(
    uri: string,
    tool: string,
    args: Record<string, unknown>,
    look: { theme?: 'light' | 'dark'; mode?: 'inline' | 'fullscreen'; as?: Client } = {},
  ): Promise<Frame> {
    const client = look.as ?? mcp
    const html = ((await client.readResource({ uri })).contents[0] as { text: string }).text
    const result = await client.callTool({ name: tool, arguments: args })
    const mode = look.mode ?? 'inline'
    const size = mode === 'inline' ? { width: 600, height: 400 } : { width: 1200, height: 800 }
    await tab.setViewportSize({ width: size.width + 40, height: size.height + 40 })
    await tab.evaluate((mount) => window.mountView(mount), {
      html,
      input: args,
      result,
      theme: look.theme ?? 'light',
      mode,
      ...size,
    })
    const frame = await (await tab.locator('#frame').elementHandle())?.contentFrame()
    if (!frame) throw new Error('the view has no frame')
    await frame.locator('main h1').waitFor()
    return frame
  }

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    h = await startHarness({
      sandbox: true,
      credits: 200,
      env: { HERALD_IMMEDIATE_WAIT_MS: '20000', HERALD_ALLOW_PRIVATE_MEDIA: '1' },
      oauthMetadataFetcher: documentFetcher,
      faults: {
        decide: (c) =>
          failBluesky && c.network === 'bluesky' && c.effectful
            ? {
                timing: 'before',
                answer: {
                  kind: 'status',
                  status: 400,
                  body: { error: 'InvalidRequest', message: 'Record text too long' },
                },
              }
            : undefined,
      },
    })
    worker = createAppWorker(h.app, { id: 'apps-worker' })
    worker.start()
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'twitter', username: 'lemoncake' })
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'bluesky',
      username: 'lemoncake.bsky.social',
    })
    mcp = new Client({ name: 'apps-host-test', version: '1.0.0' })
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    const signedIn = createBrowser(h.baseUrl)
    await signedIn.login(h.email, h.password)
    const clientId = documents.url('/client.json')
    documents.set('/client.json', metadataDocument(clientId, callback.redirectUri))
    const token = await obtainTokens(
      signedIn,
      h,
      { clientId, redirectUri: callback.redirectUri },
      { scope: 'posts:read', resource: h.baseUrl },
    )
    readOnly = new Client({ name: 'apps-host-read-only', version: '1.0.0' })
    await readOnly.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token.access_token}` } },
      }),
    )
    const bundle = await build({
      entryPoints: [path.join(projectRoot, 'test/mcp-apps/host-page.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2022',
      logLevel: 'warning',
    })
    const script = bundle.outputFiles[0]?.text ?? ''
    hostPage = await startServer((req, res) => {
      if (req.url === '/host.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
        return
      }
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><html lang="en"><head><title>Test host</title></head><body><script type="module" src="/host.js"></script></body></html>',
        )
    })
    profileDir = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    context = await chromium.launchPersistentContext(profileDir, {
      ...CHROMIUM,
      viewport: { width: 640, height: 440 },
    })
    tab = await context.newPage()
    tab.on('pageerror', (error) => errors.push(error.message))
    context.on('request', (request) => requests.push(request.url()))
    await tab.exposeFunction('heraldCall', (params: { name: string; arguments?: Record<string, unknown> }) =>
      mcp.callTool({ name: params.name, arguments: params.arguments ?? {} }),
    )
    await tab.goto(hostPage.url)
    await tab.waitForFunction(() => typeof window.mountView === 'function')
  }, 90_000)
  afterAll(async () => {
    await context?.close()
    if (profileDir) rmSync(profileDir, { recursive: true, force: true })
    await mcp?.close()
    await readOnly?.close()
    await documents?.close()
    await callback?.close()
    await worker?.stop()
    await h?.close()
    await hostPage?.close()
  })

  it('previews a post to two networks, and Schedule creates it through the host, counted by list_posts', async () => {
    const before = (await answer('list_posts', {})).pagination.totalPosts
    const draft = {
      content: 'The lemon cake is back on Friday <3',
      platforms: ['twitter', 'bluesky'],
      scheduleDate: '2031-06-06',
      scheduleTime: '09:00',
    }
    const view = await show('ui://herald/compose.html', 'preflight_post', draft)
    const cards = view.locator('.previews article')
    await expect.poll(() => cards.count()).toBe(2)
    expect(await cards.first().textContent()).toContain('The lemon cake is back on Friday <3')
    expect(await view.getByText('Goes out 2031-06-06 09:00').count()).toBe(1)
    await view.getByRole('button', { name: 'Schedule' }).click()
    await view.getByRole('heading', { name: 'Post created' }).waitFor()
    const after = await answer('list_posts', {})
    expect(after.pagination.totalPosts).toBe(before + 2)
    expect(
      after.posts.filter((p: Result) => p.content === draft.content).map((p: Result) => p.status),
    ).toEqual(['scheduled', 'scheduled'])
  })

  it('says the slot on the person’s own clock when the post is set in another zone', async () => {
    const view = await show('ui://herald/compose.html', 'preflight_post', {
      content: 'Croissants in Paris',
      platforms: ['twitter'],
      scheduleDate: '2031-06-06',
      scheduleTime: '09:00',
      timezone: 'Europe/Paris',
    })
    expect(await view.locator('.slot').textContent()).toBe(
      'Goes out 2031-06-06 09:00 Europe/Paris (03:00 your time, America/New_York)',
    )
  })

  it('shows a posts:read token the preview with Check again but no Schedule or Publish now', async () => {
    const draft = {
      content: 'Read-only look',
      platforms: ['twitter'],
      scheduleDate: '2031-06-08',
      scheduleTime: '09:00',
    }
    const view = await show('ui://herald/compose.html', 'preflight_post', draft, { as: readOnly })
    await expect.poll(() => view.locator('.previews article').count()).toBe(1)
    expect(await view.getByRole('button', { name: 'Check again' }).count()).toBe(1)
    expect(await view.getByRole('button', { name: 'Schedule' }).count()).toBe(0)
    expect(await view.getByRole('button', { name: 'Publish now' }).count()).toBe(0)
  })

  it('checks an edited copy again before it lets Schedule create the post', async () => {
    const draft = {
      content: 'Opening hours change',
      platforms: ['twitter'],
      scheduleDate: '2031-06-07',
      scheduleTime: '10:00',
    }
    const view = await show('ui://herald/compose.html', 'preflight_post', draft)
    await view.getByText('Change the copy or the profiles').click()
    await view.getByLabel('Copy', { exact: true }).fill('Opening hours change from Monday')
    expect(await view.getByRole('button', { name: 'Schedule' }).isDisabled()).toBe(true)
    await view.getByRole('button', { name: 'Check again' }).click()
    await expect.poll(() => view.getByRole('button', { name: 'Schedule' }).isDisabled()).toBe(false)
    expect(await view.locator('.previews').textContent()).toContain('Opening hours change from Monday')
  })

  it('shows a failed profile with its error, and Retry failed profiles sends it again through the host', async () => {
    failBluesky = true
    const created = await answer('create_post', {
      content: 'Fresh bread at eight',
      platforms: ['bluesky'],
      publishImmediately: true,
    })
    retriedPostId = created.postIds[0]
    expect((await answer('get_post', { id: retriedPostId })).targets[0].status).toBe('failed')
    const view = await show('ui://herald/status.html', 'get_post', { id: retriedPostId })
    expect(await view.getByText('Record text too long').count()).toBe(1)
    // Said as a person reads it: the network's sentence, not the API's method or status.
    expect(await view.locator('.error').first().textContent()).toBe(
      'Bluesky refused the post: Record text too long',
    )
    failBluesky = false
    await view.getByRole('button', { name: 'Retry failed profiles (1)' }).click()
    await view.locator('.chip.ok', { hasText: 'Published' }).first().waitFor()
    const post = await answer('get_post', { id: retriedPostId })
    expect(post.targets[0].status).toBe('published')
    // The network's own record: the simulator now holds the post.
    const state = (await (await fetch(`${h.baseUrl}/sandbox/bluesky/_sandbox/state`)).json()) as Record<
      string,
      any[]
    >
    expect(JSON.stringify(state)).toContain('Fresh bread at eight')
    // The live link opens through the host, never by the frame itself.
    await view.getByRole('button', { name: 'Open the live post' }).click()
    await expect.poll(() => tab.evaluate(() => window.opened)).toEqual([post.targets[0].url])
  })

  it('lists the queue by day with the free posting times, and opens a post’s status through the host', async () => {
    const queue = await manage(h, 'POST', '/api/queues', {
      platform: 'twitter',
      profile: 'lemoncake',
      timezone: 'UTC',
      slots: ['daily 09:00'],
    })
    expect(queue.status).toBe(200)
    const view = await show('ui://herald/queue.html', 'list_posts', {})
    expect(await view.getByRole('heading', { name: /June/ }).count()).toBeGreaterThan(0)
    // The queue's free times show as free slots (dashed, and said in words), never as posts.
    await view.getByText('Free slot').first().waitFor()
    expect(await view.locator('.row.free').count()).toBeGreaterThan(0)
    expect(await view.locator('.row.free').first().textContent()).toContain('X @lemoncake')
    // Each profile carries its network's mark (the dashboard's icon, drawn from the page's own data).
    expect(await view.locator('svg.mark.net-twitter path').first().getAttribute('d')).toMatch(/^M/)
    await view
      .getByRole('button', { name: /The lemon cake is back/ })
      .first()
      .click()
    await view.getByRole('region', { name: 'What happened' }).waitFor()
  })

  it('lays the queue out as a week calendar when expanded, asking the host for the room from inline', async () => {
    const view = await show('ui://herald/queue.html', 'list_posts', {})
    expect(await view.locator('.week').count()).toBe(0)
    await view.getByRole('button', { name: 'See the week as a calendar' }).click()
    const weeks = view.getByRole('region', { name: /^Week of / })
    await weeks.first().waitFor()
    expect(await tab.evaluate(() => window.modes.at(-1))).toBe('fullscreen')
    // Seven days a week, Monday first, the free times and the posts in their days.
    expect(await weeks.first().locator('.week-days > li').count()).toBe(7)
    expect(await weeks.first().locator('h3').first().getAttribute('aria-label')).toMatch(/^Monday/)
    expect(await view.locator('.week .row.free').count()).toBeGreaterThan(0)
    await view.getByRole('button', { name: 'Show as a list' }).click()
    await view.locator('section.day').first().waitFor()
    await view.getByRole('button', { name: 'Show as a week calendar' }).click()
    await view
      .locator('.week')
      .getByRole('button', { name: /The lemon cake is back/ })
      .first()
      .click()
    await view.getByRole('region', { name: 'What happened' }).waitFor()
  })

  it('shows stored analytics free and reads them again only on Refresh (1 credit)', async () => {
    const created = await answer('create_post', {
      content: 'Analytics for the cake',
      platforms: ['twitter'],
      publishImmediately: true,
    })
    publishedPostId = created.postIds[0]
    const balance = async () => (await answer('get_user_info', {})).credits.balance
    const before = await balance()
    const view = await show('ui://herald/analytics.html', 'get_post_analytics', { id: publishedPostId })
    expect(await balance()).toBe(before)
    await view.getByRole('button', { name: 'Refresh (1 credit)' }).click()
    await view.getByText(/^Read \d{4}-/).waitFor()
    expect(await balance()).toBe(before - 1)
  })

  it('takes the host’s theme, font stack and font rules', async () => {
    const view = await show('ui://herald/queue.html', 'list_posts', {}, { theme: 'dark' })
    const looks = await view.evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      font: getComputedStyle(document.body).fontFamily,
      faces: [...document.fonts].map((face) => face.family.replace(/"/g, '')),
    }))
    expect(looks.theme).toBe('dark')
    expect(looks.font).toContain('Host Sans')
    expect(looks.faces).toContain('Host Sans')
  })

  it('is photographed inline and expanded, light and dark, with no serious accessibility finding', async () => {
    const shots = screenshotDir()
    failBluesky = true
    const failed = await answer('create_post', {
      content: 'Sourdough is sold out today',
      platforms: ['bluesky'],
      publishImmediately: true,
    })
    failBluesky = false
    const cases: Array<[string, string, string, Record<string, unknown>]> = [
      [
        'compose',
        'ui://herald/compose.html',
        'preflight_post',
        {
          content: 'The lemon cake is back on Friday. Come early!',
          platforms: ['twitter', 'bluesky'],
          scheduleDate: '2031-06-13',
          scheduleTime: '09:00',
        },
      ],
      ['queue', 'ui://herald/queue.html', 'list_posts', {}],
      ['status', 'ui://herald/status.html', 'get_post', { id: failed.postIds[0] }],
      ['analytics', 'ui://herald/analytics.html', 'get_post_analytics', { id: publishedPostId }],
    ]
    const findings: string[] = []
    for (const [name, uri, tool, args] of cases)
      for (const mode of ['inline', 'fullscreen'] as const)
        for (const theme of ['light', 'dark'] as const) {
          const view = await show(uri, tool, args, { theme, mode })
          const file = `mcp-app-${name}-${mode === 'inline' ? 'inline' : 'expanded'}${theme === 'dark' ? '-dark' : ''}.png`
          await tab.locator('#frame').screenshot({ path: path.join(shots, file) })
          for (const problem of await accessibilityProblems(view as unknown as Page))
            findings.push(`${file}: ${problem}`)
        }
    expect(findings).toEqual([])
  })

  it('loads nothing from any address but Herald’s and the host page’s, and throws no script error', () => {
    const allowed = [new URL(h.baseUrl).origin, new URL(hostPage.url).origin]
    const elsewhere = requests.filter(
      (url) =>
        !url.startsWith('data:') && !url.startsWith('about:') && !allowed.includes(new URL(url).origin),
    )
    expect(elsewhere).toEqual([])
    expect(errors).toEqual([])
  })
})
