import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Harness } from '../helpers/harness.js'
import { usePreflightRig } from '../helpers/preflight-rig.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Preflight and create_post for Pinterest boards: the description's 800 characters, a pin's title (100)
 * and link (2,048), media required, carousels of 2 to 5 images without video, Pinterest's video lengths,
 * a cover only for a video pin, first comments (which Pinterest takes none of), and the `pinterest`
 * object ignored elsewhere.
 */
describe('preflight for Pinterest', () => {
  const rig = usePreflightRig(async (h) => {
    const pins = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'pinterest',
      username: 'rules_pi',
    })
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'threads', username: 'rules.th' })
    return pins.profileId
  })
  const { url, preflight } = rig
  let h: Harness
  let board: string
  let videos: TestServer
  beforeAll(async () => {
    h = rig.h
    board = rig.connected
    const clip = (seconds: number) =>
      mp4File({ width: 1080, height: 1920, durationMs: seconds * 1000, mdatBytes: 4096 })
    videos = await startServer((request, response) => {
      const bytes = clip(request.url?.includes('short') ? 2 : 16 * 60)
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) })
      response.end(bytes)
    })
  })
  afterAll(() => videos?.close())
  const one = (input: Record<string, unknown>) =>
    preflight({
      targetAccounts: [{ platform: 'pinterest', profileId: board }],
      mediaUrl: url('a.jpg'),
      ...input,
    })
  const who = 'pinterest @rules_pi'

  it('reports 800 characters for Pinterest and passes a pin with a title, a link and an image', async () => {
    const answer = await one({
      content: 'A good pin',
      pinterest: { title: 'Good', link: 'https://shop.example/p' },
    })
    expect(answer).toMatchObject({ ok: true, blockers: [] })
    expect((answer as unknown as { limits: Record<string, number> }).limits.pinterest).toBe(800)
  })

  it('blocks a description over 800 characters, a title over 100 and a link over 2,048', async () => {
    const answer = await one({
      content: 'x'.repeat(801),
      pinterest: { title: 't'.repeat(101), link: `https://shop.example/${'l'.repeat(2040)}` },
    })
    expect(answer.blockers).toEqual(
      expect.arrayContaining([
        `${who}: the copy is 801 characters; pinterest allows 800`,
        `pinterest.title: ${who}: the pin title is 101 characters; Pinterest allows 100`,
        `pinterest.link: ${who}: the link is 2061 characters; Pinterest allows 2048`,
      ]),
    )
    const refused = await h.call('create_post', {
      content: 'ok',
      targetAccounts: [{ platform: 'pinterest', profileId: board }],
      mediaUrl: url('a.jpg'),
      pinterest: { title: 't'.repeat(101) },
      publishImmediately: true,
    })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).toMatch(/the pin title is 101 characters/)
  })

  it('blocks a pin without media, a carousel of six, and a video in a carousel; passes one of five', async () => {
    expect((await one({ content: 'no media', mediaUrl: undefined })).blockers).toContain(
      `${who}: pinterest requires media`,
    )
    const six = await one({ content: 'six', mediaUrls: Array.from({ length: 6 }, (_, i) => url(`${i}.jpg`)) })
    expect(six.blockers).toContain(`${who}: 6 attachments; pinterest takes at most 5`)
    const mixed = await one({ content: 'mixed', mediaUrls: [url('a.jpg'), url('clip.mp4')] })
    expect(mixed.blockers).toContain(`${who}: pinterest does not mix video into a set of several`)
    const five = await one({
      content: 'five',
      mediaUrls: Array.from({ length: 5 }, (_, i) => url(`${i}.jpg`)),
    })
    expect(five).toMatchObject({
      ok: true,
      mediaSetLimits: { pinterest: { min: 2, max: 5, mixesVideo: false } },
    })
  })

  it("blocks a video shorter than 4 seconds or longer than 15 minutes, as Pinterest's video rules say", async () => {
    const short = await one({ content: 'short', mediaUrl: `${videos.url}/short.mp4` })
    expect(short.blockers.join(' ')).toMatch(/Pinterest takes videos at least 0:04 long; this one is 0:02/)
    const long = await one({ content: 'long', mediaUrl: `${videos.url}/long.mp4` })
    expect(long.blockers.join(' ')).toMatch(/Pinterest takes videos up to 15:00 long; this one is 16:00/)
    expect((await one({ content: 'fine', mediaUrl: url('clip.mp4') })).blockers).toEqual([])
  })

  it('blocks a cover on a carousel, and a cover that is a video', async () => {
    const set = await one({
      content: 'set',
      mediaUrls: [url('a.jpg'), url('b.jpg')],
      pinterest: { coverImageUrl: url('cover.jpg') },
    })
    expect(set.blockers).toContain(
      `pinterest.coverImageUrl: ${who}: a cover image is for a video pin (one video)`,
    )
    const videoCover = await one({
      content: 'video',
      mediaUrl: url('clip.mp4'),
      pinterest: { coverImageUrl: url('cover.mp4') },
    })
    expect(videoCover.blockers).toContain(
      `pinterest coverImageUrl: ${url('cover.mp4')} is a video; a pin's cover must be an image`,
    )
  })

  it('leaves a shared first comment out of Pinterest with a warning, and blocks one named for Pinterest', async () => {
    const shared = await preflight({
      content: 'pins',
      platforms: ['pinterest'],
      mediaUrl: url('a.jpg'),
      firstComment: 'More soon',
    })
    expect(shared.ok).toBe(true)
    expect(shared.warnings).toContain(
      `${who}: pinterest takes no first comments; the first comment is left out there`,
    )
    const named = await one({ content: 'pin', firstCommentVariants: { pinterest: 'More soon' } })
    expect(named.blockers).toContain(`firstCommentVariants: ${who}: pinterest takes no first comments`)
  })

  it('ignores the pinterest object for other networks, and keeps it on the Pinterest posts', async () => {
    const created = await h.call('create_post', {
      content: 'Both networks',
      targetAccounts: [
        { platform: 'pinterest', profileId: board },
        { platform: 'threads', username: 'rules.th' },
      ],
      mediaUrl: url('a.jpg'),
      pinterest: { title: 'Both', link: 'https://shop.example/both' },
      publishImmediately: false,
      scheduleDate: '2040-01-01',
      scheduleTime: '10:00',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const [pin, thread] = created.body.posts as Array<Record<string, unknown>>
    expect(pin).toMatchObject({
      platforms: ['pinterest'],
      pinterest: { title: 'Both', link: 'https://shop.example/both' },
    })
    expect(thread).toMatchObject({ platforms: ['threads'] })
    expect(thread).not.toHaveProperty('pinterest')
    const edited = await h.call('update_post', { id: pin!.id, pinterest: { title: 'Renamed' } })
    expect(edited.status, JSON.stringify(edited.body)).toBe(200)
    expect(edited.body.post ?? edited.body).toMatchObject({
      pinterest: { title: 'Renamed', link: 'https://shop.example/both' },
    })
    const target = await h.app.store.db
      .selectFrom('targets')
      .select('pinterest')
      .where('post_id', '=', pin!.id as string)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(target.pinterest!)).toEqual({ title: 'Renamed', link: 'https://shop.example/both' })
  })
})
