import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import type { FaultInjector } from '../../src/sandbox/fault-injector.js'
import { registerTwitterSandbox } from '../../src/sandbox/twitter/index.js'

/**
 * The two switches a fault injector gives every simulator besides its per-call faults, shown on X: a listing
 * lag (a timeline trails the write, a read by id does not) and the duplicate-content check turned off (a
 * second send of the same copy is a second post, so a test counting copies sees it).
 */
describe("a simulator's listing lag and duplicate check", () => {
  let server: FastifyInstance
  let api: string
  let control: string
  const clock = new FakeClock(Date.UTC(2026, 4, 1, 9, 0, 0))
  const switches = { lagMs: 0, duplicates: true }
  const injector: FaultInjector = {
    decide: () => undefined,
    listingLagMs: () => switches.lagMs,
    refusesDuplicates: () => switches.duplicates,
  }

  beforeAll(async () => {
    server = Fastify()
    registerTwitterSandbox(server, { prefix: '/x', clock: () => clock.now(), faults: injector })
    const origin = (await server.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1')
    api = `${origin}/x/api`
    control = `${origin}/x/_sandbox`
  })
  afterAll(() => server.close())

  const call = async (method: string, url: string, token?: string, json?: unknown) => {
    const response = await fetch(url, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const account = async (username: string) => {
    const tokens = (await call('POST', `${control}/tokens`, undefined, { username })).body
    const me = (await call('GET', `${api}/2/users/me`, tokens.access_token)).body.data
    return { token: tokens.access_token as string, id: me.id as string }
  }
  const timeline = async (who: { token: string; id: string }) =>
    ((await call('GET', `${api}/2/users/${who.id}/tweets?max_results=10`, who.token)).body.data ?? []).map(
      (t: { id: string }) => t.id,
    )

  it('keeps a new post out of the timeline until the lag has passed, while a read by id sees it at once', async () => {
    switches.lagMs = 30_000
    const who = await account('lagging_profile')
    const made = await call('POST', `${api}/2/tweets`, who.token, { text: 'Made just now' })
    expect(made.status).toBe(201)
    const id = made.body.data.id as string
    expect(await timeline(who)).toEqual([])
    expect((await call('GET', `${api}/2/tweets/${id}`, who.token)).status).toBe(200)
    clock.advance(29_000)
    expect(await timeline(who)).toEqual([])
    clock.advance(1_000)
    expect(await timeline(who)).toEqual([id])
    switches.lagMs = 0
  })

  it('makes a second post of the same copy once the duplicate check is off, and refuses it while on', async () => {
    const who = await account('repeating_profile')
    expect((await call('POST', `${api}/2/tweets`, who.token, { text: 'Said twice' })).status).toBe(201)
    expect((await call('POST', `${api}/2/tweets`, who.token, { text: 'Said twice' })).status).toBe(403)
    switches.duplicates = false
    expect((await call('POST', `${api}/2/tweets`, who.token, { text: 'Said twice' })).status).toBe(201)
    expect(await timeline(who)).toHaveLength(2)
    switches.duplicates = true
  })
})
