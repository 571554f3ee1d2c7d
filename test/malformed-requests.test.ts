import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './helpers/harness.js'

interface Case {
  name: string
  tool?: string
  body: string | Buffer
  contentType?: string | null
  method?: string
}

const calls = (n: number) =>
  JSON.stringify({ calls: Array.from({ length: n }, () => ({ tool: 'get_user_info' })) })

const cases: Case[] = [
  { name: 'an unterminated object', body: '{' },
  { name: 'a missing value', body: '{"workspaceId":}' },
  { name: 'trailing garbage', body: '{}x' },
  { name: 'single quotes', body: "{'a':1}" },
  { name: 'an array body', body: '[]' },
  { name: 'a string body', body: '"hello"' },
  { name: 'a number body', body: '42' },
  { name: 'a null body', body: 'null' },
  { name: 'a boolean body', body: 'true' },
  { name: 'text/plain', body: '{}', contentType: 'text/plain' },
  { name: 'a form body', body: 'a=1', contentType: 'application/x-www-form-urlencoded' },
  { name: 'multipart', body: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x' },
  { name: 'XML', body: '<a/>', contentType: 'application/xml' },
  { name: 'no content type', body: '{}', contentType: null },
  { name: 'an unknown field', body: '{"verbose":true}' },
  { name: 'a prototype key', body: '{"__proto__":{"admin":true}}' },
  { name: 'a constructor key', body: '{"constructor":{"prototype":{}}}' },
  { name: 'workspaceId as a number', body: '{"workspaceId":12}' },
  { name: 'workspaceId as an object', body: '{"workspaceId":{"$ne":null}}' },
  { name: 'workspaceId as an array', body: '{"workspaceId":["a"]}' },
  { name: 'a huge workspaceId', body: JSON.stringify({ workspaceId: 'x'.repeat(10_000) }) },
  { name: 'a duplicate key whose last value is wrong', body: '{"workspaceId":"a","workspaceId":1}' },
  { name: 'a huge string in an unknown field', body: JSON.stringify({ note: 'x'.repeat(900_000) }) },
  { name: 'a body over 1 MB', body: JSON.stringify({ note: 'x'.repeat(1_100_000) }) },
  { name: 'deeply nested arrays', body: `{"workspaceId":${'['.repeat(5000)}${']'.repeat(5000)}}` },
  { name: 'multicall without calls', tool: 'multicall', body: '{}' },
  { name: 'multicall calls as a string', tool: 'multicall', body: '{"calls":"get_user_info"}' },
  { name: 'multicall calls as an object', tool: 'multicall', body: '{"calls":{"tool":"get_user_info"}}' },
  { name: 'multicall with no calls', tool: 'multicall', body: '{"calls":[]}' },
  { name: 'multicall with 21 calls', tool: 'multicall', body: calls(21) },
  { name: 'multicall call without tool', tool: 'multicall', body: '{"calls":[{"id":"a"}]}' },
  { name: 'multicall tool as a number', tool: 'multicall', body: '{"calls":[{"tool":7}]}' },
  { name: 'multicall tool empty', tool: 'multicall', body: '{"calls":[{"tool":""}]}' },
  {
    name: 'multicall arguments as an array',
    tool: 'multicall',
    body: '{"calls":[{"tool":"get_user_info","arguments":[]}]}',
  },
  {
    name: 'multicall id as a number',
    tool: 'multicall',
    body: '{"calls":[{"tool":"get_user_info","id":1}]}',
  },
  {
    name: 'multicall stopOnError as a string',
    tool: 'multicall',
    body: '{"calls":[{"tool":"get_user_info"}],"stopOnError":"yes"}',
  },
  {
    name: 'multicall unknown field in a call',
    tool: 'multicall',
    body: '{"calls":[{"tool":"get_user_info","args":{}}]}',
  },
  {
    name: 'multicall unknown top-level field',
    tool: 'multicall',
    body: '{"calls":[{"tool":"get_user_info"}],"parallel":true}',
  },
  { name: 'multicall of an unknown tool', tool: 'multicall', body: '{"calls":[{"tool":"drop_tables"}]}' },
  { name: 'an unknown tool', tool: 'drop_tables', body: '{}' },
  { name: 'a tool name with path tricks', tool: '..%2F..%2Fadmin', body: '{}' },
  { name: 'GET on a tool', body: '', method: 'GET' },
]

function send(baseUrl: string, key: string, c: Case): Promise<{ status: number; body: string }> {
  const url = new URL(`${baseUrl}/api/tools/${c.tool ?? 'get_user_info'}`)
  const body = typeof c.body === 'string' ? Buffer.from(c.body) : c.body
  const headers: Record<string, string | number> = { 'x-api-key': key }
  if (c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json'
  if (body.length > 0) headers['content-length'] = body.length
  return new Promise((resolve, reject) => {
    const req = request(url, { method: c.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('malformed requests', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness()
  })
  afterAll(() => h.close())

  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30)
  })

  it.each(cases)('answers $name with a 4xx JSON error and never a 5xx', async (c) => {
    const before = await h.app.store.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const response = await send(h.baseUrl, h.apiKey, c)
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    const parsed = JSON.parse(response.body)
    expect(parsed.success).toBe(false)
    expect(typeof parsed.error.code).toBe('string')
    expect(typeof parsed.error.message).toBe('string')
    const after = await h.app.store.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  it('answers wrong content types with 415 and oversized bodies with 413', async () => {
    expect(
      (await send(h.baseUrl, h.apiKey, { name: 'text', body: '{}', contentType: 'text/plain' })).status,
    ).toBe(415)
    expect(
      (await send(h.baseUrl, h.apiKey, { name: 'big', body: JSON.stringify({ n: 'x'.repeat(1_100_000) }) }))
        .status,
    ).toBe(413)
  })

  it('accepts an empty JSON body as no arguments', async () => {
    expect((await send(h.baseUrl, h.apiKey, { name: 'empty', body: '' })).status).toBe(200)
  })
})
