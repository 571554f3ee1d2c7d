import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { addMember } from '../../src/platform/db/statements/accounts.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const DAY = 86_400_000

/** Channels: each connection's state in words, reconnect links, and disconnecting behind a confirmation. */
describe('the Channels page', () => {
  let h: Harness
  let owner: Browser

  beforeAll(async () => {
    h = await startHarness()
    await connectProfile(h, 'twitter', 'tw-ok', '@heralddemo')
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

  it('says Healthy, Expires in N days, or Reconnect needed with the reason, and shows each handle once', async () => {
    const shown = await owner.get('/channels')
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('Healthy')
    expect(shown.text).toContain('@heralddemo')
    expect(shown.text).not.toContain('@@heralddemo')
    expect(shown.text).toContain('Expires in 5 days')
    expect(shown.text).toContain('Reconnect needed:')
    expect(shown.text).toContain('href="/connect/youtube">Reconnect</a>')
  })

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
