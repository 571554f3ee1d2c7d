import { truncate } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import {
  COMMENT_SCOPE,
  failureSpentQuota,
  NO_CHANNEL_MESSAGE,
  nextPacificMidnight,
  READONLY_SCOPE,
  tagListLength,
  UPLOAD_SCOPE,
  type YouTubeAdapter,
  YouTubeConnectRefused,
  youtubeGrantProblem,
} from '../../src/adapters/youtube/index.js'
import { FakeClock } from '../../src/platform/clock.js'
import {
  CLIENT,
  clipBytes,
  connectAccount,
  consent,
  fileMediaPort,
  makeAdapter,
  pkcePair,
  publishRequest,
  REDIRECT_URI,
  sha256,
  startWorld,
  tempVideo,
  type YouTubeWorld,
} from './youtube-fixtures.js'

/** The YouTube adapter against the Google/YouTube sandbox, every request checked against the discovery doc. */

const START = Date.UTC(2026, 6, 15, 18, 0) // 11:00 Pacific (PDT) on 2026-07-15

let world: YouTubeWorld
let clock: FakeClock
let adapter: YouTubeAdapter

async function failureOf(promise: Promise<unknown>): Promise<PublishFailure> {
  try {
    await promise
  } catch (error) {
    if (error instanceof PublishFailure) return error
    throw error
  }
  throw new Error('expected a PublishFailure')
}

beforeAll(async () => {
  clock = new FakeClock(START)
  world = await startWorld({ clock, uploadLimitPerDay: 4 })
})
afterAll(() => world.close())

beforeEach(() => {
  world.sandbox.reset()
  clock.set(START)
  world.http.checked.length = 0
  adapter = makeAdapter(world)
})

afterEach(() => {
  // Every request the adapter sent to the YouTube API matched the discovery document, and every JSON
  // answer of the sandbox matched the document's response schemas.
  expect(world.http.problems).toEqual([])
  expect(world.http.responseProblems).toEqual([])
  world.http.problems.length = 0
  world.http.responseProblems.length = 0
})

describe('connecting a YouTube channel', () => {
  it('builds the Google authorize URL with the upload, read-only and comment scopes, offline access, forced consent, incremental auth, PKCE S256 and state', () => {
    const url = new URL(
      adapter.oauth!.authorizeUrl({ state: 's-1', codeChallenge: 'c'.repeat(43), redirectUri: REDIRECT_URI }),
    )
    expect(`${url.origin}${url.pathname}`).toBe(world.settings.authorizeUrl)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT.id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: `${UPLOAD_SCOPE} ${READONLY_SCOPE} ${COMMENT_SCOPE}`,
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 's-1',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    })
    expect(adapter.oauth!.scopes).toEqual([UPLOAD_SCOPE, READONLY_SCOPE, COMMENT_SCOPE])
  })

  it('connects through the consent page: the code is exchanged with the PKCE verifier and the channel resolved', async () => {
    const { credentials, profile, grantedScopes } = await connectAccount(world, adapter)
    expect(grantedScopes.sort()).toEqual([READONLY_SCOPE, UPLOAD_SCOPE, COMMENT_SCOPE].sort())
    expect(youtubeGrantProblem(grantedScopes, credentials)).toBeNull()
    expect(credentials.accessToken).toMatch(/^ya29\./)
    expect(credentials.refreshToken).toMatch(/^1\/\//)
    expect(credentials.expiresAt).toBe(START + 3599 * 1000)
    const channel = world.sandbox.accounts.get('creator@example.com')!.channel!
    expect(profile).toEqual({
      profileId: channel.id,
      username: '@heralddemo',
      name: 'Herald Demo Channel',
      isOrganization: true,
      avatarUrl: channel.thumbnailUrl,
    })
    expect(world.http.checked.map((c) => c.methodId)).toEqual(['youtube.channels.list'])
    expect(world.http.exempted).toContain(`POST ${world.settings.tokenUrl}`)
  })

  it('returns the state and the granted scopes on the callback', async () => {
    const { callback } = await consent(world, adapter, {
      account: 'creator@example.com',
      state: 'opaque-state',
    })
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI)
    expect(callback.searchParams.get('state')).toBe('opaque-state')
    expect(callback.searchParams.get('code')).toBeTruthy()
    expect(callback.searchParams.get('scope')).toContain(UPLOAD_SCOPE)
  })

  it('refuses the connection at the callback when the upload scope was not granted', async () => {
    const pkce = pkcePair()
    const { callback } = await consent(world, adapter, {
      account: 'creator@example.com',
      granted: [READONLY_SCOPE],
      challenge: pkce.challenge,
    })
    const { credentials, grantedScopes } = await adapter.oauth!.exchangeCode({
      code: callback.searchParams.get('code')!,
      codeVerifier: pkce.verifier,
      redirectUri: REDIRECT_URI,
    })
    expect(grantedScopes).toEqual([READONLY_SCOPE])
    const refusal = youtubeGrantProblem(grantedScopes, credentials)
    expect(refusal).toBeInstanceOf(YouTubeConnectRefused)
    expect(refusal).toBeInstanceOf(PublishFailure)
    expect(refusal!.reason).toBe('uploadScopeMissing')
    expect(refusal!.message).toMatch(/upload permission was not granted/)
  })

  it('refuses a Google account that has no YouTube channel', async () => {
    const pkce = pkcePair()
    const { callback } = await consent(world, adapter, {
      account: 'nochannel@example.com',
      challenge: pkce.challenge,
    })
    const { credentials, grantedScopes } = await adapter.oauth!.exchangeCode({
      code: callback.searchParams.get('code')!,
      codeVerifier: pkce.verifier,
      redirectUri: REDIRECT_URI,
    })
    expect(youtubeGrantProblem(grantedScopes, credentials)).toBeNull()
    const refusal = await failureOf(adapter.resolveProfile(credentials))
    expect(refusal).toBeInstanceOf(YouTubeConnectRefused)
    expect((refusal as YouTubeConnectRefused).reason).toBe('noChannel')
    expect(refusal.message).toBe(NO_CHANNEL_MESSAGE)
    expect(refusal.message).toBe('This Google account has no YouTube channel')
  })

  it('redirects with error=access_denied when the user denies', async () => {
    const { callback } = await consent(world, adapter, {
      account: 'creator@example.com',
      decision: 'deny',
      state: 'st',
    })
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect(callback.searchParams.get('state')).toBe('st')
    expect(callback.searchParams.has('code')).toBe(false)
  })

  it('cannot redeem a code twice, nor with the wrong PKCE verifier', async () => {
    const pkce = pkcePair()
    const first = await consent(world, adapter, { account: 'creator@example.com', challenge: pkce.challenge })
    const code = first.callback.searchParams.get('code')!
    const wrong = await failureOf(
      adapter.oauth!.exchangeCode({ code, codeVerifier: pkcePair().verifier, redirectUri: REDIRECT_URI }),
    )
    expect(wrong.kind).toBe('auth_expired')
    await adapter.oauth!.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT_URI })
    const reused = await failureOf(
      adapter.oauth!.exchangeCode({ code, codeVerifier: pkce.verifier, redirectUri: REDIRECT_URI }),
    )
    expect(reused.kind).toBe('auth_expired')
  })

  it('refreshes to a new access token and keeps the refresh token Google did not replace', async () => {
    const { credentials } = await connectAccount(world, adapter)
    clock.advance(2 * 60 * 60 * 1000)
    const refreshed = await adapter.refresh(credentials)
    expect(refreshed.accessToken).not.toBe(credentials.accessToken)
    expect(refreshed.refreshToken).toBe(credentials.refreshToken)
    expect(refreshed.expiresAt).toBe(clock.now() + 3599 * 1000)
    expect(world.sandbox.tokenCalls()).toEqual({ authorization_code: 1, refresh_token: 1 })
  })

  it('answers a revoked refresh token with auth_expired "The request is not properly authorized"', async () => {
    const { credentials } = await connectAccount(world, adapter)
    world.sandbox.revoke({ email: 'creator@example.com' })
    const failure = await failureOf(adapter.refresh(credentials))
    expect(failure.kind).toBe('auth_expired')
    expect(failure.message).toBe('The request is not properly authorized')
    expect(failure.options.code).toBe('forbidden')
  })
})

describe('publishing a video (spec §1 youtube rules)', () => {
  it('uploads through a resumable session, metadata first then the whole file once, and returns the Shorts link', async () => {
    const connection = await connectAccount(world, adapter)
    world.http.checked.length = 0
    const result = await adapter.publish(
      publishRequest(connection, {
        content: 'A day at the <beach>\nSun, sand and #summer #beach vibes',
        mediaUrls: [`${world.mediaOrigin}/clip.mp4`],
      }),
    )
    const [upload] = world.sandbox.uploads
    expect(world.sandbox.uploads).toHaveLength(1)
    expect(result.remoteId).toBe(upload!.videoId)
    expect(result.url).toBe(`https://www.youtube.com/shorts/${upload!.videoId}`)
    expect(upload!.metadata).toEqual({
      snippet: {
        title: 'A day at the beach',
        description: 'A day at the beach\nSun, sand and #summer #beach vibes\n\n#Shorts',
        tags: ['summer', 'beach'],
        categoryId: '22',
      },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    })
    expect(upload).toMatchObject({
      part: ['snippet', 'status'],
      bytes: clipBytes.length,
      declaredLength: clipBytes.length,
      contentType: 'video/mp4',
      sha256: sha256(clipBytes),
      transfers: 1,
    })
    expect(world.http.checked.map((c) => `${c.method} ${c.methodId}`)).toEqual([
      'POST youtube.videos.insert',
      'PUT youtube.videos.insert (resumable session)',
    ])
    expect(world.sandbox.quotaUsed()).toBe(1 + 1600) // channels.list at connect, then the upload
    // Rule 10: the upload happens when Herald's slot fires; nothing is scheduled on YouTube's side.
    expect((upload!.metadata as { status: Record<string, unknown> }).status.publishAt).toBeUndefined()
  })

  it('takes the title, description and privacy from the youtube details, angle brackets stripped', async () => {
    const connection = await connectAccount(world, adapter)
    await adapter.publish(
      publishRequest(connection, {
        content: 'Copy line one\n#tips',
        mediaUrls: [`${world.mediaOrigin}/clip.mov`],
        youtube: {
          title: 'My <b>best</b> clip',
          description: 'Watch to the end #Shorts',
          privacyStatus: 'unlisted',
        },
      }),
    )
    const upload = world.sandbox.uploads[0]!
    expect(upload.metadata).toEqual({
      snippet: {
        title: 'My bbest/b clip',
        description: 'Watch to the end #Shorts',
        tags: ['tips'],
        categoryId: '22',
      },
      status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false },
    })
    expect(upload.contentType).toBe('video/quicktime')
  })

  it('trims the title to 100 characters and the tags to 500 characters across the list', async () => {
    const connection = await connectAccount(world, adapter)
    const tags = Array.from({ length: 40 }, (_, i) => `#tag${String(i).padStart(2, '0')}${'x'.repeat(14)}`)
    await adapter.publish(
      publishRequest(connection, {
        content: `${'T'.repeat(150)}\n${tags.join(' ')}`,
        mediaUrls: [`${world.mediaOrigin}/clip.mp4`],
      }),
    )
    const snippet = (world.sandbox.uploads[0]!.metadata as { snippet: { title: string; tags: string[] } })
      .snippet
    expect(snippet.title).toBe('T'.repeat(100))
    expect(tagListLength(snippet.tags)).toBeLessThanOrEqual(500)
    // Tags of 19 characters: 25 of them and 24 commas make 499; a 26th would make 519.
    expect(snippet.tags).toHaveLength(25)
  })

  it('exchanges the refresh token for a fresh access token before every upload', async () => {
    const connection = await connectAccount(world, adapter)
    // The access token from connect is revoked: an upload that reused it would fail.
    world.sandbox.revoke({ token: connection.credentials.accessToken })
    for (let i = 0; i < 3; i++)
      await adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
    expect(world.sandbox.tokenCalls()).toEqual({ authorization_code: 1, refresh_token: 3 })
    expect(world.sandbox.uploads).toHaveLength(3)
  })

  it('reports a vertical clip of at most 3 minutes as a Short and still uploads a landscape one', async () => {
    const connection = await connectAccount(world, adapter)
    const vertical = makeAdapter(world, {
      media: fileMediaPort({
        path: await tempVideo(clipBytes),
        size: clipBytes.length,
        width: 1080,
        height: 1920,
        durationMs: 59_000,
      }),
    })
    const landscape = makeAdapter(world, {
      media: fileMediaPort({
        path: await tempVideo(clipBytes),
        size: clipBytes.length,
        width: 1920,
        height: 1080,
        durationMs: 59_000,
      }),
    })
    const short = await vertical.publish(
      publishRequest(connection, { mediaUrls: ['https://cdn.example/v.mp4'] }),
    )
    const regular = await landscape.publish(
      publishRequest(connection, { mediaUrls: ['https://cdn.example/w.mp4'] }),
    )
    expect(short.isShort).toBe(true)
    expect(regular.isShort).toBe(false)
    expect(world.sandbox.uploads).toHaveLength(2)
  })
})

describe('publishing failures (spec §7 youtube table)', () => {
  describe.each([
    ['no attachment', [] as string[]],
    ['a still image', ['MEDIA/photo.png']],
    ['a JPEG', ['MEDIA/photo.jpg']],
    ['a URL without a video extension', ['MEDIA/clip']],
  ])('mediaRequired: %s', (_label, urls) => {
    it('is refused before any transfer: no media fetch, no token call, no API request, no quota', async () => {
      const connection = await connectAccount(world, adapter)
      const before = world.sandbox.requests.length
      const media = fileMediaPort({ path: '/nonexistent', size: 0 })
      const guarded = makeAdapter(world, { media })
      const failure = await failureOf(
        guarded.publish(
          publishRequest(connection, { mediaUrls: urls.map((u) => u.replace('MEDIA', world.mediaOrigin)) }),
        ),
      )
      expect(failure.kind).toBe('invalid_content')
      expect(failure.message).toBe('YouTube Shorts needs a video')
      expect(failure.options.code).toBe('mediaRequired')
      expect(failureSpentQuota(failure)).toBe(false)
      expect(media.prepared).toBe(0)
      expect(world.sandbox.requests.length).toBe(before)
      expect(world.sandbox.quotaUsed()).toBe(1) // the channels.list at connect, nothing since
      expect(world.sandbox.uploads).toEqual([])
    })
  })

  it('mediaRequired: a still image behind a .mp4 name is refused after the probe, before the session', async () => {
    const connection = await connectAccount(world, adapter)
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/image-as.mp4`] })),
    )
    expect(failure.options.code).toBe('mediaRequired')
    expect(failureSpentQuota(failure)).toBe(false)
    expect(world.sandbox.requests.filter((r) => r.op === 'videos.insert')).toEqual([])
    expect(world.sandbox.quotaUsed()).toBe(1)
  })

  it('refuses a file over 256 MB before the session', async () => {
    const connection = await connectAccount(world, adapter)
    const file = await tempVideo(Buffer.alloc(0))
    await truncate(file, 256 * 1024 * 1024 + 1) // sparse: no disk is written
    const failure = await failureOf(
      makeAdapter(world, { media: fileMediaPort({ path: file, size: 256 * 1024 * 1024 + 1 }) }).publish(
        publishRequest(connection, { mediaUrls: ['https://cdn.example/big.mp4'] }),
      ),
    )
    expect(failure).toMatchObject({ kind: 'invalid_content', options: { code: 'mediaTooLarge' } })
    expect(world.sandbox.requests.filter((r) => r.op === 'videos.insert')).toEqual([])
  })

  it('quotaExceeded: rate limited until the next Pacific midnight, nothing uploaded', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.setQuotaUsed(10_000 - 1_599)
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure.kind).toBe('rate_limited')
    expect(failure.message).toBe('The request cannot be completed because you have exceeded your quota')
    expect(failure.options).toEqual({ code: 'quotaExceeded', status: 403, resetAt: Date.UTC(2026, 6, 16, 7) })
    expect(failure.options.resetAt).toBe(nextPacificMidnight(START))
    expect(world.sandbox.uploads).toEqual([])
  })

  it('quotaExceeded: six uploads fit in 10,000 units at 1,600 each, the seventh is refused', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.setQuotaUsed(0)
    const results: string[] = []
    for (let i = 0; i < 7; i++) {
      // The per-channel ceiling (4 in this suite) is lifted so only the app quota limits.
      world.sandbox.setUploadsToday(connection.profile.profileId, 0)
      results.push(
        await adapter
          .publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
          .then(() => 'ok')
          .catch((error: PublishFailure) => error.options.code ?? error.kind),
      )
    }
    expect(results).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'quotaExceeded'])
    expect(world.sandbox.quotaUsed()).toBe(9_600)
  })

  it('invalidTitle: a title that is empty once angle brackets are stripped is refused before any transfer', async () => {
    const connection = await connectAccount(world, adapter)
    const before = world.sandbox.requests.length
    const failure = await failureOf(
      adapter.publish(
        publishRequest(connection, { content: '<>\n  <<>>', mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
      ),
    )
    expect(failure).toMatchObject({
      kind: 'invalid_content',
      message: 'Video title rejected',
      options: { code: 'invalidTitle' },
    })
    expect(failureSpentQuota(failure)).toBe(false)
    expect(world.sandbox.requests.length).toBe(before)
  })

  it('invalidTitle: YouTube refusing the title maps to "Video title rejected"', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'videos.insert', action: 'error', reason: 'invalidTitle' })
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure).toMatchObject({
      kind: 'invalid_content',
      message: 'Video title rejected',
      options: { code: 'invalidTitle', status: 400 },
    })
    expect(failureSpentQuota(failure)).toBe(true)
  })

  it('forbidden: a connection without the upload scope is not properly authorized', async () => {
    const connection = await connectAccount(world, adapter)
    const readOnly = world.sandbox.issueTokens('creator@example.com', CLIENT.id, [READONLY_SCOPE])
    const failure = await failureOf(
      adapter.publish(
        publishRequest(
          {
            ...connection,
            credentials: { accessToken: readOnly.access_token, refreshToken: readOnly.refresh_token! },
          },
          { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] },
        ),
      ),
    )
    expect(failure).toMatchObject({
      kind: 'auth_expired',
      message: 'The request is not properly authorized',
      options: { code: 'forbidden', status: 403 },
    })
  })

  it('forbidden: a revoked refresh token fails the publish before any download', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.revoke({ email: 'creator@example.com' })
    const media = fileMediaPort({ path: '/nonexistent', size: 1 })
    const failure = await failureOf(
      makeAdapter(world, { media }).publish(
        publishRequest(connection, { mediaUrls: ['https://cdn.example/a.mp4'] }),
      ),
    )
    expect(failure).toMatchObject({ kind: 'auth_expired', message: 'The request is not properly authorized' })
    expect(media.prepared).toBe(0)
    expect(failureSpentQuota(failure)).toBe(false)
  })

  it('forbidden: an invalid access token with no refresh token is answered 401 and maps to auth_expired', async () => {
    const connection = await connectAccount(world, adapter)
    const failure = await failureOf(
      adapter.publish(
        publishRequest(
          { ...connection, credentials: { accessToken: 'ya29.bogus' } },
          { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] },
        ),
      ),
    )
    expect(failure).toMatchObject({
      kind: 'auth_expired',
      message: 'The request is not properly authorized',
      options: { status: 401 },
    })
  })

  it("uploadLimitExceeded: the channel's daily ceiling is rate limited for a day", async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.setUploadsToday(connection.profile.profileId, 4)
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure.kind).toBe('rate_limited')
    expect(failure.message).toBe('The user has exceeded the number of videos they may upload')
    expect(failure.options).toEqual({
      code: 'uploadLimitExceeded',
      status: 400,
      resetAt: START + 24 * 60 * 60 * 1000,
    })
  })

  it('a 5xx opening the session is transient', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'videos.insert', action: 'error', reason: 'backendError' })
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure).toMatchObject({ kind: 'transient', options: { code: 'backendError', status: 503 } })
  })

  it('an unreachable token endpoint is transient', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'token', action: 'drop' })
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure.kind).toBe('transient')
  })

  it('unknown_outcome: the upload connection drops and the session cannot be asked', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 1 })
    world.sandbox.addFault({ op: 'upload.status', action: 'drop' })
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure.kind).toBe('unknown_outcome')
    expect(failureSpentQuota(failure)).toBe(true)
  })

  it('a lost answer after YouTube took the whole file is resolved by a status query: no duplicate', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop_after_complete' })
    const result = await adapter.publish(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    expect(world.sandbox.uploads).toHaveLength(1)
    expect(result.remoteId).toBe(world.sandbox.uploads[0]!.videoId)
    expect(world.sandbox.requests.filter((r) => r.op === 'upload.status')).toHaveLength(1)
  })

  it('a transfer cut halfway is resumed once from where YouTube stopped, without a new session', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 20_000 })
    const result = await adapter.publish(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    const upload = world.sandbox.uploads[0]!
    expect(result.remoteId).toBe(upload.videoId)
    expect(upload).toMatchObject({ bytes: clipBytes.length, sha256: sha256(clipBytes), transfers: 2 })
    expect(world.sandbox.requests.filter((r) => r.op === 'videos.insert')).toHaveLength(1)
    expect(world.sandbox.quotaUsed()).toBe(1 + 1600)
  })

  it('a 503 answering the upload is followed by a status query and one resumed transfer', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'error', reason: 'backendError' })
    const result = await adapter.publish(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    expect(result.remoteId).toBe(world.sandbox.uploads[0]!.videoId)
    expect(world.sandbox.uploads[0]).toMatchObject({ bytes: clipBytes.length, sha256: sha256(clipBytes) })
    expect(world.sandbox.requests.map((r) => r.op).filter((op) => op.startsWith('upload'))).toEqual([
      'upload',
      'upload.status',
      'upload',
    ])
  })

  it('a transfer cut twice is transient: YouTube created no video', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.addFault({ op: 'upload', action: 'drop', afterBytes: 20_000, times: 2 })
    const failure = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(failure.kind).toBe('transient')
    expect(world.sandbox.uploads).toEqual([])
  })

  it('a cancelled publish stops before the upload begins', async () => {
    const connection = await connectAccount(world, adapter)
    const controller = new AbortController()
    controller.abort()
    const failure = await failureOf(
      adapter.publish(
        publishRequest(connection, {
          mediaUrls: [`${world.mediaOrigin}/clip.mp4`],
          signal: controller.signal,
        }),
      ),
    )
    expect(failure.kind).toBe('transient')
    expect(world.sandbox.requests.filter((r) => r.op === 'videos.insert')).toEqual([])
  })
})

describe('quota capability for the worker', () => {
  it('describes the app-wide quota: key, units per upload, daily limit, Pacific day and its refusal', () => {
    const { quota } = adapter.capabilities
    expect(quota).toMatchObject({ key: 'youtube', unitsPerPublish: 1600, dailyLimit: 10_000 })
    expect(quota.dayOf(START)).toBe('2026-07-15')
    expect(quota.dayOf(Date.UTC(2026, 6, 16, 7))).toBe('2026-07-16')
    expect(quota.exceeded(START)).toMatchObject({
      kind: 'rate_limited',
      message: 'The request cannot be completed because you have exceeded your quota',
      options: { code: 'quotaExceeded', resetAt: Date.UTC(2026, 6, 16, 7) },
    })
  })

  it('says which failures never reached videos.insert, so their reservation can be released', async () => {
    const connection = await connectAccount(world, adapter)
    const before = await failureOf(adapter.publish(publishRequest(connection, { mediaUrls: [] })))
    expect(adapter.capabilities.quota.spent(before)).toBe(false)
    world.sandbox.setQuotaUsed(10_000)
    const after = await failureOf(
      adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] })),
    )
    expect(after.options.code).toBe('quotaExceeded')
    expect(adapter.capabilities.quota.spent(after)).toBe(true)
  })
})

describe('metrics', () => {
  it('maps video statistics onto the post summary', async () => {
    const connection = await connectAccount(world, adapter)
    const { remoteId } = await adapter.publish(
      publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }),
    )
    world.sandbox.setVideoStatistics(remoteId, {
      viewCount: 1234,
      likeCount: 56,
      commentCount: 7,
      favoriteCount: 0,
    })
    const reading = await adapter.postMetrics({ ...connection, remoteId })
    expect(reading).toEqual({
      summary: {
        views: 1234,
        likes: 56,
        comments: 7,
        shares: null,
        saves: null,
        clicks: null,
        engagements: 63,
      },
      metrics: { viewCount: 1234, likeCount: 56, favoriteCount: 0, commentCount: 7 },
      source: 'YouTube Data API v3 videos.list statistics',
    })
    expect(world.http.checked.at(-1)?.methodId).toBe('youtube.videos.list')
  })

  it('reports a deleted video as unavailable', async () => {
    const connection = await connectAccount(world, adapter)
    const reading = await adapter.postMetrics({ ...connection, remoteId: 'gone1234567' })
    expect(reading.unavailable).toBe(true)
    expect(reading.error).toMatch(/no longer on YouTube/)
    expect(reading.summary.views).toBeNull()
  })

  it('maps channel statistics onto the profile summary, lifetime window', async () => {
    const connection = await connectAccount(world, adapter)
    await adapter.publish(publishRequest(connection, { mediaUrls: [`${world.mediaOrigin}/clip.mp4`] }))
    const reading = await adapter.profileMetrics(connection)
    expect(reading).toEqual({
      summary: { followers: 1200, following: null, posts: 1, views: 34_000 },
      metrics: { viewCount: 34_000, subscriberCount: 1200, hiddenSubscriberCount: false, videoCount: 1 },
      window: 'lifetime',
      source: 'YouTube Data API v3 channels.list statistics',
    })
  })

  it('reports a hidden subscriber count as null followers', async () => {
    const connection = await connectAccount(world, adapter)
    world.sandbox.updateChannel(connection.profile.profileId, { hiddenSubscriberCount: true })
    const reading = await adapter.profileMetrics(connection)
    expect(reading.summary.followers).toBeNull()
  })

  it('refreshes an expired access token before reading', async () => {
    const connection = await connectAccount(world, adapter)
    clock.advance(2 * 60 * 60 * 1000)
    const reading = await adapter.profileMetrics(connection)
    expect(reading.summary.views).toBe(34_000)
    expect(world.sandbox.tokenCalls().refresh_token).toBe(1)
  })
})
