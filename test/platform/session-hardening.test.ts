import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSession, SESSION_COOKIE } from '../../src/modules/accounts/sessions.js'
import { redactUrl } from '../../src/platform/logger.js'
import { createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/** Sessions that cannot be fixed or stolen from a log, and logs that carry no session or CSRF secret. */
describe('session and log hardening', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('rotates the session on sign-in and ends the one the browser came with (no session fixation)', async () => {
    // An attacker gets the victim's browser to carry a session token the attacker knows.
    const planted = await createSession(
      h.app.store.db,
      { userId: h.userId, workspaceId: h.workspaceId, ttlMs: 3_600_000 },
      h.app.clock.now(),
    )
    const browser = createBrowser(h.baseUrl)
    const form = await browser.get('/login')
    browser.cookies.set(SESSION_COOKIE, planted.token)
    const answer = await browser.post('/login', {
      csrf: browser.csrf(form),
      email: h.email,
      password: h.password,
      next: '/posts',
    })
    expect(answer.status).toBe(303)
    const fresh = browser.cookies.get(SESSION_COOKIE)
    expect(fresh).toBeTruthy()
    expect(fresh).not.toBe(planted.token)
    const attacker = createBrowser(h.baseUrl)
    attacker.cookies.set(SESSION_COOKIE, planted.token)
    expect((await attacker.get('/posts')).status).toBe(303)
    expect((await browser.get('/posts')).status).toBe(200)
  })

  it('redacts csrf tokens and SSE session ids from logged URLs', () => {
    expect(redactUrl('/compose/upload?name=a.png&csrf=s3cr3tCsrfToken')).toBe(
      '/compose/upload?name=a.png&csrf=[Redacted]',
    )
    expect(redactUrl('/mcp/messages?sessionId=0d4c2a9e-live-session')).toBe(
      '/mcp/messages?sessionId=[Redacted]',
    )
  })
})
