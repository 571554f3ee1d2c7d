import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { registerYouTubeSandbox, SCOPE, type YouTubeSandbox } from '../../src/sandbox/youtube/index.js'
import { DiscoveryRequestValidator } from '../helpers/discovery-request-validator.js'
import { discovery, pkcePair, sha256 } from './youtube-fixtures.js'

/**
 * The Google/YouTube sandbox on its own, over raw HTTP: Google's OAuth pages and token endpoint, the
 * Data API endpoints with Google's exact error bodies, quota and limits, and the control surface. It is
 * mounted on a server that, like Herald's, accepts only JSON bodies, to show the plugin reads its own.
 */

const PREFIX = '/sandbox/google'
const CLIENT_ID = 'client-1'
const REDIRECT = 'http://127.0.0.1:9/callback'
const START = Date.UTC(2026, 6, 15, 18)

let server: FastifyInstance
let sandbox: YouTubeSandbox
let base: string
let origin: string
const clock = new FakeClock(START)
const validator = discovery
  ? new DiscoveryRequestValidator(discovery, { apiUrl: 'http://x.invalid/' })
  : undefined

/** Response bodies the sandbox sends, checked against the discovery document's schemas when it is present. */
function expectSchema(name: string, body: unknown) {
  if (validator) expect(validator.validateSchema(name, body)).toEqual([])
}

beforeAll(async () => {
  server = Fastify({ logger: false })
  server.removeAllContentTypeParsers()
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (_r, body, done) =>
    done(null, JSON.parse(body as string)),
  )
  sandbox = registerYouTubeSandbox(server, {
    prefix: PREFIX,
    clock,
    client: { id: CLIENT_ID, secret: 'shh' },
    redirectUris: [REDIRECT],
    uploadLimitPerDay: 2,
  })
  await server.listen({ host: '127.0.0.1', port: 0 })
  const address = server.server.address()
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  base = `${origin}${PREFIX}`
})
afterAll(() => server.close())
beforeEach(() => {
  sandbox.reset()
  clock.set(START)
})

function authorizeUrl(params: Record<string, string> = {}) {
  const url = new URL(`${base}/o/oauth2/v2/auth`)
  const all = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: `${SCOPE.upload} ${SCOPE.readonly}`,
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state: 'xyz',
    ...params,
  }
  for (const [k, v] of Object.entries(all)) url.searchParams.set(k, v)
  return url
}

async function decide(fields: Record<string, string | string[]>) {
  const form = new URLSearchParams()
  for (const [k, v] of Object.entries(fields)) for (const item of [v].flat()) form.append(k, item)
  const response = await fetch(`${base}/o/oauth2/v2/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  })
  return response
}

async function grantCode(
  options: { granted?: string[]; challenge?: string; method?: string; extra?: Record<string, string> } = {},
) {
  const url = authorizeUrl({
    ...(options.challenge
      ? { code_challenge: options.challenge, code_challenge_method: options.method ?? 'S256' }
      : {}),
    ...options.extra,
  })
  const response = await decide({
    ...Object.fromEntries(url.searchParams),
    account: 'creator@example.com',
    granted: options.granted ?? [SCOPE.upload, SCOPE.readonly],
    decision: 'allow',
  })
  expect(response.status).toBe(302)
  return new URL(response.headers.get('location')!)
}

async function token(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'shh', ...form }).toString(),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

async function api(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers)
  if (init.token) headers.set('authorization', `Bearer ${init.token}`)
  const response = await fetch(`${base}${path}`, { ...init, headers })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}

const tokens = (scopes = [SCOPE.upload, SCOPE.readonly], email = 'creator@example.com') =>
  sandbox.issueTokens(email, CLIENT_ID, scopes)

async function openSession(accessToken: string, body: unknown, length = 10, type = 'video/mp4') {
  return api('/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status', {
    method: 'POST',
    token: accessToken,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-length': String(length),
      'x-upload-content-type': type,
    },
    body: JSON.stringify(body),
  })
}

const goodMetadata = {
  snippet: { title: 'Hello', description: 'World #Shorts', tags: ['a'], categoryId: '22' },
  status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
}

describe('Google OAuth', () => {
  it('shows a consent page with an account picker (including one without a channel) and a checkbox per scope', async () => {
    const response = await fetch(authorizeUrl())
    expect(response.status).toBe(200)
    const page = await response.text()
    expect(page).toContain('name="account" value="creator@example.com"')
    expect(page).toContain('name="account" value="nochannel@example.com"')
    expect(page).toContain('no YouTube channel')
    expect(page).toContain(`name="granted" value="${SCOPE.upload}" checked`)
    expect(page).toContain(`name="granted" value="${SCOPE.readonly}" checked`)
    expect(page).toContain('Manage your YouTube videos')
    expect(page).toContain('value="allow"')
    expect(page).toContain('value="deny"')
  })

  it.each([
    [{ redirect_uri: 'http://evil.example/cb' }, 'redirect_uri_mismatch'],
    [{ client_id: 'someone-else' }, 'invalid_client'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ scope: '' }, 'invalid_request'],
    [{ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
  ])('refuses %o with an error page (%s), never redirecting', async (params, code) => {
    const response = await fetch(authorizeUrl(params), { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(await response.text()).toContain(`Error 400: ${code}`)
  })

  it('redirects Allow with code, state and the granted scopes, Deny with access_denied', async () => {
    const allowed = await grantCode({ granted: [SCOPE.upload] })
    expect(allowed.searchParams.get('state')).toBe('xyz')
    expect(allowed.searchParams.get('scope')).toBe(SCOPE.upload)
    const denied = await decide({
      ...Object.fromEntries(authorizeUrl().searchParams),
      account: 'creator@example.com',
      decision: 'deny',
    })
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied')
  })

  it('verifies PKCE S256, and a code is single use', async () => {
    const pkce = pkcePair()
    const callback = await grantCode({ challenge: pkce.challenge })
    const code = callback.searchParams.get('code')!
    const missing = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT })
    expect(missing).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Missing code verifier.' },
    })
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkcePair().verifier,
    })
    expect(wrong.body.error).toBe('invalid_grant')
    const ok = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
    })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      refresh_token: expect.stringMatching(/^1\/\//),
      expires_in: 3599,
      scope: `${SCOPE.upload} ${SCOPE.readonly}`,
      token_type: 'Bearer',
    })
    const again = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
    })
    expect(again).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } })
  })

  it('expires codes after 10 minutes and checks the redirect URI and the client secret', async () => {
    const pkce = pkcePair()
    const code = (await grantCode({ challenge: pkce.challenge })).searchParams.get('code')!
    const badRedirect = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/other',
      code_verifier: pkce.verifier,
    })
    expect(badRedirect.body.error).toBe('redirect_uri_mismatch')
    const badSecret = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
      client_secret: 'nope',
    })
    expect(badSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } })
    clock.advance(10 * 60 * 1000 + 1)
    const late = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
    })
    expect(late.body.error).toBe('invalid_grant')
  })

  it('accepts client credentials through HTTP Basic', async () => {
    const pkce = pkcePair()
    const code = (await grantCode({ challenge: pkce.challenge })).searchParams.get('code')!
    const response = await fetch(`${base}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:shh`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: pkce.verifier,
      }).toString(),
    })
    expect(response.status).toBe(200)
  })

  it('refreshes without a new refresh token, and refuses a revoked one in Google words', async () => {
    const first = tokens()
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.refresh_token).toBeUndefined()
    expect(refreshed.body.scope).toBe(first.scope)
    sandbox.revoke({ email: 'creator@example.com' })
    const revoked = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })
    expect(revoked).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
    })
    expect((await token({ grant_type: 'password' })).body.error).toBe('unsupported_grant_type')
  })

  it('adds earlier grants with include_granted_scopes and reissues a refresh token only with prompt=consent', async () => {
    const pkce = pkcePair()
    const firstCode = (
      await grantCode({ granted: [SCOPE.readonly], challenge: pkce.challenge })
    ).searchParams.get('code')!
    const first = await token({
      grant_type: 'authorization_code',
      code: firstCode,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
    })
    expect(first.body.scope).toBe(SCOPE.readonly)
    expect(first.body.refresh_token).toBeDefined()
    const second = pkcePair()
    const callback = await grantCode({
      granted: [SCOPE.upload],
      challenge: second.challenge,
      extra: { prompt: 'select_account' },
    })
    expect(callback.searchParams.get('scope')!.split(' ').sort()).toEqual(
      [SCOPE.readonly, SCOPE.upload].sort(),
    )
    const later = await token({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: second.verifier,
    })
    expect(later.body.refresh_token).toBeUndefined()
  })
})

describe('YouTube Data API', () => {
  it('answers a missing or bad token with 401 in Google shape', async () => {
    const { status, body } = await api('/youtube/v3/channels?part=snippet&mine=true', { token: 'ya29.nope' })
    expect(status).toBe(401)
    expect(body).toEqual({
      error: {
        code: 401,
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        errors: [
          {
            message: 'Invalid Credentials',
            domain: 'global',
            reason: 'authError',
            location: 'Authorization',
            locationType: 'header',
          },
        ],
        status: 'UNAUTHENTICATED',
      },
    })
    clock.advance(3600 * 1000)
    expect(
      (await api('/youtube/v3/channels?part=snippet&mine=true', { token: tokens().access_token })).status,
    ).toBe(200)
  })

  it('expires access tokens after an hour', async () => {
    const { access_token } = tokens()
    clock.advance(3599 * 1000)
    expect((await api('/youtube/v3/channels?part=id&mine=true', { token: access_token })).status).toBe(401)
  })

  it('lists the caller channel, or no items for an account without one', async () => {
    const { status, body } = await api(
      '/youtube/v3/channels?part=snippet,statistics,contentDetails&mine=true',
      {
        token: tokens().access_token,
      },
    )
    expect(status).toBe(200)
    expectSchema('ChannelListResponse', body)
    expect(body.items[0]).toMatchObject({
      kind: 'youtube#channel',
      snippet: { title: 'Herald Demo Channel', customUrl: '@heralddemo' },
      statistics: {
        subscriberCount: '1200',
        viewCount: '34000',
        videoCount: '0',
        hiddenSubscriberCount: false,
      },
    })
    const none = await api('/youtube/v3/channels?part=snippet&mine=true', {
      token: tokens(undefined, 'nochannel@example.com').access_token,
    })
    expect(none.body.items).toBeUndefined()
    expect(none.body.pageInfo.totalResults).toBe(0)
  })

  it('needs a read scope to list and the upload scope to insert (403 insufficientPermissions)', async () => {
    const uploadOnly = tokens([SCOPE.upload]).access_token
    const list = await api('/youtube/v3/channels?part=snippet&mine=true', { token: uploadOnly })
    expect(list.status).toBe(403)
    expect(list.body.error.errors[0].reason).toBe('insufficientPermissions')
    const readOnly = tokens([SCOPE.readonly]).access_token
    const insert = await openSession(readOnly, goodMetadata)
    expect(insert.status).toBe(403)
    expect(insert.body.error.errors[0].reason).toBe('insufficientPermissions')
  })

  it('refuses a missing or unknown part', async () => {
    const token = tokens().access_token
    const missing = await api('/youtube/v3/channels?mine=true', { token })
    expect(missing.status).toBe(400)
    expect(missing.body.error.errors[0]).toMatchObject({ reason: 'required', location: 'part' })
    const unknown = await api('/youtube/v3/videos?part=snippett&id=x', { token })
    expect(unknown.body.error.errors[0]).toMatchObject({ reason: 'unknownPart', message: 'snippett' })
  })

  it('charges 1 unit per list call and 1,600 per upload session', async () => {
    const token = tokens().access_token
    await api('/youtube/v3/channels?part=id&mine=true', { token })
    await api('/youtube/v3/videos?part=statistics&id=abc', { token })
    expect(sandbox.quotaUsed()).toBe(2)
    expect((await openSession(token, goodMetadata)).status).toBe(200)
    expect(sandbox.quotaUsed()).toBe(1602)
  })
})

describe('videos.insert through a resumable session', () => {
  it('opens a session at the documented Location and takes the declared bytes in one PUT', async () => {
    const token = tokens().access_token
    const bytes = Buffer.from('0123456789')
    const session = await openSession(token, goodMetadata, bytes.length)
    expect(session.status).toBe(200)
    const location = session.headers.get('location')!
    expect(location).toMatch(
      new RegExp(
        `^${origin.replace(/\./g, '\\.')}${PREFIX}/upload/youtube/v3/videos\\?uploadType=resumable&upload_id=[\\w-]+$`,
      ),
    )
    const put = await fetch(location, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', authorization: `Bearer ${token}` },
      body: bytes,
    })
    expect(put.status).toBe(201)
    const video = (await put.json()) as any
    expectSchema('Video', video)
    expect(video).toMatchObject({
      kind: 'youtube#video',
      snippet: { title: 'Hello', description: 'World #Shorts', tags: ['a'], categoryId: '22' },
      status: { uploadStatus: 'uploaded', privacyStatus: 'public', selfDeclaredMadeForKids: false },
    })
    expect(sandbox.uploads).toEqual([
      expect.objectContaining({
        videoId: video.id,
        bytes: 10,
        declaredLength: 10,
        sha256: sha256(bytes),
        metadata: goodMetadata,
        transfers: 1,
      }),
    ])
    const listed = await api(`/youtube/v3/videos?part=snippet,status,statistics&id=${video.id}`, { token })
    expectSchema('VideoListResponse', listed.body)
    expect(listed.body.items[0].statistics).toEqual({
      viewCount: '0',
      likeCount: '0',
      favoriteCount: '0',
      commentCount: '0',
    })
  })

  it('answers a status query with 308 and the Range held, then 200 with the video once complete', async () => {
    const token = tokens().access_token
    const location = (await openSession(token, goodMetadata, 10)).headers.get('location')!
    const empty = await fetch(location, { method: 'PUT', headers: { 'content-range': 'bytes */10' } })
    expect(empty.status).toBe(308)
    expect(empty.headers.get('range')).toBeNull()
    const part = await fetch(location, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-range': 'bytes 0-3/10' },
      body: Buffer.from('0123'),
    })
    expect(part.status).toBe(308)
    expect(part.headers.get('range')).toBe('bytes=0-3')
    const rest = await fetch(location, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-range': 'bytes 4-9/10' },
      body: Buffer.from('456789'),
    })
    expect(rest.status).toBe(201)
    const status = await fetch(location, { method: 'PUT', headers: { 'content-range': 'bytes */10' } })
    expect(status.status).toBe(200)
    expect(((await status.json()) as any).id).toBe(sandbox.uploads[0]!.videoId)
    expect(sandbox.uploads[0]!.sha256).toBe(sha256(Buffer.from('0123456789')))
  })

  it('checks the declared length: fewer bytes leave the session incomplete, more are refused', async () => {
    const token = tokens().access_token
    const short = (await openSession(token, goodMetadata, 10)).headers.get('location')!
    const fewer = await fetch(short, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: Buffer.from('01234'),
    })
    expect(fewer.status).toBe(308)
    expect(fewer.headers.get('range')).toBe('bytes=0-4')
    const long = (await openSession(token, goodMetadata, 4)).headers.get('location')!
    const more = await fetch(long, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: Buffer.from('0123456789'),
    })
    expect(more.status).toBe(400)
    expect(((await more.json()) as any).error.errors[0].reason).toBe('badContent')
    expect(sandbox.uploads).toEqual([])
  })

  it('answers an unknown session with 404', async () => {
    const response = await fetch(`${base}/upload/youtube/v3/videos?uploadType=resumable&upload_id=nope`, {
      method: 'PUT',
      body: 'x',
    })
    expect(response.status).toBe(404)
  })

  it('refuses a media type that is not video', async () => {
    const { status, body } = await openSession(tokens().access_token, goodMetadata, 10, 'image/png')
    expect(status).toBe(400)
    expect(body.error.errors[0].reason).toBe('badContent')
  })

  it.each([
    ['angle brackets', 'A <b> title'],
    ['over 100 characters', 'x'.repeat(101)],
    ['empty', '   '],
  ])('refuses a title with %s: 400 invalidTitle, Google body', async (_label, title) => {
    const { status, body } = await openSession(tokens().access_token, {
      ...goodMetadata,
      snippet: { ...goodMetadata.snippet, title },
    })
    expect(status).toBe(400)
    expect(body).toEqual({
      error: {
        code: 400,
        message: 'The request metadata specifies an invalid or empty video title.',
        errors: [
          {
            message: 'The request metadata specifies an invalid or empty video title.',
            domain: 'youtube.video',
            reason: 'invalidTitle',
            location: 'body.snippet.title',
            locationType: 'other',
          },
        ],
      },
    })
    expect(sandbox.quotaUsed()).toBe(1)
  })

  it.each([
    [{ snippet: { ...goodMetadata.snippet, description: 'd'.repeat(5001) } }, 'invalidDescription'],
    [
      { snippet: { ...goodMetadata.snippet, tags: Array.from({ length: 60 }, () => 'tagtagtag') } },
      'invalidTags',
    ],
    [{ snippet: { ...goodMetadata.snippet, categoryId: '999' } }, 'invalidCategoryId'],
    [{ status: { privacyStatus: 'secret' } }, 'invalidPrivacyStatus'],
    [{ snippet: { ...goodMetadata.snippet, titel: 'typo' } }, 'invalidVideoMetadata'],
  ])('refuses bad metadata %o with %s', async (patch, reason) => {
    const { status, body } = await openSession(tokens().access_token, { ...goodMetadata, ...patch })
    expect(status).toBe(400)
    expect(body.error.errors[0].reason).toBe(reason)
  })

  it('answers quotaExceeded in the exact Google body once 1,600 more units would pass the daily quota', async () => {
    sandbox.setQuotaUsed(8401)
    const { status, body } = await openSession(tokens().access_token, goodMetadata)
    expect(status).toBe(403)
    expect(body).toEqual({
      error: {
        code: 403,
        message:
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        errors: [
          {
            message:
              'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
            domain: 'youtube.quota',
            reason: 'quotaExceeded',
          },
        ],
      },
    })
    sandbox.setQuotaUsed(8400)
    expect((await openSession(tokens().access_token, goodMetadata)).status).toBe(200)
  })

  it('resets the quota at midnight Pacific', async () => {
    sandbox.setQuotaUsed(10_000)
    expect((await openSession(tokens().access_token, goodMetadata)).status).toBe(403)
    clock.set(Date.UTC(2026, 6, 16, 7)) // midnight PDT
    expect((await openSession(tokens().access_token, goodMetadata)).status).toBe(200)
  })

  it('answers uploadLimitExceeded once the channel uploaded its daily ceiling', async () => {
    const token = tokens().access_token
    for (let i = 0; i < 2; i++) {
      const location = (await openSession(token, goodMetadata, 1)).headers.get('location')!
      expect(
        (await fetch(location, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' }))
          .status,
      ).toBe(201)
    }
    const { status, body } = await openSession(token, goodMetadata, 1)
    expect(status).toBe(400)
    expect(body).toEqual({
      error: {
        errors: [
          {
            domain: 'youtube.video',
            reason: 'uploadLimitExceeded',
            message: 'The user has exceeded the number of videos they may upload.',
          },
        ],
        code: 400,
        message: 'The user has exceeded the number of videos they may upload.',
      },
    })
  })

  it('answers 401 youtubeSignupRequired when the account has no channel', async () => {
    const { status, body } = await openSession(
      tokens(undefined, 'nochannel@example.com').access_token,
      goodMetadata,
    )
    expect(status).toBe(401)
    expect(body.error.errors[0].reason).toBe('youtubeSignupRequired')
  })
})

describe('control surface', () => {
  const control = (path: string, method = 'GET', body?: unknown) =>
    api(`/_sandbox${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })

  it('creates accounts with or without a channel and issues and revokes their tokens', async () => {
    const created = await control('/accounts', 'POST', {
      email: 'new@example.com',
      name: 'New',
      channel: { title: 'New TV', handle: '@newtv' },
    })
    expect(created.status).toBe(201)
    expect(created.body.channel).toMatchObject({
      title: 'New TV',
      handle: '@newtv',
      id: expect.stringMatching(/^UC[\w-]{22}$/),
    })
    const bare = await control('/accounts', 'POST', { email: 'bare@example.com', channel: null })
    expect(bare.body.channel).toBeNull()
    const issued = await control('/tokens', 'POST', { email: 'new@example.com', clientId: CLIENT_ID })
    expect(issued.body.scope).toBe(`${SCOPE.upload} ${SCOPE.readonly}`)
    const mine = await api('/youtube/v3/channels?part=snippet&mine=true', { token: issued.body.access_token })
    expect(mine.body.items[0].snippet.customUrl).toBe('@newtv')
    expect((await control('/revoke', 'POST', { email: 'new@example.com' })).body.revoked).toBe(2)
    expect(
      (await api('/youtube/v3/channels?part=snippet&mine=true', { token: issued.body.access_token })).status,
    ).toBe(401)
    expect((await control('/accounts')).body.map((a: { email: string }) => a.email)).toEqual([
      'creator@example.com',
      'nochannel@example.com',
      'new@example.com',
      'bare@example.com',
    ])
  })

  it('sets and reads the quota, the channel upload count and video statistics, and lists uploads', async () => {
    expect((await control('/quota', 'PUT', { used: 9000 })).body).toEqual({
      day: '2026-07-15',
      used: 9000,
      limit: 10_000,
      uploadUnits: 1600,
    })
    expect((await control('/quota')).body.used).toBe(9000)
    await control('/quota', 'PUT', { used: 0 })
    const channelId = sandbox.accounts.get('creator@example.com')!.channel!.id
    expect((await control(`/channels/${channelId}/uploads-today`, 'PUT', { count: 2 })).body.count).toBe(2)
    expect((await openSession(tokens().access_token, goodMetadata, 1)).status).toBe(400)
    await control(`/channels/${channelId}/uploads-today`, 'PUT', { count: 0 })
    const location = (await openSession(tokens().access_token, goodMetadata, 1)).headers.get('location')!
    await fetch(location, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' })
    const uploads = await control('/uploads')
    expect(uploads.body).toHaveLength(1)
    expect(uploads.body[0]).toMatchObject({
      channelId,
      bytes: 1,
      metadata: goodMetadata,
      part: ['snippet', 'status'],
    })
    const videoId = uploads.body[0].videoId
    expect(
      (await control(`/videos/${videoId}/statistics`, 'PATCH', { viewCount: 9 })).body.statistics.viewCount,
    ).toBe(9)
    await control(`/channels/${channelId}`, 'PATCH', { subscriberCount: 5, hiddenSubscriberCount: true })
    const stats = await api('/youtube/v3/channels?part=statistics&mine=true', {
      token: tokens().access_token,
    })
    expect(stats.body.items[0].statistics).toMatchObject({ hiddenSubscriberCount: true, videoCount: '1' })
    expect((await control('/state')).body).toMatchObject({
      day: '2026-07-15',
      uploads: 1,
      uploadLimitPerDay: 2,
    })
  })

  it('injects faults and logs requests', async () => {
    expect(
      (await control('/faults', 'POST', { op: 'channels.list', action: 'error', reason: 'backendError' }))
        .status,
    ).toBe(201)
    const failed = await api('/youtube/v3/channels?part=id&mine=true', { token: tokens().access_token })
    expect(failed.status).toBe(503)
    expect(failed.body.error.errors[0].reason).toBe('backendError')
    expect(
      (await api('/youtube/v3/channels?part=id&mine=true', { token: tokens().access_token })).status,
    ).toBe(200)
    expect((await control('/faults', 'POST', { op: 'nope', action: 'error' })).status).toBe(400)
    await token({ grant_type: 'refresh_token', refresh_token: tokens().refresh_token! })
    const log = await control('/requests')
    expect(log.body.tokenCalls).toEqual({ refresh_token: 1 })
    expect(log.body.requests.map((r: { op: string }) => r.op)).toEqual([
      'channels.list',
      'channels.list',
      'token',
    ])
    expect((await control('/reset', 'POST', {})).body).toEqual({ ok: true })
    expect(sandbox.requests).toEqual([])
  })

  it('forces uploads private for an unaudited project', async () => {
    const unaudited = Fastify({ logger: false })
    const other = registerYouTubeSandbox(unaudited, { prefix: '', unaudited: true })
    await unaudited.listen({ host: '127.0.0.1', port: 0 })
    try {
      const address = unaudited.server.address()
      const otherBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
      const access = other.issueTokens('creator@example.com', 'c', [SCOPE.upload]).access_token
      const session = await fetch(
        `${otherBase}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
          body: JSON.stringify(goodMetadata),
        },
      )
      const location = session.headers.get('location')!
      expect(
        location.startsWith(`${otherBase}/upload/youtube/v3/videos?uploadType=resumable&upload_id=`),
      ).toBe(true)
      const answer = await fetch(location, {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4' },
        body: 'abc',
      })
      const video = (await answer.json()) as any
      expect(video.status.privacyStatus).toBe('private')
    } finally {
      await unaudited.close()
    }
  })
})
