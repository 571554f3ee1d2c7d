import { readdirSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UPLOAD_LIMIT } from '../../src/interfaces/dashboard/upload-body.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * The dashboard reads no body before it knows who is asking, reads only a
 * small one except on the upload route, streams uploads to disk under a cap, and hosts only what the
 * bytes show to be an image or a video Herald supports.
 */
describe('dashboard request bodies', () => {
  let h: Harness
  let browser: Browser
  let csrf: string

  beforeAll(async () => {
    h = await startHarness()
    browser = createBrowser(h.baseUrl)
    await browser.login(h.email, h.password)
    csrf = browser.csrf(await browser.get('/compose'))
  })
  afterAll(() => h.close())

  const cookie = () => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ')

  /**
   * Declares a `length`-byte body, sends only its first kilobyte, and waits for the answer. A server that
   * reads the body first never answers (the rest never comes); one that checks first answers at once.
   */
  function declareHugeBody(path: string, headers: Record<string, string>, length = 95 * 1024 * 1024) {
    return new Promise<{ status: number; location: string | undefined; ms: number }>((resolve, reject) => {
      const started = Date.now()
      const req = httpRequest(`${h.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(length) },
      })
      const timer = setTimeout(() => {
        req.destroy()
        reject(new Error(`no answer to ${path} within 3 s: the server is waiting for the body`))
      }, 3_000)
      req.on('response', (res) => {
        clearTimeout(timer)
        res.resume()
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, ms: Date.now() - started })
        req.destroy()
      })
      req.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      req.write(Buffer.alloc(1024, 0x41))
    })
  }

  it('refuses three large anonymous uploads at once without reading their bodies', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map(() => declareHugeBody('/compose/upload?name=big.mp4', { 'content-type': 'video/mp4' })),
    )
    for (const answer of answers) expect(answer.status).toBe(401)
  })

  it('refuses an anonymous form post before its body, sending the visitor to sign in', async () => {
    const answer = await declareHugeBody('/compose', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(answer.status).toBe(303)
    expect(answer.location).toMatch(/^\/login\?next=/)
  })

  it('refuses a signed-in upload without its CSRF token before its body', async () => {
    const answer = await declareHugeBody('/compose/upload?name=big.mp4', {
      'content-type': 'video/mp4',
      cookie: cookie(),
    })
    expect(answer.status).toBe(403)
  })

  it('keeps the large limit to the upload route: a large form post is refused from its declared length', async () => {
    const form = await declareHugeBody(
      '/compose/preflight',
      { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie() },
      1024 * 1024,
    )
    expect(form.status).toBe(413)
    const csv = await declareHugeBody(
      `/import/upload?name=a.csv&csrf=${csrf}`,
      { 'content-type': 'text/csv', cookie: cookie() },
      50 * 1024 * 1024,
    )
    expect(csv.status).toBe(413)
    const overCap = await declareHugeBody(
      `/compose/upload?name=big.mp4&csrf=${csrf}`,
      { 'content-type': 'video/mp4', cookie: cookie() },
      UPLOAD_LIMIT + 1,
    )
    expect(overCap.status).toBe(413)
  })

  it('streams an upload with no declared length to a file on disk and stops it at the cap, keeping nothing', async () => {
    const temps = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('herald-media-')))
    const before = temps()
    /** The size of the upload being received, as it stands on disk (0 while there is none). */
    const onDisk = () => {
      for (const dir of temps()) {
        if (before.has(dir)) continue
        try {
          return statSync(path.join(tmpdir(), dir, 'upload')).size
        } catch {}
      }
      return 0
    }
    const chunk = Buffer.alloc(1024 * 1024, 0)
    let seenOnDisk = 0
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${h.baseUrl}/compose/upload?name=big.mp4&csrf=${csrf}`, {
        method: 'POST',
        headers: { 'content-type': 'video/mp4', cookie: cookie(), 'transfer-encoding': 'chunked' },
      })
      req.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
        req.destroy()
      })
      req.on('error', () => resolve(-1))
      let sent = 0
      let checked = false
      const pump = async () => {
        while (sent <= UPLOAD_LIMIT && !req.destroyed) {
          if (!checked && sent >= 32 * 1024 * 1024) {
            // Midway, the bytes received so far are in a file, not in memory.
            checked = true
            for (let i = 0; i < 100 && seenOnDisk < 16 * 1024 * 1024; i++) {
              await new Promise((r) => setTimeout(r, 50))
              seenOnDisk = onDisk()
            }
          }
          sent += chunk.length
          if (!req.write(chunk)) return req.once('drain', pump)
        }
        req.end()
      }
      req.once('socket', pump)
      setTimeout(() => reject(new Error('no answer')), 60_000).unref()
    })
    expect(seenOnDisk).toBeGreaterThanOrEqual(16 * 1024 * 1024)
    expect([413, -1]).toContain(status)
    await new Promise((r) => setTimeout(r, 100))
    expect([...temps()].filter((dir) => !before.has(dir))).toEqual([])
    const rows = await h.app.store.db.selectFrom('media').select('id').execute()
    expect(rows).toHaveLength(0)
  })

  const upload = (name: string, type: string, body: Buffer<ArrayBuffer>) =>
    fetch(`${h.baseUrl}/compose/upload?name=${encodeURIComponent(name)}&csrf=${csrf}`, {
      method: 'POST',
      headers: { 'content-type': type, cookie: cookie() },
      body,
    })

  it('refuses an HTML page uploaded as image/png under the name invoice.html, hosting nothing', async () => {
    const html = Buffer.from(
      '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>',
    )
    const answer = await upload('invoice.html', 'image/png', html)
    expect(answer.status).toBe(415)
    const rows = await h.app.store.db.selectFrom('media').select('id').execute()
    expect(rows).toHaveLength(0)
  })

  it('hosts an image by the type its bytes show, named with that type’s extension', async () => {
    const png = await sharp({
      create: { width: 16, height: 16, channels: 3, background: { r: 1, g: 2, b: 3 } },
    })
      .png()
      .toBuffer()
    const answer = await upload('invoice.html', 'image/jpeg', png)
    expect(answer.status).toBe(201)
    const { url } = (await answer.json()) as { url: string }
    expect(url).toMatch(/\/media\/[0-9a-f]{32}\/invoice\.png$/)
    const served = await fetch(new URL(new URL(url).pathname, h.baseUrl))
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true)
  })
})
