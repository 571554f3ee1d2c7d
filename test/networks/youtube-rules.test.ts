import { describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { classifyTokenError } from '../../src/adapters/youtube/errors.js'
import {
  buildDescription,
  buildTags,
  buildTitle,
  buildVideoInsertBody,
  classifyGoogleError,
  isShortEligible,
  looksLikeVideoUrl,
  nextPacificMidnight,
  pacificDay,
  READONLY_SCOPE,
  tagListLength,
  UPLOAD_SCOPE,
  youtubeGrantProblem,
  youtubeMediaProblem,
} from '../../src/adapters/youtube/index.js'
import { hashtags, videoContentType } from '../../src/adapters/youtube/metadata.js'
import { channelReading, videoReading } from '../../src/adapters/youtube/metrics.js'
import { receivedBytes } from '../../src/adapters/youtube/upload.js'
import { googleError } from '../../src/sandbox/youtube/google-errors.js'

/** The pure YouTube rules (spec §1 youtube rules 1-7, §7, §8), tested without a server. */

const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

describe('rule 1: a video is required and checked from the URL before any transfer', () => {
  it.each([
    ['https://cdn.example/clip.mp4', true],
    ['https://cdn.example/CLIP.MOV', true],
    ['https://cdn.example/a/b/clip.webm?sig=abc#t=3', true],
    ['https://cdn.example/clip.m4v', true],
    ['https://cdn.example/photo.png', false],
    ['https://cdn.example/photo.jpeg', false],
    ['https://cdn.example/anim.gif', false],
    ['https://cdn.example/photo.webp', false],
    ['https://cdn.example/clip', false],
    ['https://cdn.example/photo.png?name=clip.mp4', false],
    ['https://cdn.example/.mp4', false],
    ['not a url.mp4', false],
  ])('%s looks like a video: %s', (url, expected) => {
    expect(looksLikeVideoUrl(url)).toBe(expected)
  })

  it('refuses no attachment and a still image with mediaRequired, several attachments with tooManyMedia', () => {
    const none = youtubeMediaProblem([])
    expect(none).toBeInstanceOf(PublishFailure)
    expect(none).toMatchObject({
      kind: 'invalid_content',
      message: 'YouTube Shorts needs a video',
      options: { code: 'mediaRequired' },
    })
    expect(youtubeMediaProblem(['https://cdn.example/p.jpg'])?.options.code).toBe('mediaRequired')
    expect(
      youtubeMediaProblem(['https://cdn.example/a.mp4', 'https://cdn.example/b.mp4'])?.options.code,
    ).toBe('tooManyMedia')
    expect(youtubeMediaProblem(['https://cdn.example/a.mp4'])).toBeNull()
  })
})

describe('rule 2: the MIME type comes from the response and the URL', () => {
  it.each([
    ['https://x.example/a.mp4', 'video/mp4; charset=binary', 'video/mp4'],
    ['https://x.example/a.mov', 'application/octet-stream', 'video/quicktime'],
    ['https://x.example/a.webm', undefined, 'video/webm'],
    ['https://x.example/a.webm', 'binary/octet-stream', 'video/webm'],
    ['https://x.example/a', 'video/mpeg', 'video/mpeg'],
    ['https://x.example/a', 'text/plain', 'application/octet-stream'],
  ])('%s with %s is sent as %s', (url, declared, expected) => {
    expect(videoContentType(url, declared)).toBe(expected)
  })
})

describe('rule 3: a Short is vertical or square and at most 3 minutes', () => {
  it.each([
    [{ width: 1080, height: 1920, durationMs: 60_000 }, true],
    [{ width: 1080, height: 1080, durationMs: 180_000 }, true],
    [{ width: 1080, height: 1920, durationMs: 180_001 }, false],
    [{ width: 1920, height: 1080, durationMs: 30_000 }, false],
    [{ width: 1080, height: 1920 }, false],
    [{}, false],
  ])('%o → %s', (media, expected) => {
    expect(isShortEligible(media)).toBe(expected)
  })
})

describe('rule 4: the title', () => {
  it('defaults to the first non-empty line of the copy', () => {
    expect(buildTitle('\n\n   \n  Hello world  \nsecond line')).toBe('Hello world')
  })
  it('strips angle brackets, from the copy and from an explicit title', () => {
    expect(buildTitle('<b>Bold</b> move')).toBe('bBold/b move')
    expect(buildTitle('copy', 'Explicit <title>')).toBe('Explicit title')
  })
  it('skips a line that is only angle brackets', () => {
    expect(buildTitle('<>\nReal title')).toBe('Real title')
  })
  it('prefers a non-empty explicit title and folds its line breaks', () => {
    expect(buildTitle('copy line', 'Line one\nline two')).toBe('Line one line two')
    expect(buildTitle('copy line', '  <> ')).toBe('copy line')
  })
  it('trims to 100 characters without splitting an emoji', () => {
    expect(buildTitle('a'.repeat(150))).toBe('a'.repeat(100))
    const title = buildTitle(`${'a'.repeat(99)}😀 tail`)
    expect(title).toBe('a'.repeat(99))
    expect(buildTitle('😀'.repeat(60))).toBe('😀'.repeat(50))
  })
  it('is empty when nothing is left, and the insert body refuses that as invalidTitle', () => {
    expect(buildTitle('<>\n<<>>')).toBe('')
    expect(() => buildVideoInsertBody('<>', undefined)).toThrow('Video title rejected')
  })
})

describe('rule 5: the description', () => {
  it('defaults to the whole copy with #Shorts appended', () => {
    expect(buildDescription('Line one\nLine two')).toBe('Line one\nLine two\n\n#Shorts')
  })
  it('does not append #Shorts when present in any case', () => {
    expect(buildDescription('Fun #shorts clip')).toBe('Fun #shorts clip')
    expect(buildDescription('#Shorts')).toBe('#Shorts')
    expect(buildDescription('Not a tag: #Shortsale')).toBe('Not a tag: #Shortsale\n\n#Shorts')
  })
  it('uses an explicit description', () => {
    expect(buildDescription('copy', 'Explicit')).toBe('Explicit\n\n#Shorts')
  })
  it('caps at 5,000 bytes including the appended #Shorts', () => {
    const description = buildDescription('x'.repeat(6000))
    expect(bytes(description)).toBe(5000)
    expect(description.endsWith('\n\n#Shorts')).toBe(true)
    const multibyte = buildDescription('é'.repeat(4000))
    expect(bytes(multibyte)).toBeLessThanOrEqual(5000)
    expect(multibyte.endsWith('#Shorts')).toBe(true)
  })
  it('keeps a #Shorts that survives the cap, and re-appends one the cap cut off', () => {
    const kept = buildDescription(`#Shorts ${'x'.repeat(6000)}`)
    expect(bytes(kept)).toBe(5000)
    expect(kept.match(/#Shorts/g)).toHaveLength(1)
    const cut = buildDescription(`${'x'.repeat(5000)} #Shorts`)
    expect(bytes(cut)).toBeLessThanOrEqual(5000)
    expect(cut.endsWith('\n\n#Shorts')).toBe(true)
  })
  it('strips angle brackets, which the API refuses in descriptions', () => {
    expect(buildDescription('a <b> c')).toBe('a b c\n\n#Shorts')
  })
})

describe('rule 6: hashtags become tags within 500 characters', () => {
  it('reads hashtags in order, deduplicated, not URL fragments nor bare numbers', () => {
    expect(hashtags('#One two #three (#four) https://x.example/#frag #one #123 #Über')).toEqual([
      'One',
      'three',
      'four',
      'Über',
    ])
  })
  it('counts commas between tags and quotes around tags with spaces', () => {
    expect(tagListLength([])).toBe(0)
    expect(tagListLength(['abc'])).toBe(3)
    expect(tagListLength(['abc', 'de'])).toBe(6)
    expect(tagListLength(['two words', 'x'])).toBe(9 + 2 + 1 + 1)
  })
  it('keeps tags in order while they fit, letting a later shorter one in', () => {
    const long = `#${'a'.repeat(300)}`
    const longer = `#${'b'.repeat(250)}`
    const tags = buildTags(`${long} ${longer} #short`)
    expect(tags).toEqual(['a'.repeat(300), 'short'])
    expect(tagListLength(tags)).toBeLessThanOrEqual(500)
  })
  it('fills the list up to exactly 500 and not one character more', () => {
    const base = Array.from({ length: 24 }, (_, i) => `#${String(i).padStart(2, '0')}${'t'.repeat(17)}`).join(
      ' ',
    )
    expect(tagListLength(buildTags(base))).toBe(24 * 19 + 23)
    const exact = buildTags(`${base} #${'u'.repeat(20)}`)
    expect(exact).toHaveLength(25)
    expect(tagListLength(exact)).toBe(500)
    expect(buildTags(`${base} #${'u'.repeat(21)}`)).toHaveLength(24)
  })
})

describe('rule 7: fixed category and an explicit made-for-kids declaration', () => {
  it('builds the insert body with category 22, selfDeclaredMadeForKids false and privacy public by default', () => {
    expect(buildVideoInsertBody('Title\n#a #b', undefined)).toEqual({
      snippet: { title: 'Title', description: 'Title\n#a #b\n\n#Shorts', tags: ['a', 'b'], categoryId: '22' },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    })
    expect(buildVideoInsertBody('Title', { privacyStatus: 'private' }).status.privacyStatus).toBe('private')
    expect(buildVideoInsertBody('Title', undefined).snippet.tags).toBeUndefined()
  })
})

describe('the quota day is the Pacific date', () => {
  it('changes at 07:00 UTC in summer and 08:00 UTC in winter', () => {
    expect(pacificDay(Date.UTC(2026, 6, 16, 6, 59, 59, 999))).toBe('2026-07-15')
    expect(pacificDay(Date.UTC(2026, 6, 16, 7))).toBe('2026-07-16')
    expect(pacificDay(Date.UTC(2026, 0, 15, 7, 59))).toBe('2026-01-14')
    expect(pacificDay(Date.UTC(2026, 0, 15, 8))).toBe('2026-01-15')
  })
  it('resets at the next Pacific midnight, strictly after the instant', () => {
    expect(nextPacificMidnight(Date.UTC(2026, 6, 15, 18))).toBe(Date.UTC(2026, 6, 16, 7))
    expect(nextPacificMidnight(Date.UTC(2026, 6, 16, 7))).toBe(Date.UTC(2026, 6, 17, 7))
    expect(nextPacificMidnight(Date.UTC(2026, 6, 16, 6, 59))).toBe(Date.UTC(2026, 6, 16, 7))
  })
  it('has a 23-hour day when DST starts (8 March 2026)', () => {
    const start = Date.UTC(2026, 2, 8, 8) // midnight PST
    expect(pacificDay(start)).toBe('2026-03-08')
    const end = nextPacificMidnight(start)
    expect(end).toBe(Date.UTC(2026, 2, 9, 7)) // midnight PDT
    expect((end - start) / 3_600_000).toBe(23)
    expect(pacificDay(end - 1)).toBe('2026-03-08')
    expect(pacificDay(end)).toBe('2026-03-09')
  })
  it('has a 25-hour day when DST ends (1 November 2026)', () => {
    const start = Date.UTC(2026, 10, 1, 7) // midnight PDT
    expect(pacificDay(start)).toBe('2026-11-01')
    // 01:30 happens twice that night; both belong to 1 November.
    expect(pacificDay(Date.UTC(2026, 10, 1, 8, 30))).toBe('2026-11-01')
    expect(pacificDay(Date.UTC(2026, 10, 1, 9, 30))).toBe('2026-11-01')
    const end = nextPacificMidnight(Date.UTC(2026, 10, 1, 9, 30))
    expect(end).toBe(Date.UTC(2026, 10, 2, 8)) // midnight PST
    expect((end - start) / 3_600_000).toBe(25)
  })
  it('crosses the year', () => {
    const newYearsEve = Date.UTC(2027, 0, 1, 4) // 20:00 PST on 31 December
    expect(pacificDay(newYearsEve)).toBe('2026-12-31')
    expect(nextPacificMidnight(newYearsEve)).toBe(Date.UTC(2027, 0, 1, 8))
  })
})

describe('spec §7: Google errors map by reason', () => {
  const now = Date.UTC(2026, 6, 15, 18)
  const row = (reason: Parameters<typeof googleError>[0]) => {
    const { status, body } = googleError(reason)
    return classifyGoogleError(status, body, { now })
  }

  it('quotaExceeded → rate_limited until the next Pacific midnight', () => {
    expect(row('quotaExceeded')).toMatchObject({
      kind: 'rate_limited',
      message: 'The request cannot be completed because you have exceeded your quota',
      options: { code: 'quotaExceeded', status: 403, resetAt: Date.UTC(2026, 6, 16, 7) },
    })
  })
  it('uploadLimitExceeded → rate_limited for a full day', () => {
    expect(row('uploadLimitExceeded')).toMatchObject({
      kind: 'rate_limited',
      message: 'The user has exceeded the number of videos they may upload',
      options: { code: 'uploadLimitExceeded', status: 400, resetAt: now + 86_400_000 },
    })
  })
  it('invalidTitle → invalid_content "Video title rejected"', () => {
    expect(row('invalidTitle')).toMatchObject({
      kind: 'invalid_content',
      message: 'Video title rejected',
      options: { code: 'invalidTitle' },
    })
  })
  it.each(['forbidden', 'insufficientPermissions', 'authError', 'youtubeSignupRequired'] as const)(
    '%s → auth_expired "The request is not properly authorized"',
    (reason) => {
      expect(row(reason)).toMatchObject({
        kind: 'auth_expired',
        message: 'The request is not properly authorized',
        options: { code: 'forbidden' },
      })
    },
  )
  it.each(['backendError', 'internalError'] as const)('%s → transient', (reason) => {
    expect(row(reason).kind).toBe('transient')
  })
  it('the 2026 per-project "Video Uploads per day" 429 is rate limited until Pacific midnight', () => {
    expect(row('rateLimitExceeded')).toMatchObject({
      kind: 'rate_limited',
      options: { code: 'rateLimitExceeded', resetAt: Date.UTC(2026, 6, 16, 7) },
    })
  })
  it('a 429 without a daily limit honours Retry-After', () => {
    const failure = classifyGoogleError(
      429,
      { error: { code: 429, message: 'Slow down', errors: [] } },
      {
        now,
        retryAfter: '30',
      },
    )
    expect(failure).toMatchObject({ kind: 'rate_limited', options: { resetAt: now + 30_000 } })
  })
  it('another 4xx is invalid_content with Google message, HTML removed', () => {
    expect(row('invalidCategoryId')).toMatchObject({
      kind: 'invalid_content',
      options: { code: 'invalidCategoryId', status: 400 },
    })
    expect(row('invalidCategoryId').message).not.toMatch(/[<>]/)
  })
  it('a body that is not Google JSON still classifies by status', () => {
    expect(classifyGoogleError(502, 'Bad gateway', { now }).kind).toBe('transient')
    expect(classifyGoogleError(401, undefined, { now }).kind).toBe('auth_expired')
  })
})

describe('token endpoint refusals', () => {
  it('a revoked or expired grant asks for a reconnect', () => {
    expect(
      classifyTokenError(400, {
        error: 'invalid_grant',
        error_description: 'Token has been expired or revoked.',
      }),
    ).toMatchObject({ kind: 'auth_expired', message: 'The request is not properly authorized' })
  })
  it("Herald's own client credentials being refused is not the user's to fix", () => {
    expect(classifyTokenError(401, { error: 'invalid_client' })).toMatchObject({
      kind: 'invalid_content',
      options: { code: 'invalid_client' },
    })
  })
  it('a 5xx is transient', () => {
    expect(classifyTokenError(503, undefined).kind).toBe('transient')
  })
})

describe('spec §5: the granted scopes are checked at the callback', () => {
  it('accepts upload + read-only with a refresh token', () => {
    expect(youtubeGrantProblem([UPLOAD_SCOPE, READONLY_SCOPE], { refreshToken: 'r' })).toBeNull()
  })
  it('accepts the broader youtube scope from an earlier grant', () => {
    expect(youtubeGrantProblem(['https://www.googleapis.com/auth/youtube'], { refreshToken: 'r' })).toBeNull()
  })
  it.each([
    [[READONLY_SCOPE], 'uploadScopeMissing'],
    [[], 'uploadScopeMissing'],
    [[UPLOAD_SCOPE], 'readScopeMissing'],
  ])('refuses %j with %s', (scopes, reason) => {
    expect(youtubeGrantProblem(scopes, { refreshToken: 'r' })?.reason).toBe(reason)
  })
  it('refuses a grant that returned no refresh token', () => {
    expect(youtubeGrantProblem([UPLOAD_SCOPE, READONLY_SCOPE], {})?.reason).toBe('noRefreshToken')
  })
})

describe('metrics mapping', () => {
  it('maps video statistics (strings) and leaves the deprecated favoriteCount out of saves', () => {
    const reading = videoReading({ viewCount: '10', likeCount: '3', commentCount: '2', favoriteCount: '0' })
    expect(reading.summary).toEqual({
      views: 10,
      likes: 3,
      comments: 2,
      shares: null,
      saves: null,
      clicks: null,
      engagements: 5,
    })
    expect(reading.metrics).toEqual({ viewCount: 10, likeCount: 3, commentCount: 2, favoriteCount: 0 })
  })
  it('leaves likes null when the owner hid them, and engagements counts what is known', () => {
    expect(videoReading({ viewCount: '10', commentCount: '2' }).summary).toMatchObject({
      likes: null,
      engagements: 2,
    })
    expect(videoReading({}).summary.engagements).toBeNull()
  })
  it('maps channel statistics, hidden subscribers as null', () => {
    expect(
      channelReading({
        viewCount: '100',
        subscriberCount: '5',
        hiddenSubscriberCount: false,
        videoCount: '3',
      }).summary,
    ).toEqual({ followers: 5, following: null, posts: 3, views: 100 })
    expect(channelReading({ subscriberCount: '0', hiddenSubscriberCount: true }).summary.followers).toBeNull()
  })
})

describe('resumable upload status', () => {
  it('reads the Range header of a 308', () => {
    expect(receivedBytes('bytes=0-999')).toBe(1000)
    expect(receivedBytes(null)).toBe(0)
  })
})
