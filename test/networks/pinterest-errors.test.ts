import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { GrantProfile } from '../../src/adapters/adapter.js'
import { classifyPinterestError, rateLimitReset } from '../../src/adapters/pinterest/errors.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import {
  failureOf,
  hasPinterestOpenApi,
  type PinterestWorld,
  startPinterestWorld,
} from './pinterest-fixtures.js'

const NOW = Date.UTC(2026, 7, 3, 9)

describe("Pinterest's refusals as Herald's failure kinds", () => {
  const kind = (status: number, body: Record<string, unknown>, sentIsCreate = false) =>
    classifyPinterestError({
      status,
      body,
      what: 'the pin',
      sentIsCreate,
      now: NOW,
      secrets: ['pina_secret'],
    })

  it.each([
    [401, { code: 2, message: 'Authentication failed.' }, false, 'auth_expired'],
    [
      403,
      { code: 29, message: 'Apps with Trial access may not create Pins in production' },
      false,
      'invalid_content',
    ],
    [403, { code: 3, message: 'Authorization failed. Missing scope: pins:write' }, false, 'auth_expired'],
    [403, { code: 403, message: 'Not authorized to access board or Pin.' }, false, 'invalid_content'],
    [404, { code: 404, message: 'Board not found.' }, false, 'invalid_content'],
    [400, { code: 1, message: 'Invalid parameters' }, true, 'invalid_content'],
    [429, { code: 8, message: 'rate limit' }, true, 'rate_limited'],
    [500, { code: 500, message: 'oops' }, false, 'transient'],
    [503, { code: 503, message: 'oops' }, true, 'unknown_outcome'],
  ])('answers %i %j (a create: %s) as %s', (status, body, create, expected) => {
    expect(kind(status, body, create).kind).toBe(expected)
  })

  it('says how to fix a Trial app on the production host, and never repeats a token', () => {
    expect(kind(403, { code: 29, message: 'Trial access pina_secret' }).message).toMatch(
      /HERALD_PINTEREST_API_URL=https:\/\/api-sandbox\.pinterest\.com\/v5.*\[redacted\]/,
    )
  })

  it('waits as long as Retry-After says, or a minute', () => {
    expect(rateLimitReset(new Headers({ 'retry-after': '30' }), NOW)).toBe(NOW + 30_000)
    expect(rateLimitReset(new Headers(), NOW)).toBe(NOW + 60_000)
  })
})

/** The same refusals as the simulator answers them, through the adapter. */
describe.runIf(hasPinterestOpenApi)('the Pinterest adapter meeting refusals and faults', () => {
  let world: PinterestWorld
  let faults: ScriptedFaults
  let board: GrantProfile
  beforeAll(async () => {
    faults = scriptedFaults()
    world = await startPinterestWorld({ faults })
    board = (await world.connect('errors_ed'))[0]!
  })
  afterAll(() => world?.close())
  afterEach(() => {
    faults.clear()
    world.sandbox.settings.trial = false
    world.sandbox.settings.writesPerMinute = 100
  })
  const image = () => world.request(board, 'A pin', [world.src('tall.jpg')])
  const fault = (operation: string, timing: 'before' | 'after', answer: Record<string, unknown>) =>
    faults.on({ network: 'pinterest', operation }, { timing, answer } as never)

  it('refuses a Trial app on production, a board that is gone, and an expired token, making no pin', async () => {
    const before = world.sandbox.pins.size
    world.sandbox.settings.trial = true
    expect(await failureOf(() => world.adapter.publish(image()))).toMatchObject({
      kind: 'invalid_content',
      message: expect.stringMatching(/Trial access/),
    })
    world.sandbox.settings.trial = false
    const gone = world.request(board, 'Nowhere', [world.src('tall.jpg')], {
      profile: { ...board.profile, profileId: '999' },
      credentials: { ...board.credentials, extra: { ...board.credentials.extra, boardId: '999' } },
    })
    expect(await failureOf(() => world.adapter.publish(gone))).toMatchObject({
      kind: 'invalid_content',
      options: { status: 404 },
    })
    const expired = world.request(board, 'Old token', [world.src('tall.jpg')], {
      credentials: { ...board.credentials, accessToken: 'pina_unknown' },
    })
    expect(await failureOf(() => world.adapter.publish(expired))).toMatchObject({ kind: 'auth_expired' })
    expect(world.sandbox.pins.size).toBe(before)
  })

  it("is rate limited for a minute when the account's writes are used up", async () => {
    world.sandbox.settings.writesPerMinute = 0
    const failure = await failureOf(() => world.adapter.publish(image()))
    expect(failure).toMatchObject({
      kind: 'rate_limited',
      options: { status: 429, resetAt: world.clock.now() + 60_000 },
    })
  })

  it.each([
    ['a 5xx', { kind: 'status', status: 500 }],
    ['a reset connection', { kind: 'reset' }],
    ['a late answer', { kind: 'hang' }],
  ])('takes %s after the pin was made as an unknown outcome, with the pin made once', async (_, answer) => {
    const before = world.sandbox.pins.size
    fault('pins/create', 'after', answer)
    const request = { ...image(), signal: AbortSignal.timeout(answer.kind === 'hang' ? 1_000 : 30_000) }
    expect(await failureOf(() => world.adapter.publish(request))).toMatchObject({ kind: 'unknown_outcome' })
    expect(world.sandbox.pins.size).toBe(before + 1)
  })

  it('takes a failed registration or upload as transient, and never uploads a file Pinterest already has', async () => {
    fault('media/create', 'after', { kind: 'status', status: 503 })
    const saved: Record<string, string> = {}
    const video = () =>
      world.request(board, 'A video', [world.src('clip.mp4')], {
        progress: { ...saved },
        saveProgress: async (p) => {
          Object.assign(saved, p)
        },
      })
    expect(await failureOf(() => world.adapter.publish(video()))).toMatchObject({ kind: 'transient' })
    expect(saved).toEqual({})
    // The upload reaches Pinterest and its answer is lost: the retry asks the media, and uploads nothing.
    fault('media/upload', 'after', { kind: 'reset' })
    expect(await failureOf(() => world.adapter.publish(video()))).toMatchObject({ kind: 'transient' })
    const media = world.sandbox.media.get(saved.mediaId!)!
    expect(saved.uploaded).toBeUndefined()
    expect(media.uploads).toBe(1)
    const result = await world.adapter.publish(video())
    expect(world.sandbox.pins.get(result.remoteId)?.mediaId).toBe(media.id)
    expect(media.uploads).toBe(1)
  })

  it('refuses a video Pinterest could not process', async () => {
    world.addFile('broken.mp4', 'video/mp4', Buffer.from('not a video at all'))
    const failure = await failureOf(() =>
      world.adapter.publish(world.request(board, 'Broken', [world.src('broken.mp4')])),
    )
    expect(failure).toMatchObject({
      kind: 'invalid_content',
      message: 'Pinterest could not process the video',
    })
  })
})
