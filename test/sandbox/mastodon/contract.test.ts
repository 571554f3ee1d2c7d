import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../../src/platform/clock.js'
import { checkAnswer, checkCall, loadMastodonSpec } from '../../../src/sandbox/mastodon/contract.js'
import { type SimulatedInstance, startSimulatedInstance } from '../../helpers/mastodon-instance.js'
import { mp4File, solidImage } from '../../media/fixtures.js'

/**
 * The Mastodon simulator held to the description of Mastodon's API (mastodon.openapi.json) and to what the
 * docs say the server does: a call the description does not describe is refused and recorded, answers carry
 * every required attribute, the rate-limit headers, media processing, the idempotency window, Link paging,
 * and the OAuth metadata of a server from 4.3 against a legacy one.
 */

const spec = loadMastodonSpec()!
const HOUR = 3_600_000
const redirectUri = 'https://client.example/callback'

describe('the description of the Mastodon API, as the simulator reads it', () => {
  it('accepts a status with media, a reply and the options Herald sends, and refuses fields it does not declare', () => {
    const body = {
      status: 'x',
      media_ids: true,
      in_reply_to_id: true,
      spoiler_text: true,
      visibility: true,
      language: true,
    }
    expect(checkCall(spec, { method: 'POST', path: '/api/v1/statuses', query: {}, body })).toEqual([])
    expect(
      checkCall(spec, {
        method: 'POST',
        path: '/api/v1/statuses',
        query: {},
        body: { status: 'x', colour: 'red' },
      }),
    ).toEqual(['POST /api/v1/statuses: the body has fields the description does not declare (colour)'])
    expect(
      checkCall(spec, {
        method: 'POST',
        path: '/api/v1/statuses',
        query: {},
        body: { visibility: 'public' },
      })[0],
    ).toMatch(/lacks a required field/)
  })

  it('matches an id in a path, the form spelling of arrays, and refuses a query parameter it does not declare', () => {
    expect(
      checkCall(spec, {
        method: 'GET',
        path: '/api/v1/accounts/123/statuses',
        query: { limit: '40', max_id: '9' },
      }),
    ).toEqual([])
    expect(
      checkCall(spec, {
        method: 'POST',
        path: '/api/v1/statuses',
        query: {},
        body: { status: 'x', 'media_ids[]': true },
      }),
    ).toEqual([])
    expect(
      checkCall(spec, { method: 'GET', path: '/api/v1/accounts/123/statuses', query: { page: '2' } }),
    ).toEqual(['GET /api/v1/accounts/123/statuses: unknown query parameter page'])
    expect(checkCall(spec, { method: 'GET', path: '/api/v9/nothing', query: {} })[0]).toMatch(
      /has no such method/,
    )
  })

  it('finds the attributes an answer lacks', () => {
    expect(checkAnswer(spec, 'GET', '/api/v1/statuses/1', 200, { id: '1' })[0]).toMatch(/lacks .*account/)
  })
})

describe('a simulated instance, held to the description', () => {
  const clock = new FakeClock(Date.UTC(2026, 7, 3, 9))
  let instance: SimulatedInstance
  let token = ''
  let app: { client_id: string; client_secret: string }

  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${instance.url}${path}`, {
      ...init,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string>),
      },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    })
  const upload = async (bytes: Buffer, type: string) => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(bytes)], { type }), 'file')
    return api('/api/v2/media', { method: 'POST', body: form })
  }

  beforeAll(async () => {
    instance = await startSimulatedInstance('contract.example', () => clock.now())
    app = await (
      await api('/api/v1/apps', {
        method: 'POST',
        json: { client_name: 'Contract', redirect_uris: [redirectUri], scopes: 'read write' },
      })
    ).json()
    const verifier = 'a'.repeat(50)
    const code = await instance.signIn({
      clientId: app.client_id,
      redirectUri,
      scope: 'read write',
      username: 'carol',
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    })
    const answer = await api('/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'authorization_code',
        code,
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      },
    })
    expect(answer.status).toBe(200)
    token = (await answer.json()).access_token
  })
  afterAll(async () => {
    await instance.close()
  })

  it('refuses a call the description does not describe, and records it', async () => {
    const answer = await api('/api/v1/statuses', { method: 'POST', json: { status: 'hi', colour: 'red' } })
    expect(answer.status).toBe(400)
    expect(instance.sandbox.violations.splice(0)).toEqual([
      'POST /api/v1/statuses: the body has fields the description does not declare (colour)',
    ])
  })

  it('answers with the rate-limit headers, and 429 with its reset once the account used its 5 minutes', async () => {
    const first = await api('/api/v1/accounts/verify_credentials')
    expect(first.status).toBe(200)
    expect(first.headers.get('x-ratelimit-limit')).toBe('300')
    expect(Date.parse(first.headers.get('x-ratelimit-reset')!)).toBeGreaterThan(clock.now())
    instance.sandbox.instance('contract.example').settings.requestLimit = 3
    const answers = [
      await api('/api/v1/accounts/verify_credentials'),
      await api('/api/v1/accounts/verify_credentials'),
    ]
    expect(answers.map((a) => a.status)).toContain(429)
    const limited = answers.find((a) => a.status === 429)!
    expect(await limited.json()).toEqual({ error: 'Too many requests' })
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0')
    clock.advance(5 * 60_000)
    instance.sandbox.instance('contract.example').settings.requestLimit = 300
    expect((await api('/api/v1/accounts/verify_credentials')).status).toBe(200)
  })

  it('processes a video asynchronously (202, then 206 until ready) and refuses a status naming it before', async () => {
    const accepted = await upload(
      mp4File({ width: 320, height: 240, durationMs: 1000, mdatBytes: 4096 }),
      'video/mp4',
    )
    expect(accepted.status).toBe(202)
    const media = await accepted.json()
    expect(media.url).toBeNull()
    const early = await api('/api/v1/statuses', { method: 'POST', json: { media_ids: [media.id] } })
    expect(early.status).toBe(422)
    const polls: number[] = []
    for (let i = 0; i < 5 && polls.at(-1) !== 200; i++)
      polls.push((await api(`/api/v1/media/${media.id}`)).status)
    expect(polls).toEqual([206, 206, 200])
    const status = await api('/api/v1/statuses', { method: 'POST', json: { media_ids: [media.id] } })
    expect(status.status).toBe(200)
    // An attached file is no longer the account's to read by id.
    expect((await api(`/api/v1/media/${media.id}`)).status).toBe(404)
  })

  it('refuses images mixed with a video, too many files, and text over the limit with the content warning', async () => {
    const image = await (await upload(await solidImage(32, 32, 'jpeg'), 'image/jpeg')).json()
    const video = await upload(
      mp4File({ width: 320, height: 240, durationMs: 1000, mdatBytes: 1024 }),
      'video/mp4',
    )
    const clip = await video.json()
    for (let i = 0; i < 3; i++) await api(`/api/v1/media/${clip.id}`)
    const mixed = await api('/api/v1/statuses', { method: 'POST', json: { media_ids: [image.id, clip.id] } })
    expect(mixed.status).toBe(422)
    const long = await api('/api/v1/statuses', {
      method: 'POST',
      json: { status: 'x'.repeat(495), spoiler_text: 'spoilers' },
    })
    expect(long.status).toBe(422)
    expect((await long.json()).error).toBe('Validation failed: Text character limit of 500 exceeded')
    // Every link weighs 23, however long it is.
    const links = await api('/api/v1/statuses', {
      method: 'POST',
      json: { status: `${'x'.repeat(470)} https://example.com/${'a'.repeat(200)}` },
    })
    expect(links.status).toBe(200)
  })

  it('answers a repeat with the same Idempotency-Key with the first status for an hour, then makes a new one', async () => {
    const post = () =>
      api('/api/v1/statuses', {
        method: 'POST',
        json: { status: 'keyed' },
        headers: { 'idempotency-key': 'k-1' },
      }).then((r) => r.json())
    const first = await post()
    clock.advance(HOUR - 1_000)
    expect((await post()).id).toBe(first.id)
    clock.advance(2_000)
    const later = await post()
    expect(later.id).not.toBe(first.id)
  })

  it('pages an account statuses newest first by the Link header', async () => {
    const me = await (await api('/api/v1/accounts/verify_credentials')).json()
    for (let i = 0; i < 3; i++)
      await api('/api/v1/statuses', { method: 'POST', json: { status: `paged ${i}` } })
    const first = await api(`/api/v1/accounts/${me.id}/statuses?limit=2`)
    const link = first.headers.get('link')!
    expect(link).toMatch(/rel="next"/)
    const next = new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!)
    const second = await api(`${next.pathname}${next.search}`)
    const ids = [...(await first.json()), ...(await second.json())].map((s: { id: string }) => BigInt(s.id))
    expect(ids).toEqual([...ids].sort((a, b) => (b > a ? 1 : -1)))
  })

  it('names its OAuth endpoints and PKCE from 4.3, and a legacy instance names none and takes no challenge', async () => {
    const metadata = await (await api('/.well-known/oauth-authorization-server')).json()
    expect(metadata.code_challenge_methods_supported).toEqual(['S256'])
    expect(metadata.token_endpoint).toBe(`${instance.url}/oauth/token`)
    instance.sandbox.instance('contract.example').settings.legacy = true
    try {
      expect((await api('/.well-known/oauth-authorization-server')).status).toBe(404)
    } finally {
      instance.sandbox.instance('contract.example').settings.legacy = false
    }
  })

  it('forgets its apps and the tokens they issued when told to', async () => {
    const forgot = await fetch(`${instance.url}/_sandbox/forget-apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host: 'contract.example' }),
    })
    expect(await forgot.json()).toEqual({ host: 'contract.example', forgotten: 1 })
    expect((await api('/api/v1/accounts/verify_credentials')).status).toBe(401)
    const client = await api('/oauth/token', {
      method: 'POST',
      json: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
    })
    expect(client.status).toBe(401)
    expect((await client.json()).error).toBe('invalid_client')
    expect(instance.sandbox.violations).toEqual([])
  })
})
