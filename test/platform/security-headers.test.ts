import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from '../helpers/harness.js'

/** A CSP header as its directives, `name value…` each, in any order. */
const directives = (csp: string | null) =>
  (csp ?? '')
    .split(';')
    .map((directive) => directive.trim().replace(/\s+/g, ' '))
    .filter(Boolean)
    .sort()

describe('security headers', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('serves a dashboard page under its CSP (no inline script or style), never framed, sniffed or followed by a Referer', async () => {
    const response = await fetch(`${h.baseUrl}/login`)
    expect(response.status).toBe(200)
    expect(directives(response.headers.get('content-security-policy'))).toEqual(
      [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "media-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].sort(),
    )
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  it('gives a dashboard redirect the same headers as its pages', async () => {
    const response = await fetch(`${h.baseUrl}/channels`, { redirect: 'manual' })
    expect(response.status).toBe(303)
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
  })

  it('sends the API its baseline and no CSP', async () => {
    const { status, headers } = await h.call('list_workspaces')
    expect(status).toBe(200)
    expect(headers.get('x-content-type-options')).toBe('nosniff')
    expect(headers.get('x-frame-options')).toBe('DENY')
    expect(headers.get('referrer-policy')).toBe('no-referrer')
    expect(headers.get('content-security-policy')).toBeNull()
    // Helmet's defaults that Herald leaves off: HSTS is the TLS proxy's, the cross-origin ones would block
    // a hosted image shown on another site.
    for (const name of [
      'strict-transport-security',
      'cross-origin-resource-policy',
      'cross-origin-opener-policy',
    ])
      expect(headers.get(name), name).toBeNull()
  })

  it('keeps the baseline on an MCP answer written by the transport itself', async () => {
    const response = await fetch(`${h.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('serves a hosted file sandboxed and unsniffed, as a file another site may show', async () => {
    const { body } = await h.call('generate_image', { prompt: 'Headers' })
    const response = await fetch(body.mediaUrl.replace(h.app.config.publicBaseUrl, h.baseUrl))
    expect(response.status).toBe(200)
    expect(directives(response.headers.get('content-security-policy'))).toEqual([
      "default-src 'none'",
      'sandbox',
    ])
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBeNull()
    expect(response.headers.get('referrer-policy')).toBeNull()
  })
})
