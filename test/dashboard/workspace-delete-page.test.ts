import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'

/**
 * Deleting a workspace in a browser, in sandbox mode: the confirmation and then the page that says, per
 * profile, what its network answered (X withdrew Herald's access at the simulator, Bluesky offers no way),
 * both looked at at desktop and phone widths, light and dark, and clean for axe-core.
 */
describe('the workspace deletion pages in a browser', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, credits: 100, prePickPort: true })
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'twitter', username: 'acme_x' })
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'bluesky',
      username: 'acme.bsky.social',
    })
  }, 60_000)
  afterAll(() => h?.close())

  it.runIf(existsSync('/usr/bin/chromium'))(
    'asks for the name, then lists what each network answered, clean for axe-core at both widths',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1366, height: 900 },
        bypassCSP: true,
      })
      try {
        const tab = await context.newPage()
        await tab.goto(`${h.baseUrl}/login?next=%2Fworkspace%2Fdelete`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/workspace\/delete$/)
        expect(await lookAt(tab, 'workspace-delete-confirm')).toEqual([])
        await tab.getByLabel(/Type the workspace's name/).fill('Acme')
        await tab.getByRole('button', { name: 'Delete Acme' }).click()
        await tab.getByRole('heading', { name: 'Acme is deleted' }).waitFor()
        const text = await tab.locator('main').textContent()
        expect(text).toContain("X @acme_x: X confirmed Herald's access is withdrawn.")
        expect(text).toContain(
          'Bluesky @acme.bsky.social: Bluesky does not let an app withdraw its own access',
        )
        expect(await lookAt(tab, 'workspace-deleted')).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
