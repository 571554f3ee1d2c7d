import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { GrantProfile } from '../../src/adapters/adapter.js'
import { h264Clip } from '../media/video-fixtures.js'
import {
  failureOf,
  hasPinterestOpenApi,
  type PinterestWorld,
  startPinterestWorld,
} from './pinterest-fixtures.js'

/**
 * The Pinterest adapter against the simulator, every request it sends held to Pinterest's own API
 * description: connecting (each board a profile), pins with an image (by URL or inline), a carousel, a
 * video through the media upload with its cover, resuming a saved upload, and refreshing tokens.
 */
describe.runIf(hasPinterestOpenApi)('the Pinterest adapter', () => {
  let world: PinterestWorld
  let boards: GrantProfile[]
  beforeAll(async () => {
    world = await startPinterestWorld()
    boards = await world.connect('maker_jo')
  })
  afterAll(() => world?.close())
  afterEach(() => {
    expect(world.validation.problems).toEqual([])
    expect(world.sandbox.violations).toEqual([])
  })
  const pinsOn = (board: GrantProfile) =>
    [...world.sandbox.pins.values()].filter((pin) => pin.boardId === board.profile.profileId)

  it('connects every board the account can pin to as a profile of its own, with the account as username', async () => {
    expect(boards.map((b) => b.profile.name)).toEqual(['Spring recipes', 'Shop window', 'Drafts'])
    const account = [...world.sandbox.accounts.values()].find((a) => a.username === 'maker_jo')!
    for (const board of boards) {
      expect(board).toMatchObject({
        network: 'pinterest',
        kind: 'Board',
        profile: { username: 'maker_jo', isOrganization: false },
        credentials: { extra: { accountId: account.id, boardId: board.profile.profileId } },
      })
      expect(world.sandbox.boards.get(board.profile.profileId)?.name).toBe(board.profile.name)
    }
    expect(Number(boards[0]!.credentials.extra!.refreshTokenExpiresAt)).toBe(
      Math.floor((world.clock.now() + 60 * 86_400_000) / 1000) * 1000,
    )
    expect(boards[0]!.credentials.expiresAt).toBe(world.clock.now() + 30 * 86_400_000)
  })

  it('asks for the board and pin scopes, comma-separated, and sends the app as HTTP Basic on the exchange', async () => {
    const url = new URL(
      world.adapter.oauth!.authorizeUrl({
        state: 's',
        codeChallenge: 'c',
        redirectUri: 'https://h.example/cb',
      }),
    )
    expect(url.searchParams.get('scope')).toBe(
      'boards:read,boards:write,pins:read,pins:write,user_accounts:read',
    )
    expect(url.searchParams.get('response_type')).toBe('code')
    expect(world.sandbox.tokenCalls.authorization_code).toBeGreaterThan(0)
  })

  it('pins an image by URL with its title, description, link and alt text, at a live pin page', async () => {
    const [board] = boards
    const result = await world.hosting.publish(
      world.request(board!, 'Lemon tart, step by step', [world.src('tall.jpg')], {
        pinterest: { title: 'Lemon tart', link: 'https://bakery.example/tart' },
        media: [{ url: world.src('tall.jpg'), altText: 'A lemon tart on a blue plate' }],
      } as never),
    )
    const pin = world.sandbox.pins.get(result.remoteId)!
    expect(pin).toMatchObject({
      title: 'Lemon tart',
      description: 'Lemon tart, step by step',
      link: 'https://bakery.example/tart',
      altText: 'A lemon tart on a blue plate',
      mediaType: 'image',
      sourceType: 'image_url',
      images: [{ width: 1000, height: 1500 }],
    })
    expect(result.url).toBe(`${world.settings.webUrl}/pin/${result.remoteId}/`)
    const page = await (await fetch(result.url)).text()
    expect(page).toContain('Lemon tart')
    expect(page).toContain('bakery.example')
    expect(world.sandbox.fetches.at(-1)).toMatchObject({ url: world.src('tall.jpg'), ok: true })
  })

  it("sends the image's bytes inline (base64) when Pinterest cannot fetch Herald's copy", async () => {
    const result = await world.adapter.publish(
      world.request(boards[1]!, 'Inline pin', [world.src('tall.png')]),
    )
    expect(world.sandbox.pins.get(result.remoteId)).toMatchObject({
      sourceType: 'image_base64',
      title: null,
      link: null,
      images: [{ width: 1000, height: 1500 }],
    })
  })

  it('pins a carousel of images by URL and inline, and refuses one of differing sizes before sending it', async () => {
    const set = [world.src('tall.jpg'), world.src('tall2.jpg'), world.src('tall.png')]
    const byUrl = await world.hosting.publish(world.request(boards[0]!, 'Three steps', set))
    expect(world.sandbox.pins.get(byUrl.remoteId)).toMatchObject({
      mediaType: 'multiple_images',
      sourceType: 'multiple_image_urls',
    })
    const inline = await world.adapter.publish(world.request(boards[0]!, 'Three steps inline', set))
    expect(world.sandbox.pins.get(inline.remoteId)?.sourceType).toBe('multiple_image_base64')
    const before = world.sandbox.pins.size
    const refused = await failureOf(() =>
      world.adapter.publish(
        world.request(boards[0]!, 'Mixed', [world.src('tall.jpg'), world.src('square.jpg')]),
      ),
    )
    expect(refused).toMatchObject({ kind: 'invalid_content' })
    expect(refused.message).toMatch(/same size; these are 1000x1500, 800x800/)
    expect(world.sandbox.pins.size).toBe(before)
  })

  it('refuses a carousel of six, a video in a carousel and a pin without media, sending nothing', async () => {
    const before = world.sandbox.pins.size
    const six = Array.from({ length: 6 }, () => world.src('tall.jpg'))
    expect(await failureOf(() => world.adapter.publish(world.request(boards[0]!, 'Six', six)))).toMatchObject(
      {
        kind: 'invalid_content',
      },
    )
    const mixed = [world.src('tall.jpg'), world.src('clip.mp4')]
    expect(
      await failureOf(() => world.adapter.publish(world.request(boards[0]!, 'Mixed', mixed))),
    ).toMatchObject({
      kind: 'invalid_content',
      message: expect.stringMatching(/one video per pin/),
    })
    expect(
      await failureOf(() => world.adapter.publish(world.request(boards[0]!, 'Nothing', []))),
    ).toMatchObject({
      kind: 'invalid_content',
    })
    expect(world.sandbox.pins.size).toBe(before)
  })

  it('pins a video through one registration and one upload, polled to succeeded, with a cover it lets Pinterest pick', async () => {
    const saved: Record<string, string>[] = []
    const uploadsBefore = world.uploads.length
    const result = await world.adapter.publish(
      world.request(boards[0]!, 'The tart in motion', [world.src('clip.mp4')], {
        pinterest: { title: 'Tart video' },
        saveProgress: async (progress) => {
          saved.push(progress)
        },
      }),
    )
    const pin = world.sandbox.pins.get(result.remoteId)!
    expect(pin).toMatchObject({ mediaType: 'video', title: 'Tart video', cover: { keyFrameTime: 0 } })
    const media = world.sandbox.media.get(pin.mediaId!)!
    expect(media).toMatchObject({ status: 'succeeded', uploads: 1 })
    expect(saved).toEqual([{ mediaId: media.id }, { mediaId: media.id, uploaded: '1' }])
    expect(world.uploads.length).toBe(uploadsBefore + 1)
  })

  it('covers a video with its first frame made by ffmpeg, or with the cover image given', async () => {
    const clip = await h264Clip(path.join(tmpdir(), `pin-clip-${process.pid}.mp4`), {
      seconds: 4,
      width: 320,
      height: 480,
    })
    world.addFile('real.mp4', 'video/mp4', await readFile(clip))
    const framed = await world.hosting.publish(
      world.request(boards[0]!, 'First frame', [world.src('real.mp4')]),
    )
    expect(world.sandbox.pins.get(framed.remoteId)?.cover).toMatchObject({ width: 320, height: 480 })
    const covered = await world.hosting.publish(
      world.request(boards[0]!, 'Given cover', [world.src('real.mp4')], {
        pinterest: { coverImageUrl: world.src('square.jpg') },
      }),
    )
    expect(world.sandbox.pins.get(covered.remoteId)?.cover).toMatchObject({ width: 800, height: 800 })
    expect(world.sandbox.fetches.at(-1)?.url).toBe(world.src('square.jpg'))
  }, 60_000)

  it('resumes a saved upload without registering or uploading again, and replaces one whose file never arrived', async () => {
    const first = await world.adapter.publish(world.request(boards[1]!, 'Resumable', [world.src('clip.mp4')]))
    const mediaId = world.sandbox.pins.get(first.remoteId)!.mediaId!
    const media = world.sandbox.media.size
    const uploads = world.uploads.length
    const again = await world.adapter.publish(
      world.request(boards[1]!, 'Resumed', [world.src('clip.mp4')], { progress: { mediaId, uploaded: '1' } }),
    )
    expect(world.sandbox.pins.get(again.remoteId)?.mediaId).toBe(mediaId)
    expect(world.sandbox.media.size).toBe(media)
    expect(world.uploads.length).toBe(uploads)
    // A registration whose upload never came stays `registered`: a few polls, then a new one.
    const registration = (await (
      await fetch(`${world.settings.apiUrl}/media`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${boards[1]!.credentials.accessToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ media_type: 'video' }),
      })
    ).json()) as { media_id: string }
    const registered = world.sandbox.media.get(registration.media_id)!
    const replaced = await world.adapter.publish(
      world.request(boards[1]!, 'Replaced', [world.src('clip.mp4')], {
        progress: { mediaId: registered.id },
      }),
    )
    expect(world.sandbox.pins.get(replaced.remoteId)?.mediaId).not.toBe(registered.id)
    expect(registered.uploads).toBe(0)
  })

  it('refreshes with the continuous refresh token: a new pair, a new 60-day end, the old token still working', async () => {
    const board = boards[2]!
    world.clock.advance(86_400_000)
    const refreshed = await world.adapter.refresh(board.credentials)
    expect(refreshed.accessToken).not.toBe(board.credentials.accessToken)
    expect(refreshed.refreshToken).not.toBe(board.credentials.refreshToken)
    expect(refreshed.extra).toMatchObject({ boardId: board.profile.profileId })
    expect(Number(refreshed.extra!.refreshTokenExpiresAt)).toBeGreaterThan(
      Number(board.credentials.extra!.refreshTokenExpiresAt),
    )
    await expect(world.adapter.refresh(board.credentials)).resolves.toMatchObject({
      accessToken: expect.any(String),
    })
    expect(await world.adapter.resolveProfile(refreshed)).toMatchObject({
      profileId: board.profile.profileId,
      name: 'Drafts',
      username: 'maker_jo',
    })
  })

  it('reads a pin and its board: impressions, saves and clicks, the account followers and the board pins', async () => {
    const [board] = boards
    const posted = await world.adapter.publish(world.request(board!, 'Counted pin', [world.src('tall.jpg')]))
    world.clock.advance(3 * 86_400_000)
    const pin = await world.adapter.postMetrics({
      credentials: board!.credentials,
      profile: board!.profile,
      remoteId: posted.remoteId,
    })
    expect(pin.summary.views).toBeGreaterThan(0)
    expect(pin.summary.saves).toBe(Math.floor((pin.summary.views as number) / 25))
    expect(pin.summary.clicks).toBe(
      (pin.metrics.PIN_CLICK as number) + (pin.metrics.OUTBOUND_CLICK as number),
    )
    expect(pin.metrics).toMatchObject({ window: 'days_90', TOTAL_REACTIONS: expect.any(Number) })
    const profile = await world.adapter.profileMetrics({
      credentials: board!.credentials,
      profile: board!.profile,
    })
    const account = [...world.sandbox.accounts.values()].find((a) => a.username === 'maker_jo')!
    expect(profile.summary).toMatchObject({ followers: account.followers, following: account.following })
    expect(profile.summary.posts).toBe(pinsOn(board!).length)
    expect(profile.summary.views).toBeGreaterThan(0)
    expect(profile.window).toBe('days_30')
  })
})
