import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { addMember } from '../../src/platform/db/statements/accounts.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile, givePicture } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { lookAt } from '../helpers/look-at.js'
import { openSignedIn } from '../helpers/signed-in-tab.js'

const DAY = 86_400_000

/** Channels: a card per profile with its health in words, Reconnect, and disconnecting behind a confirmation. */
describe('the Channels page', () => {
  let h: Harness
  let owner: Browser

  beforeAll(async () => {
    h = await startHarness()
    await givePicture(h, await connectProfile(h, 'twitter', 'tw-ok', '@heralddemo'), '#1d6fb8')
    // A token with no refresh token, ending in five days: the connection itself ends then.
    const soon = Date.now() + 5 * DAY + 3_600_000
    const li = await connectProfile(h, 'linkedin', 'li-soon', 'soon-page', { tokenExpiresAt: soon })
    await h.app.store.db
      .updateTable('connections')
      .set({
        credentials: h.app.vault.sealJson(connectionCredentials(li), {
          accessToken: 'short-lived',
          expiresAt: soon,
        }),
      })
      .where('id', '=', li)
      .execute()
    await connectProfile(h, 'youtube', 'yt-dead', 'dead-channel', { status: 'needs_reconnect' })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  })
  afterAll(() => h.close())

  it('shows each profile as a card with its avatar, a health chip, the days left and Reconnect where needed', async () => {
    const shown = await owner.get('/channels')
    expect(shown.status).toBe(200)
    const cards = shown.text.split('<li class="card channel">').slice(1)
    expect(cards).toHaveLength(3)
    const card = (handle: string) => cards.find((c) => c.includes(`<h3>@${handle}</h3>`)) ?? ''
    // The picture Herald keeps (from Herald's own media), or the initials, with the network's mark on the
    // avatar's corner; the handle once with one @.
    expect(card('heralddemo')).toMatch(
      /<span class="avatar large" aria-hidden="true"><img src="\/media\/[0-9a-f]{32}\/avatar\.jpg" alt(="")?[^>]*><svg class="net-icon net-twitter"/,
    )
    expect(card('soon-page')).toMatch(
      /<span class="avatar large" aria-hidden="true">SP<svg class="net-icon net-linkedin"/,
    )
    expect(shown.text).not.toContain('@@heralddemo')
    expect(card('heralddemo')).toMatch(/<span class="chip ok">.*Healthy<\/span>/)
    expect(card('heralddemo')).not.toContain('Reconnect')
    expect(card('soon-page')).toMatch(/<span class="chip warn">.*Expires in 5 days<\/span>/)
    expect(card('soon-page')).toContain('aria-label="Reconnect LinkedIn @soon-page">Reconnect</a>')
    expect(card('dead-channel')).toMatch(/<span class="chip bad">.*Reconnect needed<\/span>/)
    expect(card('dead-channel')).toContain(
      '<a class="button primary" href="/connect/youtube" aria-label="Reconnect YouTube @dead-channel">Reconnect</a>',
    )
    expect(card('dead-channel')).toContain('class="button danger" href="/channels/disconnect?')
    // Adding a channel is a grid of network tiles, each leading to its connect flow.
    expect(shown.text).toContain('<h2 id="connect">Add channel</h2>')
    expect(shown.text).toMatch(/<ul class="tiles">[\s\S]*<svg class="net-icon net-bluesky"/)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'fits a phone and passes the accessibility checks in both themes',
    async () => {
      const browser = await openSignedIn(h.baseUrl, h, '/channels')
      try {
        expect(await lookAt(browser.tab, 'channels')).toEqual([])
        await browser.tab.getByRole('link', { name: 'Disconnect YouTube @dead-channel' }).click()
        await browser.tab.waitForURL(/\/channels\/disconnect\?/)
        expect(await lookAt(browser.tab, 'channel-disconnect')).toEqual([])
        expect(browser.errors).toEqual([])
      } finally {
        await browser.close()
      }
    },
    60_000,
  )

  it('asks before disconnecting, and only an owner may', async () => {
    const rows = await h.app.store.db.selectFrom('connections').select(['id', 'platform']).execute()
    const x = rows.find((r) => r.platform === 'twitter')!
    const confirm = await owner.get(`/channels/disconnect?connectionId=${x.id}`)
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('Disconnect @heralddemo on X?')

    const email = `editor-${Date.now()}@example.com`
    const { userId } = await h.app.accounts.createUser({ email, password: 'editor password 1' })
    await addMember(h.app.store.db, h.workspaceId, userId, 'editor', Date.now())
    const editor = createBrowser(h.baseUrl)
    await editor.login(email, 'editor password 1')
    const channels = await editor.get('/channels')
    expect(channels.text).not.toContain('/channels/disconnect?')
    const refused = await editor.post(`${h.baseUrl}/channels/disconnect`, {
      csrf: [editor.csrf(channels)],
      connectionId: [x.id],
    })
    expect(refused.status).toBe(403)

    const done = await owner.post(`${h.baseUrl}/channels/disconnect`, {
      csrf: [owner.csrf(confirm)],
      connectionId: [x.id],
    })
    expect(done.status).toBe(303)
    const row = await h.app.store.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', x.id)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('removed')
  })
})
