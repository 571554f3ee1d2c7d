import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { GrantProfile, LookupRequest } from '../../src/adapters/adapter.js'
import { createdAt } from '../../src/adapters/pinterest/lookup.js'
import { type ScriptedFaults, scriptedFaults } from '../helpers/fault-script.js'
import {
  failureOf,
  hasPinterestOpenApi,
  type PinterestWorld,
  startPinterestWorld,
} from './pinterest-fixtures.js'

const afterPin = { timing: 'after', answer: { kind: 'status', status: 503 } } as const
const pinsCreate = { network: 'pinterest', operation: 'pins/create' } as const

/**
 * Whether an unanswered pin went out, asked of the board's pins: found by what Herald sent (title,
 * description, link, media kind and count) since the attempt, absent when the board read back to before
 * it shows none, ambiguous when two pins look the same, the copy tells nothing apart, or the read runs out.
 */
describe.runIf(hasPinterestOpenApi)("looking for a pin among the board's pins", () => {
  let world: PinterestWorld
  let faults: ScriptedFaults
  let board: GrantProfile
  beforeAll(async () => {
    faults = scriptedFaults()
    world = await startPinterestWorld({ faults })
    board = (await world.connect('lookup_lu'))[0]!
  })
  afterAll(() => world?.close())
  afterEach(() => {
    faults.clear()
    expect(world.validation.problems).toEqual([])
    expect(world.sandbox.violations).toEqual([])
  })

  const lookup = (
    request: { content: string; mediaUrls: string[]; since: number } & Partial<LookupRequest>,
  ) =>
    world.adapter.findPublished!({
      targetId: 't',
      profile: board.profile,
      credentials: board.credentials,
      signal: AbortSignal.timeout(30_000),
      ...request,
    })
  const unanswered = async (content: string, mediaUrls: string[], extra = {}) => {
    faults.on(pinsCreate, afterPin)
    const since = world.clock.now()
    const failure = await failureOf(() =>
      world.adapter.publish(world.request(board, content, mediaUrls, extra)),
    )
    expect(failure.kind).toBe('unknown_outcome')
    return since
  }

  it('finds the pin an unanswered create made, by its title, description, link and media', async () => {
    const pinterest = { title: 'Rye loaf', link: 'https://bakery.example/rye' }
    const since = await unanswered('Our rye, 36 hours in the making', [world.src('tall.jpg')], { pinterest })
    const [made] = [...world.sandbox.pins.values()].filter((p) => p.title === 'Rye loaf')
    const answer = await lookup({
      content: 'Our rye, 36 hours in the making',
      mediaUrls: [world.src('tall.jpg')],
      since,
      pinterest,
    })
    expect(answer).toEqual({
      kind: 'found',
      result: { remoteId: made!.id, url: `${world.settings.webUrl}/pin/${made!.id}/` },
    })
    // Another link, title or media count is another pin.
    for (const other of [
      { pinterest: { ...pinterest, link: 'https://bakery.example/spelt' } },
      { pinterest: { link: pinterest.link } },
      { mediaUrls: [world.src('tall.jpg'), world.src('tall2.jpg')] },
    ])
      expect(
        await lookup({
          content: 'Our rye, 36 hours in the making',
          mediaUrls: [world.src('tall.jpg')],
          since,
          pinterest,
          ...other,
        }),
      ).toEqual({ kind: 'absent' })
  })

  it('answers absent for a create refused before its effect, after reading back past the attempt', async () => {
    faults.on(pinsCreate, { timing: 'before', answer: { kind: 'status', status: 503 } })
    const since = world.clock.now()
    await failureOf(() => world.adapter.publish(world.request(board, 'Never made', [world.src('tall.jpg')])))
    expect(await lookup({ content: 'Never made', mediaUrls: [world.src('tall.jpg')], since })).toEqual({
      kind: 'absent',
    })
  })

  it('is ambiguous when two pins since the attempt look the same, or the copy is only a link', async () => {
    const since = world.clock.now()
    for (let i = 0; i < 2; i++)
      await world.adapter.publish(world.request(board, 'Twin pin', [world.src('tall.jpg')]))
    const twins = await lookup({ content: 'Twin pin', mediaUrls: [world.src('tall.jpg')], since })
    expect(twins).toMatchObject({
      kind: 'ambiguous',
      reason: expect.stringMatching(/2 posts since the attempt/),
    })
    await world.adapter.publish(world.request(board, 'https://bakery.example/', [world.src('tall.jpg')]))
    const bare = await lookup({
      content: 'https://bakery.example/',
      mediaUrls: [world.src('tall.jpg')],
      since,
    })
    expect(bare).toMatchObject({ kind: 'ambiguous', reason: expect.stringMatching(/empty or only links/) })
  })

  it('leaves out pins other targets hold and pins made before the attempt', async () => {
    const old = await world.adapter.publish(world.request(board, 'Made earlier', [world.src('tall.jpg')]))
    world.clock.advance(60 * 60_000)
    expect(
      await lookup({ content: 'Made earlier', mediaUrls: [world.src('tall.jpg')], since: world.clock.now() }),
    ).toEqual({
      kind: 'absent',
    })
    const since = world.clock.now()
    const held = await world.adapter.publish(world.request(board, 'Held by another', [world.src('tall.jpg')]))
    expect(
      await lookup({
        content: 'Held by another',
        mediaUrls: [world.src('tall.jpg')],
        since,
        excludeRemoteIds: [held.remoteId],
      }),
    ).toEqual({ kind: 'absent' })
    expect(old.remoteId).not.toBe(held.remoteId)
  })

  it('reads past short and empty pages that keep their bookmark, and a video pin is matched as a video', async () => {
    const since = await unanswered('A video, unanswered', [world.src('clip.mp4')])
    for (let i = 0; i < 3; i++)
      await world.adapter.publish(world.request(board, `Newer ${i}`, [world.src('tall.jpg')]))
    faults.shortPages({ network: 'pinterest', operation: 'boards/list_pins' }, 0, 2)
    faults.shortPages({ network: 'pinterest', operation: 'boards/list_pins' }, 1, 3)
    const answer = await lookup({ content: 'A video, unanswered', mediaUrls: [world.src('clip.mp4')], since })
    expect(answer.kind).toBe('found')
    const asImage = await lookup({
      content: 'A video, unanswered',
      mediaUrls: [world.src('tall.jpg')],
      since,
    })
    expect(asImage).toEqual({ kind: 'absent' })
  })

  it('says it cannot tell when the board has more pins since the attempt than it reads back', async () => {
    const since = world.clock.now() - 1
    faults.shortPages({ network: 'pinterest', operation: 'boards/list_pins' }, 0, Number.POSITIVE_INFINITY)
    const answer = await lookup({ content: 'Anything', mediaUrls: [world.src('tall.jpg')], since })
    expect(answer).toMatchObject({
      kind: 'ambiguous',
      reason: expect.stringMatching(/more posts since the attempt/),
    })
  })

  it('fails as transient when the board cannot be read, so the lookup runs again later', async () => {
    faults.on(
      { network: 'pinterest', operation: 'boards/list_pins' },
      { timing: 'before', answer: { kind: 'status', status: 502 } },
    )
    const failure = await failureOf(() =>
      lookup({ content: 'x', mediaUrls: [world.src('tall.jpg')], since: world.clock.now() }),
    )
    expect(failure.kind).toBe('transient')
  })

  it('reads the time Pinterest writes without a zone as UTC', () => {
    expect(createdAt({ created_at: '2026-08-03T09:00:00' })).toBe(Date.UTC(2026, 7, 3, 9))
    expect(createdAt({ created_at: '2026-08-03T09:00:00Z' })).toBe(Date.UTC(2026, 7, 3, 9))
    expect(createdAt({})).toBeNaN()
  })
})
