import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './helpers/harness.js'

describe('multicall', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('runs calls in order and echoes ids, with counts', async () => {
    const { status, body } = await h.call('multicall', {
      calls: [{ tool: 'get_user_info', id: 'me' }, { tool: 'list_workspaces' }],
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({ ok: true, requested: 2, executed: 2, succeeded: 2, failed: 0 })
    expect(body.results.map((r: { id: string; tool: string; ok: boolean }) => [r.id, r.tool, r.ok])).toEqual([
      ['me', 'get_user_info', true],
      ['2', 'list_workspaces', true],
    ])
    expect(body.results[0].result.workspace.id).toBe(h.workspaceId)
  })

  it('validates every tool name before running anything', async () => {
    const { status, body } = await h.call('multicall', {
      calls: [{ tool: 'get_user_info' }, { tool: 'no_such_tool' }, { tool: 'also_missing' }],
    })
    expect(status).toBe(400)
    expect(body.error.code).toBe('invalid_request')
    expect(body.error.details.unknownTools).toEqual(['no_such_tool', 'also_missing'])
  })

  it('refuses a nested multicall', async () => {
    const { status, body } = await h.call('multicall', {
      calls: [{ tool: 'multicall', arguments: { calls: [{ tool: 'get_user_info' }] } }],
    })
    expect(status).toBe(400)
    expect(body.error.message).toMatch(/nest/)
  })

  it('needs between 1 and 20 calls', async () => {
    expect((await h.call('multicall', { calls: [] })).status).toBe(400)
    const calls = Array.from({ length: 21 }, () => ({ tool: 'get_user_info' }))
    expect((await h.call('multicall', { calls })).status).toBe(400)
    expect((await h.call('multicall', { calls: calls.slice(0, 20) })).body.succeeded).toBe(20)
  })

  it('stops at the first failure and reports the rest as skipped by default', async () => {
    const { status, body } = await h.call('multicall', {
      calls: [
        { tool: 'get_user_info', id: 'a' },
        { tool: 'get_user_info', id: 'b', arguments: { workspaceId: 'ffffffffffffffffffffffff' } },
        { tool: 'list_workspaces', id: 'c' },
      ],
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({ ok: false, requested: 3, executed: 2, succeeded: 1, failed: 1 })
    expect(body.results[1]).toEqual({
      id: 'b',
      tool: 'get_user_info',
      ok: false,
      error: { code: 'not_found', message: expect.any(String) },
    })
    expect(body.results[2]).toEqual({ id: 'c', tool: 'list_workspaces', ok: false, skipped: true })
  })

  it('attempts every call with stopOnError false', async () => {
    const { body } = await h.call('multicall', {
      stopOnError: false,
      calls: [{ tool: 'get_user_info', arguments: { bogus: true } }, { tool: 'list_workspaces' }],
    })
    expect(body).toMatchObject({ ok: false, requested: 2, executed: 2, succeeded: 1, failed: 1 })
    expect(body.results[0].error.code).toBe('invalid_request')
    expect(body.results[1].ok).toBe(true)
  })

  it('applies the batch workspaceId to calls that do not name one', async () => {
    const { body } = await h.call('multicall', {
      workspaceId: h.workspaceId,
      calls: [{ tool: 'get_user_info' }],
    })
    expect(body.results[0].result.workspace.id).toBe(h.workspaceId)
    const foreign = await h.call('multicall', {
      workspaceId: 'ffffffffffffffffffffffff',
      calls: [{ tool: 'get_user_info' }],
    })
    expect(foreign.status).toBe(404)
  })
})

describe('multicall and the rate limit', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ env: { HERALD_RATE_LIMIT_PER_MINUTE: '5' } })
  })
  afterAll(() => h.close())

  it('counts every inner call against the key, so a batch cannot multiply the limit', async () => {
    // The batch itself is 1 request; 4 inner calls fit the limit of 5, the fifth and later are refused.
    const { status, body } = await h.call('multicall', {
      calls: Array.from({ length: 8 }, () => ({ tool: 'get_user_info' })),
      stopOnError: false,
    })
    expect(status).toBe(200)
    expect(body.succeeded).toBe(4)
    expect(body.results.slice(4).map((r: { error?: { code: string } }) => r.error?.code)).toEqual([
      'rate_limited',
      'rate_limited',
      'rate_limited',
      'rate_limited',
    ])
    const next = await h.call('get_user_info')
    expect(next.status).toBe(429)
  })
})
