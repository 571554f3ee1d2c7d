import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { CHROMIUM } from './chromium.js'

export interface SignedInTab {
  tab: Page
  /** Script errors the page threw. */
  errors: string[]
  close(): Promise<void>
}

/**
 * A Chromium tab signed in through the login form as `who`, on `next` (the page under test): the browser
 * tests of single pages start here, then look at the page with lookAt.
 */
export async function openSignedIn(
  baseUrl: string,
  who: { email: string; password: string },
  next: string,
): Promise<SignedInTab> {
  const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM,
    viewport: { width: 1366, height: 900 },
  })
  const tab = await context.newPage()
  const errors: string[] = []
  tab.on('pageerror', (error) => errors.push(error.message))
  await tab.goto(`${baseUrl}/login?next=${encodeURIComponent(next)}`)
  await tab.getByLabel('Email').fill(who.email)
  await tab.getByLabel('Password').fill(who.password)
  await tab.getByRole('button', { name: /sign in/i }).click()
  await tab.waitForURL((url) => url.pathname === next.split('?')[0])
  return {
    tab,
    errors,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
