import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './helpers/harness.js'

const json = (response: Response): Promise<any> => response.json()

describe('API authentication', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_RATE_LIMIT_PER_MINUTE: '5' } })
  })
  afterAll(() => h.close())

  const post = (headers: Record<string, string>, url = '/api/tools/list_workspaces') =>
    fetch(`${h.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    })

  it('refuses a request with no key with 401 and the error body', async () => {
    const response = await post({})
    expect(response.status).toBe(401)
    expect(await json(response)).toMatchObject({ success: false, error: { code: 'unauthorized' } })
  })

  it('refuses an unknown key with 401', async () => {
    const response = await post({ 'x-api-key': 'hk_not-a-real-key' })
    expect(response.status).toBe(401)
    expect((await json(response)).error.code).toBe('unauthorized')
  })

  it('refuses a malformed Authorization header with 401', async () => {
    expect((await post({ authorization: `Basic ${h.apiKey}` })).status).toBe(401)
  })

  it('does not accept ?apikey= on REST', async () => {
    expect((await post({}, `/api/tools/list_workspaces?apikey=${h.apiKey}`)).status).toBe(401)
  })

  it('does not accept ?apikey= on the streamable MCP transport', async () => {
    const response = await fetch(`${h.baseUrl}/mcp?apikey=${h.apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(401)
  })

  it('refuses an apikey query parameter sent twice on the SSE transport with a 401, not a 500', async () => {
    const response = await fetch(`${h.baseUrl}/sse?apikey=${h.apiKey}&apikey=${h.apiKey}`)
    expect(response.status).toBe(401)
    expect((await json(response)).error.code).toBe('unauthorized')
  })

  it('refuses a revoked key with 401', async () => {
    const owner = await h.app.store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', h.userId)
      .executeTakeFirstOrThrow()
    const key = await h.app.accounts.createKey({ email: owner.email, name: 'to revoke' })
    expect((await post({ 'x-api-key': key.apiKey })).status).toBe(200)
    await h.app.accounts.revokeKey({ id: key.id })
    const response = await post({ 'x-api-key': key.apiKey })
    expect(response.status).toBe(401)
    expect((await json(response)).error.message).toMatch(/revoked/)
  })

  it('accepts the key as Authorization: Bearer and records when it was used', async () => {
    const response = await post({ authorization: `Bearer ${h.apiKey}` })
    expect(response.status).toBe(200)
    const row = await h.app.store.db
      .selectFrom('api_keys')
      .select(['last_used_at', 'key_hash'])
      .where('user_id', '=', h.userId)
      .executeTakeFirstOrThrow()
    expect(row.last_used_at).toBeGreaterThan(0)
    expect(row.key_hash).not.toContain(h.apiKey)
  })

  it('answers 429 with Retry-After once a key passes its per-minute limit', async () => {
    const owner = await h.app.store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', h.userId)
      .executeTakeFirstOrThrow()
    const key = await h.app.accounts.createKey({ email: owner.email, name: 'limited' })
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < 7; i++) {
      const response = await post({ 'x-api-key': key.apiKey })
      statuses.push(response.status)
      if (response.status === 429) {
        retryAfter = response.headers.get('retry-after')
        expect((await json(response)).error.code).toBe('rate_limited')
      }
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(statuses.slice(5)).toEqual([429, 429])
    expect(Number(retryAfter)).toBeGreaterThan(0)
  })

  it('never writes the key into the logs', () => {
    expect(h.logs.join('\n')).not.toContain(h.apiKey)
  })
})
