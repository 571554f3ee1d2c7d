import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nearestName } from '../../src/interfaces/tools/validation-messages.js'
import { type Harness, startHarness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

const problems = (body: any) => body.error.details as Array<{ path: string; message: string }>

describe('validation errors are written for people', () => {
  it('says that content is required, naming the field', async () => {
    const { status, body } = await h.call('create_post', { targetAccounts: [] })
    expect(status).toBe(400)
    expect(body.error.code).toBe('invalid_request')
    expect(problems(body)).toContainEqual({ path: 'content', message: 'content is required' })
    expect(body.error.message).toContain('content is required')
    expect(body.error.message).not.toMatch(/expected string, received undefined/)
  })

  it('says what type a field must be and where it sits in the body', async () => {
    const { body } = await h.call('create_post', {
      content: 'hi',
      targetAccounts: [{ platform: 'twitter', profileId: 7 }],
      publishImmediately: true,
    })
    expect(problems(body)).toContainEqual({
      path: 'targetAccounts.0.profileId',
      message: 'targetAccounts.0.profileId must be text',
    })
  })

  it('lists the accepted values of an enumeration', async () => {
    const { body } = await h.call('list_posts', { status: 'sent' })
    const detail = problems(body).find((d) => d.path === 'status')
    expect(detail?.message).toMatch(/^status must be one of "all", "scheduled", /)
  })

  it('names an unknown field', async () => {
    const { body } = await h.call('get_user_info', { verbose: true })
    expect(problems(body)).toEqual([{ path: '(body)', message: 'The body has an unknown field: verbose' }])
  })

  it('says that a time zone must be an IANA zone name', async () => {
    const { status, body } = await h.call('create_post', {
      content: 'hi',
      targetAccounts: [],
      scheduleDate: '2031-01-01',
      scheduleTime: '10:00',
      timezone: 'Mars/Olympus',
    })
    expect(status).toBe(400)
    expect(body.error.message).toMatch(/timezone must be an IANA zone name such as Europe\/Paris/)
    expect(problems(body)).toContainEqual(expect.objectContaining({ path: 'timezone' }))
  })
})

describe('calling a tool the wrong way', () => {
  it('suggests the nearest tool name for a typo', async () => {
    const { status, body } = await h.call('create_posts', {})
    expect(status).toBe(404)
    expect(body.error.message).toBe('Unknown tool: create_posts. Did you mean create_post?')
  })

  it('suggests nothing for a name that is nowhere near a tool', async () => {
    const { body } = await h.call('launch_rocket', {})
    expect(body.error.message).toBe('Unknown tool: launch_rocket.')
  })

  it('tells a GET to use POST', async () => {
    const response = await fetch(`${h.baseUrl}/api/tools/list_posts`, { headers: { 'x-api-key': h.apiKey } })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    const body = (await response.json()) as any
    expect(body.error.message).toMatch(/^Use POST \/api\/tools\/list_posts with a JSON object body/)
  })

  it('finds near names by edit distance', () => {
    const known = ['get_post', 'list_posts', 'get_post_analytics']
    expect(nearestName('get_psot', known)).toBe('get_post')
    expect(nearestName('LIST_POST', known)).toBe('list_posts')
    expect(nearestName('zzzzzz', known)).toBeUndefined()
  })
})

describe('the front door', () => {
  it('sends a browser from / to the sign-in page, which links the API docs', async () => {
    const response = await fetch(`${h.baseUrl}/`, { redirect: 'manual' })
    expect(response.status).toBe(303)
    const location = response.headers.get('location') ?? ''
    expect(location).toMatch(/^\/login/)
    const login = await (await fetch(new URL(location, h.baseUrl))).text()
    expect(login).toContain('href="/docs"')
    expect(login).toContain('href="/openapi.json"')
  })
})

describe('request lines', () => {
  it('writes one line per tool call with method, route, tool, status, time and workspace, and never the key', async () => {
    const before = h.logs.length
    await h.call('get_user_info', {})
    await new Promise((resolve) => setTimeout(resolve, 20))
    const lines = h.logs
      .slice(before)
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'request')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      method: 'POST',
      route: '/api/tools/:name',
      tool: 'get_user_info',
      status: 200,
      workspaceId: h.workspaceId,
    })
    expect(typeof lines[0].ms).toBe('number')
    expect(h.logs.join('')).not.toContain(h.apiKey)
  })
})
