import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revokeApiKey } from '../src/platform/db/statements/accounts.js'
import { connectProfile } from './helpers/connections.js'
import { type Harness, startHarness } from './helpers/harness.js'

/**
 * An MCP SSE session used to keep acting with the caller captured when its stream opened, so a
 * key revoked afterwards went on creating posts through `/mcp/messages`. These tests perform that attack.
 */

interface RawSse {
  /** The message endpoint the server announced (`/mcp/messages?sessionId=…`). */
  endpoint: string
  /** Every `data:` payload of a `message` event so far. */
  messages: unknown[]
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  post(message: unknown): Promise<Response>
  close(): void
}

/** Opens the legacy SSE stream by hand, as an attacker's client would, and reads its events. */
async function openSse(baseUrl: string, key: string): Promise<RawSse> {
  const abort = new AbortController()
  const response = await fetch(`${baseUrl}/mcp?apikey=${encodeURIComponent(key)}`, {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  })
  expect(response.status).toBe(200)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const messages: unknown[] = []
  let buffer = ''
  let announce: (endpoint: string) => void = () => {}
  const announced = new Promise<string>((resolve) => {
    announce = resolve
  })
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        buffer += value
        let cut = buffer.indexOf('\n\n')
        while (cut >= 0) {
          const event = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const name = /^event: (.*)$/m.exec(event)?.[1]
          const data = /^data: (.*)$/m.exec(event)?.[1] ?? ''
          if (name === 'endpoint') announce(data)
          else if (name === 'message') messages.push(JSON.parse(data))
          cut = buffer.indexOf('\n\n')
        }
      }
    } catch {}
  })()
  const endpoint = await announced
  return {
    endpoint,
    messages,
    ended,
    post: (message) =>
      fetch(new URL(endpoint, baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
      }),
    close: () => abort.abort(),
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
}

const createPost = (id: number, content: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'create_post',
    arguments: {
      content,
      targetAccounts: [{ platform: 'twitter', profileId: 'tw-1' }],
      scheduleDate: '2031-01-01',
      scheduleTime: '10:00',
    },
  },
})

const until = async (check: () => boolean, ms = 5_000) => {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('MCP SSE sessions after their key is revoked', () => {
  let h: Harness
  const postCount = async () =>
    Number(
      (
        await h.app.store.db
          .selectFrom('posts')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', h.workspaceId)
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    h = await startHarness()
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
  })
  afterAll(() => h.close())

  it('refuses the next message once the key is revoked elsewhere, and creates nothing', async () => {
    const key = await h.app.accounts.createKey({ email: h.email, name: 'agent' })
    const sse = await openSse(h.baseUrl, key.apiKey)
    await sse.post(initialize)
    await sse.post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect((await sse.post(createPost(1, 'before revocation'))).status).toBe(202)
    await until(() => sse.messages.some((m: any) => m.id === 1))
    const before = await postCount()
    expect(before).toBe(1)

    // Revoked the way the `herald` CLI does it, in another process: this server hears nothing of it.
    await revokeApiKey(h.app.store.db, key.id, Date.now())
    const refused = await sse.post(createPost(2, 'after revocation'))
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as any).error.code).toBe('unauthorized')
    await sse.ended
    expect(sse.messages.some((m: any) => m.id === 2)).toBe(false)
    expect(await postCount()).toBe(before)
  })

  it('closes the open stream at once when the key is revoked from the dashboard', async () => {
    const key = await h.app.accounts.createKey({ email: h.email, name: 'second agent' })
    const sse = await openSse(h.baseUrl, key.apiKey)
    await sse.post(initialize)
    let closed = false
    void sse.ended.then(() => {
      closed = true
    })
    const before = await postCount()
    await h.app.accounts.revokeKey({ id: key.id })
    await until(() => closed)
    const refused = await sse.post(createPost(3, 'on a closed session'))
    expect([401, 404]).toContain(refused.status)
    expect(await postCount()).toBe(before)
  })

  it('keeps a live key’s session working', async () => {
    const sse = await openSse(h.baseUrl, h.apiKey)
    await sse.post(initialize)
    expect((await sse.post(createPost(4, 'still allowed'))).status).toBe(202)
    await until(() => sse.messages.some((m: any) => m.id === 4))
    expect((sse.messages.find((m: any) => m.id === 4) as any).result.isError).toBeFalsy()
    sse.close()
  })
})
