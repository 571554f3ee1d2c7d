import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** A query parameter sent twice reaches a page as a list: the pages read its first value, never a 500. */
describe('dashboard pages given a query parameter twice', () => {
  let h: Harness
  let owner: Browser

  beforeAll(async () => {
    h = await startHarness()
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  })
  afterAll(() => h.close())

  it('opens Compose, Channels and the disconnect page with the first value of each', async () => {
    const compose = await owner.get(
      '/compose?profile=twitter:tw-1&profile=x&date=2035-01-02&date=2035-01-03&time=09:00&time=10:00&timezone=UTC&timezone=Europe/Paris',
    )
    expect(compose.status).toBe(200)
    expect(compose.text).toContain('2035-01-02')
    expect((await owner.get('/channels?connected=a&connected=b')).status).toBe(200)
    expect([200, 404]).toContain(
      (await owner.get('/channels/disconnect?connectionId=a&connectionId=b')).status,
    )
    expect(
      (await owner.get(`/connect/twitter?workspaceId=${h.workspaceId}&workspaceId=x`)).status,
    ).toBeLessThan(500)
  })
})
