import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/platform/config.js'
import { buildMetricsServer } from '../../src/server.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * /metrics is not for anyone who asks (it tells what the instance publishes and how Herald runs), and a
 * scrape costs one reading.
 */
describe('/metrics access', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })
  const token = 'a-long-metrics-token-0123456789'

  it('is not served on the public port by default', async () => {
    h = await startHarness()
    const answer = await fetch(`${h.baseUrl}/metrics`)
    expect(answer.status).toBe(404)
    expect(await answer.text()).not.toContain('herald_queue_depth')
  })

  it('takes HERALD_METRICS_TOKEN as a bearer token, refusing anyone without it', async () => {
    h = await startHarness({ env: { HERALD_METRICS_TOKEN: token } })
    const anonymous = await fetch(`${h.baseUrl}/metrics`)
    expect(anonymous.status).toBe(401)
    expect(await anonymous.text()).not.toContain('herald_queue_depth')
    const wrong = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: 'Bearer nope' } })
    expect(wrong.status).toBe(401)
    const right = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
    expect(right.status).toBe(200)
    expect(await right.text()).toContain('herald_queue_depth')
  })

  it('serves scrapes that arrive together from one reading of the database', async () => {
    h = await startHarness({ env: { HERALD_METRICS_TOKEN: token } })
    const db = h.app.store.db
    let reads = 0
    const original = db.selectFrom.bind(db)
    ;(db as { selectFrom: unknown }).selectFrom = ((...args: Parameters<typeof original>) => {
      reads += 1
      return original(...args)
    }) as typeof original
    const once = async () =>
      (await fetch(`${h!.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status
    await once()
    const single = reads
    reads = 0
    // A slow reading, so that the scrapes surely arrive while it runs.
    const cache = h.app.media.cache as { usage: () => Promise<unknown> }
    const usage = cache.usage.bind(cache)
    cache.usage = async () => {
      await new Promise((resolve) => setTimeout(resolve, 500))
      return usage()
    }
    expect(await Promise.all(Array.from({ length: 10 }, once))).toEqual(Array(10).fill(200))
    expect(reads).toBeLessThanOrEqual(single * 2)
    cache.usage = usage
    ;(db as { selectFrom: unknown }).selectFrom = original
  })

  it('serves /metrics without a token on its own listener (HERALD_METRICS_LISTEN)', async () => {
    expect(loadConfig({ HERALD_METRICS_LISTEN: '127.0.0.1:9464' }).metrics.listen).toEqual({
      host: '127.0.0.1',
      port: 9464,
    })
    expect(() => loadConfig({ HERALD_METRICS_LISTEN: 'nope' })).toThrow(/HERALD_METRICS_LISTEN/)
    expect(() => loadConfig({ HERALD_METRICS_TOKEN: 'short' })).toThrow(/HERALD_METRICS_TOKEN/)
    h = await startHarness()
    const listener = buildMetricsServer(h.app)
    await listener.listen({ host: '127.0.0.1', port: 0 })
    try {
      const address = listener.server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      const answer = await fetch(`http://127.0.0.1:${port}/metrics`)
      expect(answer.status).toBe(200)
      expect(await answer.text()).toContain('herald_queue_depth')
      expect((await fetch(`http://127.0.0.1:${port}/api/tools/get_user_info`)).status).toBe(404)
    } finally {
      await listener.close()
    }
  })
})
