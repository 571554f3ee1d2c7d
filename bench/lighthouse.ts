import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import desktopConfig from 'lighthouse/core/config/desktop-config.js'
import { sandboxConnect } from '../src/modules/connections/sandbox-connect.js'
import { createBrowser } from '../test/helpers/browser.js'
import { CHROMIUM } from '../test/helpers/chromium.js'
import { startHarness } from '../test/helpers/harness.js'

/**
 * Lighthouse 12.2.3 (pinned: the version that runs here with Debian's Chromium), desktop preset, on the
 * pages a manager spends the day in, signed in (the session cookie sent with every request), on a sandbox
 * Herald with connected profiles and a few scheduled and published posts. Scores are Lighthouse's own
 * (0-100); performance is simulated throttling on 127.0.0.1, so it measures what the page ships and does,
 * not the network.
 */

export const LIGHTHOUSE_PAGES = ['/compose', '/posts', '/calendar', '/analytics'] as const

export interface LighthouseRow {
  page: string
  performance: number
  accessibility: number
  bestPractices: number
}

const score = (value: number | null | undefined) => Math.round((value ?? 0) * 100)

export async function benchLighthouse(): Promise<LighthouseRow[]> {
  const h = await startHarness({ sandbox: true, credits: 500, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
  const profile = await mkdtemp(path.join(tmpdir(), 'herald-lighthouse-'))
  let chrome: chromeLauncher.LaunchedChrome | undefined
  try {
    await seedPosts(h)
    const browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM.executablePath,
      chromeFlags: CHROMIUM.args,
      userDataDir: profile,
    })
    const rows: LighthouseRow[] = []
    for (const page of LIGHTHOUSE_PAGES) {
      const result = await lighthouse(
        `${h.baseUrl}${page}`,
        {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility', 'best-practices'],
          extraHeaders: { cookie },
        },
        desktopConfig,
      )
      const categories = result?.lhr.categories ?? {}
      rows.push({
        page,
        performance: score(categories.performance?.score),
        accessibility: score(categories.accessibility?.score),
        bestPractices: score(categories['best-practices']?.score),
      })
    }
    return rows
  } finally {
    chrome?.kill()
    await rm(profile, { recursive: true, force: true })
    await h.close()
  }
}

/** Three profiles and a week of posts: some scheduled, one with a first comment, so every page has rows. */
async function seedPosts(h: Awaited<ReturnType<typeof startHarness>>) {
  const profiles = []
  for (const [network, username] of [
    ['twitter', 'lighthouse_x'],
    ['linkedin', 'Lighthouse Member'],
    ['bluesky', 'lighthouse.bsky.social'],
  ] as const)
    profiles.push((await sandboxConnect(h.app, { workspaceId: h.workspaceId, network, username })).profileId)
  const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
  for (let i = 0; i < 6; i++) {
    const created = await h.call('create_post', {
      content: `A week of bread, day ${i + 1}: what came out of the oven, and why it rose`,
      targetAccounts: [
        { platform: 'twitter', profileId: profiles[0] },
        { platform: 'linkedin', profileId: profiles[1] },
        { platform: 'bluesky', profileId: profiles[2] },
      ],
      scheduleDate: day,
      scheduleTime: `${String(9 + i).padStart(2, '0')}:00`,
      timezone: 'UTC',
    })
    if (created.status !== 200) throw new Error(`create_post: ${JSON.stringify(created.body)}`)
  }
}
