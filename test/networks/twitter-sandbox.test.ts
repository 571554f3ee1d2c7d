import { createHash } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { registerTwitterSandbox, type TwitterSandbox } from '../../src/sandbox/twitter/index.js'

/** The sandbox on its own, spoken to over HTTP as X's clients would (no adapter, no OpenAPI file needed). */
describe('the X sandbox', () => {
  let server: FastifyInstance
  let sandbox: TwitterSandbox
  let api: string
  let control: string
  let origin: string
  const clock = new FakeClock(Date.UTC(2026, 4, 1, 9, 0, 0))

  beforeAll(async () => {
    server = Fastify()
    sandbox = registerTwitterSandbox(server, {
      prefix: '/x',
      clock: () => clock.now(),
      processingDelayMs: 2500,
    })
    origin = (await server.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1')
    api = `${origin}/x/api`
    control = `${origin}/x/_sandbox`
  })
  afterAll(() => server.close())

  const call = async (
    method: string,
    url: string,
    init: { token?: string; json?: unknown; body?: RequestInit['body'] } = {},
  ) => {
    const headers: Record<string, string> = {}
    if (init.token) headers.authorization = `Bearer ${init.token}`
    if (init.json !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(url, {
      method,
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      redirect: 'manual',
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
  }
  const tokenFor = async (username: string, scopes?: string[]) =>
    (await call('POST', `${control}/tokens`, { json: { username, ...(scopes ? { scopes } : {}) } })).body
      .access_token as string

  it('answers 401 in X problem shape for a missing or unknown token', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const response = await call('GET', `${api}/2/users/me`, { token })
      expect(response.status).toBe(401)
      expect(response.headers.get('content-type')).toContain('application/problem+json')
      expect(response.body).toEqual({
        title: 'Unauthorized',
        type: 'about:blank',
        status: 401,
        detail: 'Unauthorized',
      })
    }
  })

  it('creates accounts with a tier through the control surface and serves them on users/me', async () => {
    const created = await call('POST', `${control}/accounts`, {
      json: { username: 'quinn', name: 'Quinn Q', tier: 'premium', followersCount: 9 },
    })
    expect(created.status).toBe(201)
    const token = await tokenFor('quinn')
    const me = await call('GET', `${api}/2/users/me?user.fields=public_metrics,profile_image_url`, { token })
    expect(me.status).toBe(200)
    expect(me.body.data).toMatchObject({
      id: created.body.id,
      username: 'quinn',
      name: 'Quinn Q',
      public_metrics: { followers_count: 9, post_count: 0 },
    })
  })

  it('refuses an unknown query parameter or field value with 400 invalid-request', async () => {
    const token = await tokenFor('quinn')
    const bad = await call('GET', `${api}/2/users/me?user.fields=shoe_size`, { token })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({
      type: 'https://api.x.com/2/problems/invalid-request',
      title: 'Invalid Request',
      status: 400,
      errors: [{ parameters: { 'user.fields': ['shoe_size'] } }],
    })
    expect((await call('GET', `${api}/2/users/me?colour=blue`, { token })).status).toBe(400)
  })

  it('sends x-rate-limit headers that count down, then 429 until the window resets', async () => {
    sandbox.setRateLimit('getUsersMe', 2)
    const token = await tokenFor('rita')
    const first = await call('GET', `${api}/2/users/me`, { token })
    const reset = Number(first.headers.get('x-rate-limit-reset'))
    expect(first.headers.get('x-rate-limit-limit')).toBe('2')
    expect(first.headers.get('x-rate-limit-remaining')).toBe('1')
    expect(reset).toBe(Math.ceil((clock.now() + 15 * 60_000) / 1000))
    const second = await call('GET', `${api}/2/users/me`, { token })
    expect(second.headers.get('x-rate-limit-remaining')).toBe('0')
    const third = await call('GET', `${api}/2/users/me`, { token })
    expect(third.status).toBe(429)
    expect(third.body).toEqual({
      title: 'Too Many Requests',
      type: 'about:blank',
      status: 429,
      detail: 'Too Many Requests',
    })
    expect(third.headers.get('x-rate-limit-reset')).toBe(String(reset))
    // Windows are per user: another account is unaffected.
    expect((await call('GET', `${api}/2/users/me`, { token: await tokenFor('sam') })).status).toBe(200)
    clock.set(reset * 1000)
    expect((await call('GET', `${api}/2/users/me`, { token })).status).toBe(200)
    sandbox.setRateLimit('getUsersMe', 75)
  })

  it('walks a video through pending, in_progress and succeeded, with check_after_secs', async () => {
    const token = await tokenFor('tess')
    const init = await call('POST', `${api}/2/media/upload/initialize`, {
      token,
      json: { media_type: 'video/mp4', total_bytes: 6, media_category: 'tweet_video' },
    })
    expect(init.status).toBe(200)
    const id = init.body.data.id as string
    expect(id).toMatch(/^[0-9]{1,19}$/)
    const form = new FormData()
    form.append('media', new Blob([Buffer.from('abcdef')]))
    form.append('segment_index', '0')
    expect((await call('POST', `${api}/2/media/upload/${id}/append`, { token, body: form })).status).toBe(200)
    // A post cannot use the video before processing ends.
    const finalized = await call('POST', `${api}/2/media/upload/${id}/finalize`, { token })
    expect(finalized.body.data).toMatchObject({
      id,
      size: 6,
      processing_info: { state: 'pending', check_after_secs: 1 },
    })
    const early = await call('POST', `${api}/2/tweets`, {
      token,
      json: { text: 'too soon', media: { media_ids: [id] } },
    })
    expect(early.status).toBe(400)
    const states: string[] = []
    for (let i = 0; i < 3; i++) {
      clock.advance(1000)
      const status = await call('GET', `${api}/2/media/upload?command=STATUS&media_id=${id}`, { token })
      states.push(status.body.data.processing_info.state)
    }
    expect(states).toEqual(['in_progress', 'in_progress', 'succeeded'])
    const posted = await call('POST', `${api}/2/tweets`, {
      token,
      json: { text: 'now', media: { media_ids: [id] } },
    })
    expect(posted.status).toBe(201)
  })

  it('refuses segments that do not add up, and images over 5 MB at initialize', async () => {
    const token = await tokenFor('uma')
    const init = await call('POST', `${api}/2/media/upload/initialize`, {
      token,
      json: { media_type: 'image/png', total_bytes: 10, media_category: 'tweet_image' },
    })
    const id = init.body.data.id as string
    const form = new FormData()
    form.append('media', new Blob([Buffer.from('abc')]))
    form.append('segment_index', '0')
    await call('POST', `${api}/2/media/upload/${id}/append`, { token, body: form })
    const finalized = await call('POST', `${api}/2/media/upload/${id}/finalize`, { token })
    expect(finalized.status).toBe(400)
    expect(finalized.body.detail).toBe('Segments do not add up to provided total file size.')
    const big = await call('POST', `${api}/2/media/upload/initialize`, {
      token,
      json: { media_type: 'image/png', total_bytes: 5 * 1024 * 1024 + 1, media_category: 'tweet_image' },
    })
    expect(big.status).toBe(400)
    expect(big.body.detail).toBe('File size exceeds 5242880 bytes.')
  })

  it('enforces 280 weighted characters for standard accounts and 25,000 for premium ones', async () => {
    const standard = await tokenFor('vic')
    sandbox.createAccount({ username: 'wes', tier: 'premium' })
    const premium = await tokenFor('wes')
    const url = `https://example.com/${'a'.repeat(200)}`
    // A URL weighs 23 whatever its length: 257 + 1 + 23 = 281 is over, 256 + 1 + 23 = 280 fits.
    expect(
      (
        await call('POST', `${api}/2/tweets`, {
          token: standard,
          json: { text: `${'a'.repeat(257)} ${url}` },
        })
      ).status,
    ).toBe(400)
    expect(
      (
        await call('POST', `${api}/2/tweets`, {
          token: standard,
          json: { text: `${'b'.repeat(256)} ${url}` },
        })
      ).status,
    ).toBe(201)
    expect(
      (await call('POST', `${api}/2/tweets`, { token: premium, json: { text: 'c'.repeat(25_000) } })).status,
    ).toBe(201)
    expect(
      (await call('POST', `${api}/2/tweets`, { token: premium, json: { text: 'd'.repeat(25_001) } })).status,
    ).toBe(400)
  })

  it('answers the text as X stores it: t.co links with their entities, & < > escaped, NFC', async () => {
    const token = await tokenFor('vic')
    const created = await call('POST', `${api}/2/tweets`, {
      token,
      json: { text: 'Cafe\u0301 & <bread> at example.com/menu and https://example.org/a?b=1' },
    })
    expect(created.status).toBe(201)
    const { data } = (
      await call('GET', `${api}/2/tweets/${created.body.data.id}?post.fields=entities`, { token })
    ).body
    expect(data.text).toMatch(
      /^Caf\u00e9 &amp; &lt;bread&gt; at https:\/\/t\.co\/\w{10} and https:\/\/t\.co\/\w{10}$/,
    )
    expect(created.body.data.text).toBe(data.text)
    const [menu, other] = data.entities.urls
    expect(menu).toMatchObject({ expanded_url: 'http://example.com/menu', display_url: 'example.com/menu' })
    expect(other).toMatchObject({ expanded_url: 'https://example.org/a?b=1' })
    // Offsets count code points of the text as answered.
    expect([...data.text].slice(menu.start, menu.end).join('')).toBe(menu.url)
    expect([...data.text].slice(other.start, other.end).join('')).toBe(other.url)
  })

  it('cuts a premium post over 280 characters in `text` and answers the whole text in note_post', async () => {
    sandbox.createAccount({ username: 'long_wes', tier: 'premium' })
    const token = await tokenFor('long_wes')
    const full = `${'Long & winding road. '.repeat(30)}The end: https://example.com/end`
    const created = await call('POST', `${api}/2/tweets`, { token, json: { text: full } })
    expect(created.status).toBe(201)
    const { data } = (
      await call('GET', `${api}/2/tweets/${created.body.data.id}?post.fields=note_post,entities`, { token })
    ).body
    expect(data.text.endsWith('…')).toBe(true)
    expect(data.text.length).toBeLessThan(full.length / 2)
    expect(data.note_post.text).toMatch(/^(Long &amp; winding road\. ){30}The end: https:\/\/t\.co\/\w{10}$/)
    expect(data.note_post.entities.urls[0]).toMatchObject({ expanded_url: 'https://example.com/end' })
    const short = await call('GET', `${api}/2/tweets/${created.body.data.id}`, { token })
    expect(short.body.data.note_post).toBeUndefined()
  })

  it('refuses a property CreatePostsRequest does not define, as X does', async () => {
    const token = await tokenFor('vic')
    const response = await call('POST', `${api}/2/tweets`, { token, json: { text: 'hi', status: 'x' } })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].message).toMatch(/\$\.status: is not defined in the schema/)
  })

  it('verifies PKCE S256 and rotates refresh tokens', async () => {
    const verifier = 'v'.repeat(50)
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const form = new URLSearchParams({
      response_type: 'code',
      client_id: 'app',
      redirect_uri: 'http://127.0.0.1:1/cb',
      scope: 'tweet.read users.read offline.access',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      username: 'yara',
      decision: 'authorize',
    })
    for (const scope of ['tweet.read', 'users.read', 'offline.access']) form.append('granted_scope', scope)
    const consent = await fetch(`${origin}/x/i/oauth2/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    })
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!
    const token = (fields: Record<string, string>) =>
      call('POST', `${api}/2/oauth2/token`, { body: new URLSearchParams({ client_id: 'app', ...fields }) })
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:1/cb' }
    const granted = await token({ ...exchange, code_verifier: verifier })
    expect(granted.status).toBe(200)
    expect(granted.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 7200,
      scope: 'tweet.read users.read offline.access',
    })
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: granted.body.refresh_token })
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(granted.body.refresh_token)
    const stale = await token({ grant_type: 'refresh_token', refresh_token: granted.body.refresh_token })
    expect(stale).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
    })
  })

  it('shows an error page instead of redirecting when the authorize request is malformed', async () => {
    const response = await fetch(
      `${origin}/x/i/oauth2/authorize?response_type=code&client_id=a&redirect_uri=javascript:alert(1)`,
      {
        redirect: 'manual',
      },
    )
    expect(response.status).toBe(400)
    expect(await response.text()).toContain('redirect_uri must be http(s).')
  })

  it('fails the next calls of an endpoint on demand, then recovers', async () => {
    const token = await tokenFor('zoe')
    const injected = await call('POST', `${control}/failures`, {
      json: { endpoint: 'createPosts', status: 503, count: 2 },
    })
    expect(injected.status).toBe(201)
    expect((await call('POST', `${api}/2/tweets`, { token, json: { text: 'one' } })).status).toBe(503)
    expect((await call('POST', `${api}/2/tweets`, { token, json: { text: 'two' } })).status).toBe(503)
    expect((await call('POST', `${api}/2/tweets`, { token, json: { text: 'three' } })).status).toBe(201)
    const received = await call('GET', `${control}/tweets`)
    expect(
      received.body
        .filter((tweet: { username: string }) => tweet.username === 'zoe')
        .map((t: { text: string }) => t.text),
    ).toEqual(['three'])
  })

  it('revokes every token of a user, which then gets 401', async () => {
    const token = await tokenFor('ada')
    expect((await call('POST', `${control}/accounts/ada/revoke`)).body.revoked).toBeGreaterThan(0)
    expect((await call('GET', `${api}/2/users/me`, { token })).status).toBe(401)
  })

  it('keeps state per instance', async () => {
    const other = Fastify()
    const second = registerTwitterSandbox(other, { prefix: '/x' })
    await other.ready()
    expect(second.tweets()).toEqual([])
    expect(sandbox.tweets().length).toBeGreaterThan(0)
    await other.close()
  })
})
