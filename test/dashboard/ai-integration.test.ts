import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'

/** The AI Integration page: a person's API keys, made and revoked in a browser, and setup to paste. */
describe('AI Integration', () => {
  let h: Harness
  let browser: Browser

  beforeAll(async () => {
    h = await startHarness({ prePickPort: true })
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
  })
  afterAll(() => h.close())

  const keyIn = (html: string) => /id="new-key" type="text" readonly value="(hk_[^"]+)"/.exec(html)?.[1]
  const rest = (key: string) =>
    fetch(`${h.baseUrl}/api/tools/get_user_info`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    })

  it('creates a key shown once, which works for a REST call, lists it, and revokes it so it is refused', async () => {
    const form = await browser.get('/integration')
    expect(form.status).toBe(200)
    expect(form.text).toContain(`${h.app.config.publicBaseUrl}/mcp`)
    expect(form.text).toContain('href="/openapi.json"')
    const created = await browser.post(`${h.baseUrl}/integration/keys`, {
      csrf: [browser.csrf(form)],
      name: ['Agent on my laptop'],
      workspaceId: [h.workspaceId],
    })
    expect(created.status).toBe(200)
    const key = keyIn(created.text)!
    expect(key).toMatch(/^hk_/)
    // The setup snippets carry the new key and this Herald's address.
    expect(created.text.split(key).length - 1).toBe(4)
    expect((await rest(key)).status).toBe(200)

    const listed = await browser.get('/integration')
    expect(listed.text).toContain('Agent on my laptop')
    expect(listed.text).not.toContain(key)
    const row = await h.app.store.db
      .selectFrom('api_keys')
      .select(['id', 'key_hash', 'last_used_at'])
      .where('name', '=', 'Agent on my laptop')
      .executeTakeFirstOrThrow()
    expect(row.key_hash).not.toContain(key)
    expect(row.last_used_at).not.toBeNull()

    const revoked = await browser.post(`${h.baseUrl}/integration/keys/revoke`, {
      csrf: [browser.csrf(listed)],
      keyId: [row.id],
    })
    expect(revoked.status).toBe(200)
    expect(revoked.text).toContain('Revoked the key')
    expect((await rest(key)).status).toBe(401)
  })

  it('shows the OAuth setup for Claude, ChatGPT, Claude Code and VS Code with this Herald’s URL', async () => {
    const page = await browser.get('/integration')
    const mcp = `${h.app.config.publicBaseUrl}/mcp`
    expect(page.text).toContain('Connected apps')
    expect(page.text).toContain(`<code id="setup-claude">${mcp}</code>`)
    expect(page.text).toContain(`<code id="setup-chatgpt">${mcp}</code>`)
    expect(page.text).toContain(`claude mcp add --transport http herald ${mcp}</code>`)
    expect(page.text).toContain(
      `code --add-mcp '{&quot;name&quot;:&quot;herald&quot;,&quot;type&quot;:&quot;http&quot;,&quot;url&quot;:&quot;${mcp}&quot;}'`,
    )
  })

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const before = await h.app.store.db.selectFrom('api_keys').select('id').execute()
    const forged = await browser.post(`${h.baseUrl}/integration/keys`, {
      name: ['Forged'],
      workspaceId: [h.workspaceId],
    })
    expect(forged.status).toBe(403)
    expect(await h.app.store.db.selectFrom('api_keys').select('id').execute()).toHaveLength(before.length)
  })

  it("never revokes another person's key", async () => {
    const other = await h.app.accounts.bootstrap({
      email: `other-${Date.now()}@example.com`,
      password: 'another password',
      workspace: 'Elsewhere',
      credits: 10,
    })
    const theirs = await h.app.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', other.userId)
      .executeTakeFirstOrThrow()
    const page = await browser.get('/integration')
    const refused = await browser.post(`${h.baseUrl}/integration/keys/revoke`, {
      csrf: [browser.csrf(page)],
      keyId: [theirs.id],
    })
    expect(refused.status).toBe(404)
    expect((await rest(other.apiKey)).status).toBe(200)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'works in Chromium: create, copy, revoke, at desktop and phone widths',
    async () => {
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
      })
      try {
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.baseUrl })
        const tab = await context.newPage()
        const errors: string[] = []
        tab.on('pageerror', (error) => errors.push(error.message))
        tab.on('console', (message) => {
          if (message.type() === 'error') errors.push(message.text())
        })
        await tab.goto(`${h.baseUrl}/login?next=%2Fintegration`)
        await tab.getByLabel('Email').fill(h.email)
        await tab.getByLabel('Password').fill(h.password)
        await tab.getByRole('button', { name: /sign in/i }).click()
        await tab.waitForURL(/\/integration$/)
        await tab.getByLabel('Name').fill('Browser key')
        await tab.getByRole('button', { name: 'Create key' }).click()
        const key = await tab.locator('#new-key').inputValue()
        expect(key).toMatch(/^hk_/)
        await tab.locator('button[data-copy="new-key"]').click()
        await expect.poll(() => tab.locator('button[data-copy="new-key"]').textContent()).toBe('Copied')
        expect(await tab.evaluate('navigator.clipboard.readText()')).toBe(key)
        // The MCP address has its own copy button.
        await tab.locator('button[data-copy="mcp-url"]').click()
        await expect.poll(() => tab.locator('button[data-copy="mcp-url"]').textContent()).toBe('Copied')
        expect(await tab.evaluate('navigator.clipboard.readText()')).toBe(`${h.app.config.publicBaseUrl}/mcp`)
        expect(await lookAt(tab, 'ai-integration')).toEqual([])
        await tab.getByRole('button', { name: 'Revoke the key Browser key' }).click()
        await expect.poll(() => tab.getByText('Revoked the key').count()).toBe(1)
        expect((await rest(key)).status).toBe(401)
        expect(errors).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
