import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { FakeClock } from '../../src/platform/clock.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { screenshotDir } from '../helpers/reference.js'
import { addMember, ledger, type Member } from '../helpers/team.js'

/**
 * Approvals in Chromium against a sandbox Herald: an editor composes with approvals on; the owner sees one
 * pending post and rejects it with a note; the editor reads the note, edits and resubmits; the owner
 * approves; the worker publishes it to the simulated X at its slot, charged once, at approval.
 */
describe.runIf(existsSync('/usr/bin/chromium'))('approvals in the dashboard', () => {
  let h: Harness
  let editor: Member
  // A fake clock that starts now: the worker sends when the test moves it to the slot.
  const clock = new FakeClock(Date.now())
  const shots = screenshotDir()
  const profiles: string[] = []

  beforeAll(async () => {
    h = await startHarness({ sandbox: true, clock, credits: 100, env: { HERALD_IMMEDIATE_WAIT_MS: '0' } })
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'twitter', username: 'team_x' })
    editor = await addMember(h, 'editor')
  })
  afterAll(async () => {
    await h?.close()
    for (const dir of profiles) rmSync(dir, { recursive: true, force: true })
  })

  const open = async (): Promise<{ context: BrowserContext; tab: Page }> => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
    profiles.push(dir)
    const context = await chromium.launchPersistentContext(dir, {
      ...CHROMIUM,
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Europe/Lisbon',
    })
    return { context, tab: await context.newPage() }
  }
  const signIn = async (tab: Page, email: string, password: string) => {
    await tab.goto(`${h.baseUrl}/login`)
    await tab.getByLabel('Email').fill(email)
    await tab.getByLabel('Password').fill(password)
    await tab.getByRole('button', { name: /sign in/i }).click()
    await tab.waitForURL((url) => !url.pathname.startsWith('/login'))
  }
  const photograph = async (tab: Page, name: string) => {
    await tab.screenshot({ path: path.join(shots, `${name}-desktop.png`), fullPage: true })
    await tab.setViewportSize({ width: 390, height: 844 })
    await tab.screenshot({ path: path.join(shots, `${name}-phone.png`), fullPage: true })
    await tab.setViewportSize({ width: 1280, height: 900 })
  }
  const tweets = async () =>
    (await (await fetch(`${h.baseUrl}/sandbox/twitter/_sandbox/tweets`)).json()) as Array<{ text: string }>

  it('goes from an editor’s draft through a rejection and a resubmission to a post published at its slot, charged once at approval', async () => {
    const owner = await open()
    const writer = await open()
    const errors: string[] = []
    for (const { tab } of [owner, writer]) tab.on('pageerror', (e) => errors.push(e.message))
    try {
      // The owner turns approvals on.
      await signIn(owner.tab, h.email, h.password)
      await owner.tab.getByRole('link', { name: 'Workspace', exact: true }).click()
      await owner.tab.getByLabel("Posts by editors need an owner's approval").check()
      await owner.tab.getByRole('button', { name: 'Save' }).click()
      await owner.tab.getByText("Posts by editors now wait for an owner's approval.").waitFor()

      // The editor composes a scheduled post to X; the check says it will wait.
      await signIn(writer.tab, editor.email, editor.password)
      await writer.tab.getByRole('link', { name: 'Create post' }).click()
      await writer.tab.getByLabel('Copy', { exact: true }).fill('Our new store opens on Saturday.')
      await writer.tab.getByRole('checkbox', { name: 'X @team_x', exact: true }).check()
      const day = new Date(clock.now() + 2 * 86_400_000).toISOString().slice(0, 10)
      await writer.tab.getByLabel('Date', { exact: true }).fill(day)
      await writer.tab.getByLabel('Time', { exact: true }).fill('10:00')
      const create = writer.tab.getByRole('button', { name: 'Schedule' })
      await expect.poll(() => create.isEnabled(), { timeout: 15_000 }).toBe(true)
      expect(await writer.tab.getByText(/Approvals are on in this workspace/).count()).toBe(1)
      const before = (await h.call('get_user_info', {})).body.credits.balance
      await create.click()
      await writer.tab.waitForURL(/\/posts\/[0-9a-f]{24}$/)
      const id = writer.tab.url().split('/').at(-1)!
      await writer.tab.getByText("Waiting for an owner's approval", { exact: true }).waitFor()
      expect((await h.call('get_user_info', {})).body.credits.balance).toBe(before)

      // The owner sees one pending post in the navigation and in Posts, previews it and rejects it.
      await owner.tab.goto(`${h.baseUrl}/posts`)
      const pending = owner.tab.getByRole('link', { name: /Pending approval 1/ })
      expect(await pending.count()).toBe(1)
      await pending.click()
      await owner.tab.waitForURL(/approval=pending/)
      expect(await owner.tab.locator('li.compose').count()).toBe(1)
      await owner.tab.getByRole('link', { name: /Our new store opens/ }).click()
      expect(await owner.tab.getByRole('article', { name: 'X @team_x' }).count()).toBe(1)
      expect(await owner.tab.getByRole('button', { name: 'Approve (5 credits)' }).count()).toBe(1)
      await photograph(owner.tab, 'approval-review')
      await owner.tab.getByLabel('Note for its author').fill('Say which store: we have two.')
      await owner.tab.getByRole('button', { name: 'Reject with this note' }).click()
      await owner.tab.getByText('Rejected; its author sees your note').waitFor()

      // The editor reads the note, edits and resubmits.
      await writer.tab.goto(`${h.baseUrl}/posts/${id}`)
      await writer.tab.getByText('Say which store: we have two.').waitFor()
      await photograph(writer.tab, 'approval-rejected')
      await writer.tab.getByRole('link', { name: 'Edit and resubmit it' }).click()
      await writer.tab.getByLabel('Copy').fill('Our new Leith store opens on Saturday.')
      await writer.tab.getByRole('button', { name: 'Save and submit for approval' }).click()
      await writer.tab.getByText("Waiting for an owner's approval", { exact: true }).waitFor()

      // The editor changes the copy while the owner has it open: approving what they saw is refused.
      await owner.tab.goto(`${h.baseUrl}/posts/${id}`)
      expect(await owner.tab.getByText('Sent back before with the note').count()).toBe(1)
      const edited = await h.call(
        'update_post',
        { id, content: 'Our new Leith store opens on Saturday at nine.' },
        { key: editor.apiKey },
      )
      expect(edited.status, JSON.stringify(edited.body)).toBe(200)
      await owner.tab.getByRole('button', { name: 'Approve (5 credits)' }).click()
      await owner.tab.getByText(/The post changed since you reviewed it/).waitFor()
      expect((await h.call('get_post', { id })).body.approval.state).toBe('pending')
      expect((await h.call('get_user_info', {})).body.credits.balance).toBe(before)

      // The owner reviews it again and approves: charged now, once.
      await owner.tab.goto(`${h.baseUrl}/posts/${id}`)
      await owner.tab.getByText('Our new Leith store opens on Saturday at nine.').first().waitFor()
      await owner.tab.getByRole('button', { name: 'Approve (5 credits)' }).click()
      await owner.tab
        .getByText(/Approved; scheduled for .* 10:00 Europe\/Lisbon \(5 credits charged\)/)
        .waitFor()
      expect(await owner.tab.getByRole('link', { name: /Pending approval/ }).count()).toBe(0)
      expect((await h.call('get_user_info', {})).body.credits.balance).toBe(before - 5)
      expect((await ledger(h)).filter((l) => l.reference?.includes(id))).toEqual([
        expect.objectContaining({ delta: -5, reason: 'approval' }),
      ])
      expect(errors).toEqual([])

      // The worker publishes it at its slot, not before.
      const due = Date.parse((await h.call('get_post', { id })).body.dueAt)
      const worker = createAppWorker(h.app, { id: 'approvals-worker' })
      try {
        clock.set(due - 60_000)
        await worker.tick()
        await worker.idle()
        expect(await tweets()).toEqual([])
        clock.set(due)
        await worker.tick()
        await expect
          .poll(async () => (await tweets()).map((t) => t.text), { timeout: 15_000 })
          .toEqual(['Our new Leith store opens on Saturday at nine.'])
        await worker.idle()
      } finally {
        await worker.stop()
      }
      await expect.poll(async () => (await h.call('get_post', { id })).body.status).toBe('published')
      expect((await ledger(h)).filter((l) => l.reference?.includes(id))).toHaveLength(1)
    } finally {
      await owner.context.close()
      await writer.context.close()
    }
  }, 150_000)
})
