import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../src/platform/clock.js'
import { type Harness, startHarness } from './helpers/harness.js'

/** The API's own limit, from @fastify/rate-limit with the IETF draft's headers. */
describe('the API rate limit', () => {
  let h: Harness
  const clock = new FakeClock(Date.UTC(2026, 11, 1, 9))
  beforeAll(async () => {
    h = await startHarness({ clock, env: { HERALD_RATE_LIMIT_PER_MINUTE: '3' } })
  })
  afterAll(() => h.close())

  const newKey = async (name: string) => {
    const owner = await h.app.store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', h.userId)
      .executeTakeFirstOrThrow()
    return (await h.app.accounts.createKey({ email: owner.email, name })).apiKey
  }
  const mcpPost = (key: string) =>
    fetch(`${h.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })

  it('tells every answer the limit, what is left of it and when it resets', async () => {
    const key = await newKey('headers')
    const remaining: (string | null)[] = []
    for (let i = 0; i < 3; i++) {
      const { status, headers } = await h.call('list_workspaces', {}, { key })
      expect(status).toBe(200)
      expect(headers.get('ratelimit-limit')).toBe('3')
      expect(Number(headers.get('ratelimit-reset'))).toBeGreaterThan(0)
      expect(headers.get('x-ratelimit-limit')).toBeNull()
      remaining.push(headers.get('ratelimit-remaining'))
    }
    expect(remaining).toEqual(['2', '1', '0'])
  })

  it('refuses a request past the limit with 429, the error body and Retry-After', async () => {
    const key = await newKey('refused')
    for (let i = 0; i < 3; i++) expect((await h.call('get_user_info', {}, { key })).status).toBe(200)
    const refused = await h.call('get_user_info', {}, { key })
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'rate_limited',
        message: 'Rate limit of 3 requests per minute reached',
        details: expect.anything(),
      },
    })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
  })

  it('counts each key on its own', async () => {
    const first = await newKey('first')
    const second = await newKey('second')
    for (let i = 0; i < 4; i++) await h.call('get_user_info', {}, { key: first })
    expect((await h.call('get_user_info', {}, { key: second })).status).toBe(200)
  })

  it('counts MCP requests against the same limit, with the same headers on the answers the transport writes', async () => {
    const key = await newKey('mcp')
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await mcpPost(key))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429])
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0'])
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(((await answers[3]!.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
    // REST and MCP share the key's count.
    expect((await h.call('get_user_info', {}, { key })).status).toBe(429)
  })

  it('lets a key in again once its minute has passed on the app clock', async () => {
    const key = await newKey('window')
    for (let i = 0; i < 4; i++) await h.call('get_user_info', {}, { key })
    expect((await h.call('get_user_info', {}, { key })).status).toBe(429)
    clock.advance(60_000)
    const again = await h.call('get_user_info', {}, { key })
    expect(again.status).toBe(200)
    expect(again.headers.get('ratelimit-remaining')).toBe('2')
  })

  it('refuses a request without a key with 401 before counting anything', async () => {
    const response = await fetch(`${h.baseUrl}/api/tools/get_user_info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('ratelimit-limit')).toBeNull()
  })
})
