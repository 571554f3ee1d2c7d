import { afterEach, describe, expect, it } from 'vitest'
import { delayAfter, FREE_FAILURES, MAX_DELAY_S } from '../../src/modules/accounts/login-throttle.js'
import { FakeClock } from '../../src/platform/clock.js'
import { loadConfig, parseTrustProxy } from '../../src/platform/config.js'
import { createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** Nobody can lock an account out by typing wrong passwords at it. */
describe('sign-in throttling', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  /** One sign-in attempt from a fresh browser behind the proxy, as client `address`. */
  async function attempt(
    harness: Harness,
    email: string,
    password: string,
    address: string,
    browser = createBrowser(harness.baseUrl),
  ) {
    const form = await browser.get('/login')
    const body = new URLSearchParams({ csrf: browser.csrf(form), email, password, next: '/posts' })
    const response = await fetch(`${harness.baseUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-forwarded-for': address,
      },
      body: body.toString(),
    })
    await response.text()
    return response
  }

  it('lets the owner sign in from their browser after twenty wrong passwords from many addresses', async () => {
    h = await startHarness({ env: { HERALD_TRUST_PROXY: '1' } })
    const ownBrowser = createBrowser(h.baseUrl)
    await ownBrowser.login(h.email, h.password)
    await ownBrowser.post('/logout', { csrf: ownBrowser.csrf(await ownBrowser.get('/posts')) })
    for (let i = 0; i < 20; i++) {
      const wrong = await attempt(h, h.email, `guess ${i}`, `203.0.113.${i + 1}`)
      expect([401, 429]).toContain(wrong.status)
    }
    const owner = await attempt(h, h.email, h.password, '198.51.100.7', ownBrowser)
    expect(owner.status).toBe(303)
    expect(owner.headers.get('location')).toBe('/posts')
  })

  it('delays a fresh browser by a growing wait, never a lock, and takes the right password once it passes', async () => {
    const clock = new FakeClock(Date.parse('2026-11-26T12:00:00Z'))
    h = await startHarness({ clock, env: { HERALD_TRUST_PROXY: '1' } })
    for (let i = 0; i < FREE_FAILURES; i++) {
      expect((await attempt(h, h.email, `guess ${i}`, `203.0.113.${i + 1}`)).status).toBe(401)
    }
    const delayed = await attempt(h, h.email, h.password, '198.51.100.7')
    expect(delayed.status).toBe(429)
    expect(Number(delayed.headers.get('retry-after'))).toBe(delayAfter(FREE_FAILURES))
    for (let i = 0; i < 15; i++) {
      clock.advance(MAX_DELAY_S * 1000)
      expect((await attempt(h, h.email, `more ${i}`, `203.0.113.${i + 50}`)).status).toBe(401)
    }
    const capped = await attempt(h, h.email, h.password, '198.51.100.7')
    expect(capped.status).toBe(429)
    expect(Number(capped.headers.get('retry-after'))).toBeLessThanOrEqual(MAX_DELAY_S)
    clock.advance(MAX_DELAY_S * 1000)
    expect((await attempt(h, h.email, h.password, '198.51.100.7')).status).toBe(303)
  })

  it('limits one address however many e-mails it tries', async () => {
    // A still clock: the minute's window does not move under a slow machine.
    h = await startHarness({
      clock: new FakeClock(Date.parse('2026-11-26T12:00:10Z')),
      env: { HERALD_TRUST_PROXY: '1' },
    })
    const statuses: number[] = []
    for (let i = 0; i < 32; i++) {
      statuses.push((await attempt(h, `person${i}@example.com`, 'wrong', '203.0.113.99')).status)
    }
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(30)).toEqual([429, 429])
    expect((await attempt(h, h.email, h.password, '203.0.113.100')).status).toBe(303)
  })

  it('ignores X-Forwarded-For unless HERALD_TRUST_PROXY is set', async () => {
    h = await startHarness({ clock: new FakeClock(Date.parse('2026-11-26T12:00:10Z')) })
    const statuses: number[] = []
    for (let i = 0; i < 31; i++) {
      statuses.push((await attempt(h, `person${i}@example.com`, 'wrong', `203.0.113.${i + 1}`)).status)
    }
    expect(statuses.at(-1)).toBe(429)
  })

  it('reads HERALD_TRUST_PROXY as off, a hop count or a list of addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ HERALD_TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(loadConfig({ HERALD_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ])
    expect(parseTrustProxy('off')).toBe(false)
    expect(parseTrustProxy('10.0.0.0/33')).toBeUndefined()
    expect(() => loadConfig({ HERALD_TRUST_PROXY: 'yes please' })).toThrow(/HERALD_TRUST_PROXY/)
  })
})
