import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PublishRequest } from '../../src/adapters/adapter.js'
import { tiktokSettings } from '../../src/adapters/registry.js'
import { createTikTokAdapter } from '../../src/adapters/tiktok/index.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { SANDBOX_CLIENT_KEY } from '../../src/sandbox/tiktok/index.js'
import { heldOn, useFaultRig } from '../helpers/fault-rig.js'
import { lookUpAs } from '../helpers/sandbox-adapters.js'
import { mp4File } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

const MB = 1024 * 1024
const on = (operation: string) => (call: SimulatedCall) =>
  call.network === 'tiktok' && call.operation === operation

/**
 * The TikTok adapter against the simulator: what the creator info says is honoured before anything is
 * sent (a cap, a ban, a level not offered, a video too long), TikTok's refusals in Herald's words (an
 * unaudited app and a public account, an unverified domain, the per-minute budget), the chunk upload of
 * a file larger than one chunk and its resumption from what TikTok holds, int64 post ids kept exact, and
 * the lookups: by the saved publish id, and in the public video list (paged, cut short, several matches).
 */
describe('the TikTok adapter', () => {
  const rig = useFaultRig([{ network: 'tiktok', username: 'adapter.bakery' }])
  let big: TestServer
  const sim = () => rig.h.sandboxes!.tiktok
  const creator = () => sim().ensureUser('adapter.bakery')
  const jobs = () => sim().jobs.size
  const publish = (
    content: string,
    media: string[],
    tiktok: PublishRequest['tiktok'],
    extra: Partial<PublishRequest> = {},
  ) => rig.publish('tiktok', content, media, { tiktok, ...extra })
  const failed = (outcome: unknown) => outcome as Error & { kind?: string; options?: Record<string, any> }

  beforeAll(async () => {
    sim().processingPolls = 0
    const file = mp4File({ width: 1080, height: 1920, durationMs: 6000, mdatBytes: 11 * MB })
    big = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(file.length) })
      res.end(file)
    })
  })
  afterAll(() => big?.close())
  beforeEach(() => {
    sim().refillBudgets()
    Object.assign(creator(), {
      privateAccount: false,
      cannotPost: undefined,
      commentsOff: false,
      maxVideoSeconds: 600,
    })
    const app = sim().apps.get(SANDBOX_CLIENT_KEY)!
    app.audited = true
  })

  it.each([
    ['spam_risk_too_many_posts', 'rate_limited'],
    ['reached_active_user_cap', 'rate_limited'],
    ['spam_risk_user_banned_from_posting', 'invalid_content'],
  ] as const)('stops before any upload when the creator info says %s', async (code, kind) => {
    creator().cannotPost = code
    const before = jobs()
    const outcome = failed(await publish('Capped', [rig.media('clip.mp4')], { privacyLevel: 'SELF_ONLY' }))
    expect(outcome.kind).toBe(kind)
    if (kind === 'rate_limited') expect(outcome.options?.resetAt).toBeGreaterThan(Date.now())
    expect(jobs()).toBe(before)
  })

  it('refuses, before any upload, a level the creator is not offered and a video longer than they may post', async () => {
    const before = jobs()
    const level = failed(
      await publish('Followers only', [rig.media('clip.mp4')], { privacyLevel: 'FOLLOWER_OF_CREATOR' }),
    )
    expect(level.kind).toBe('invalid_content')
    expect(level.message).toMatch(
      /FOLLOWER_OF_CREATOR is not offered to this creator; @adapter\.bakery may choose PUBLIC_TO_EVERYONE/,
    )
    creator().maxVideoSeconds = 5
    const long = failed(await publish('Six seconds', [rig.media('clip.mp4')], { privacyLevel: 'SELF_ONLY' }))
    expect(long.kind).toBe('invalid_content')
    expect(long.message).toMatch(/the video is 6 s; @adapter\.bakery may post at most 5 s/)
    expect(jobs()).toBe(before)
  })

  it('keeps a switch the creator turned off off, whatever was asked', async () => {
    creator().commentsOff = true
    await publish('Comments asked for', [rig.media('clip.mp4')], {
      privacyLevel: 'SELF_ONLY',
      allowComments: true,
    })
    const post = [...sim().posts.values()].find((p) => p.title === 'Comments asked for')!
    expect(post.disableComment).toBe(true)
    expect([...sim().jobs.values()].find((j) => j.postId === post.id)?.postInfo.disable_comment).toBe(true)
  })

  it('says in Herald’s words that an unaudited app posts only to private accounts, and makes a private account’s post private', async () => {
    sim().apps.get(SANDBOX_CLIENT_KEY)!.audited = false
    const refused = failed(
      await publish('Unaudited', [rig.media('clip.mp4')], { privacyLevel: 'PUBLIC_TO_EVERYONE' }),
    )
    expect(refused.kind).toBe('invalid_content')
    expect(refused.message).toMatch(
      /not audited this Herald's app yet, so it may only post to private accounts/,
    )
    creator().privateAccount = true
    const posted = await publish('Unaudited, private account', [rig.media('clip.mp4')], {
      privacyLevel: 'MUTUAL_FOLLOW_FRIENDS',
    })
    const post = [...sim().posts.values()].find((p) => p.title === 'Unaudited, private account')!
    expect(post.privacyLevel).toBe('SELF_ONLY')
    // A private post never gets a public id: it is recorded by its publish id, its page the creator's.
    expect(posted).toMatchObject({
      remoteId: post.publishId,
      url: expect.stringMatching(/\/web\/@adapter\.bakery$/),
    })
  })

  it('says photos on an unverified domain are refused, with what to verify', async () => {
    const app = sim().apps.get(SANDBOX_CLIENT_KEY)!
    const verified = app.verified
    app.verified = ['cdn.elsewhere.example']
    try {
      const outcome = failed(await publish('Unverified', [rig.media('a.jpg')], { privacyLevel: 'SELF_ONLY' }))
      expect(outcome.kind).toBe('invalid_content')
      expect(outcome.message).toMatch(/must be verified for this app in TikTok's developer portal/)
    } finally {
      app.verified = verified
    }
  })

  it('waits out TikTok’s six inits a minute as a rate limit', async () => {
    sim().spend(`init:${rig.profile('tiktok').credentials.accessToken}`, 6)
    const outcome = failed(await publish('Seventh', [rig.media('clip.mp4')], { privacyLevel: 'SELF_ONLY' }))
    expect(outcome.kind).toBe('rate_limited')
    expect(outcome.options?.resetAt).toBeGreaterThan(Date.now() + 50_000)
  })

  it('stands in the creator’s last options for preflight while TikTok’s creator reads are spent, never for a post', async () => {
    const adapter = rig.h.app.adapters.tiktok!
    const who = rig.profile('tiktok')
    const read = () => adapter.creatorOptions!({ credentials: who.credentials, profile: who.profile })
    expect((await read()).privacyLevels).toContain('PUBLIC_TO_EVERYONE')
    sim().spend(`creator:${who.credentials.accessToken}`, 20)
    expect((await read()).username).toBe('adapter.bakery')
    const outcome = failed(
      await publish('Spent reads', [rig.media('clip.mp4')], { privacyLevel: 'SELF_ONLY' }),
    )
    expect(outcome.kind).toBe('rate_limited')
  })

  it('keeps a public post’s int64 id exact, beyond what a double holds', async () => {
    const posted = await publish('Exact id', [rig.media('clip.mp4')], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
    const post = [...sim().posts.values()].find((p) => p.title === 'Exact id')!
    expect(BigInt(post.id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true)
    expect(posted).toMatchObject({ remoteId: post.id })
  })

  describe('with 5 MB chunks', () => {
    const chunked = () =>
      createTikTokAdapter(
        { ...tiktokSettings(rig.h.app.config), chunkBytes: 5 * MB },
        {
          http: fetch,
          logger: rig.h.app.logger,
          now: () => Date.now(),
          sleep: async () => {},
          media: rig.h.app.media,
        },
      )
    const request = (content: string, saved: Record<string, string>): PublishRequest => ({
      targetId: `tgt_${content.length}`,
      profile: rig.profile('tiktok').profile,
      credentials: rig.profile('tiktok').credentials,
      content,
      mediaUrls: [`${big.url}/big.mp4`],
      tiktok: { privacyLevel: 'SELF_ONLY' },
      signal: AbortSignal.timeout(60_000),
      progress: saved,
      saveProgress: async (entries) => {
        Object.assign(saved, entries)
      },
    })

    it('uploads an 11 MB video in two chunks, the last taking the remainder', async () => {
      await chunked().publish(request('Two chunks', {}))
      const job = [...sim().jobs.values()].at(-1)!
      expect(job.upload).toMatchObject({ chunkSize: 5 * MB, totalChunkCount: 2, puts: 2 })
      expect(job.upload!.received).toBe(job.upload!.videoSize)
      expect(job.status).toBe('PUBLISH_COMPLETE')
    })

    it('carries an upload an earlier attempt left part way on from what TikTok holds, without a second init', async () => {
      const saved: Record<string, string> = {}
      const inits = jobs()
      // The last chunk is refused and TikTok cannot be asked how much it holds: the attempt stops.
      rig.script.on(on('upload'), { timing: 'before', answer: { kind: 'status', status: 503 } })
      rig.script.on(on('status/fetch'), { timing: 'before', answer: { kind: 'status', status: 503 } })
      const first = await chunked()
        .publish(request('Resumed', saved))
        .catch((error: Error) => error)
      expect(failed(first).kind).toBe('unknown_outcome')
      expect(saved.publishId).toBeDefined()
      const job = sim().jobs.get(saved.publishId!)!
      expect(job.upload!.received).toBe(5 * MB)
      const again = await chunked().publish(request('Resumed', saved))
      expect(jobs() - inits).toBe(1)
      expect(job.upload!.received).toBe(job.upload!.videoSize)
      expect(again.remoteId).toBe(job.publishId)
    })
  })

  describe('looking up an unanswered attempt', () => {
    const who = () => rig.profile('tiktok')
    const lookUp = (content: string, extra: Record<string, unknown> = {}) =>
      lookUpAs(rig.h, who(), {
        targetId: 'tgt_lookup',
        content,
        mediaUrls: [rig.media('a.jpg')],
        tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
        since: Date.now() - 2 * 3_600_000,
        ...extra,
      })

    it('answers by the saved publish id: found, or absent for a job that failed', async () => {
      await publish('By the job', [rig.media('clip.mp4')], { privacyLevel: 'SELF_ONLY' })
      const post = [...sim().posts.values()].find((p) => p.title === 'By the job')!
      const found = await lookUp('By the job', { progress: { publishId: post.publishId, kind: 'video' } })
      expect(found).toMatchObject({ kind: 'found', result: { remoteId: post.publishId } })
      const job = sim().jobs.get(post.publishId)!
      job.status = 'FAILED'
      job.failReason = 'internal'
      expect(await lookUp('By the job', { progress: { publishId: post.publishId, kind: 'video' } })).toEqual({
        kind: 'absent',
      })
    })

    it('finds a public photo post in the list through pages cut short, their cursor kept', async () => {
      await publish('Listed photos', [rig.media('a.jpg')], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
      for (let i = 0; i < 3; i++) {
        sim().refillBudgets()
        await publish(`Newer ${i}`, [rig.media(`n${i}.jpg`)], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
      }
      rig.script.shortPages(on('video/list'), 1, 3)
      const post = [...sim().posts.values()].find((p) => p.description === 'Listed photos')!
      expect(await lookUp('Listed photos')).toMatchObject({ kind: 'found', result: { remoteId: post.id } })
    })

    it('cannot tell when two public posts since the attempt carry the copy, or the post is private', async () => {
      await publish('Twice over', [rig.media('a.jpg')], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
      await publish('Twice over', [rig.media('b.jpg')], { privacyLevel: 'PUBLIC_TO_EVERYONE' })
      const twice = await lookUp('Twice over')
      expect(twice.kind).toBe('ambiguous')
      expect((twice as { reason: string }).reason).toMatch(/show 2 posts since the attempt that look like it/)
      const hidden = await lookUp('Twice over', { tiktok: { privacyLevel: 'SELF_ONLY' } })
      expect((hidden as { reason: string }).reason).toMatch(/TikTok lists public posts only/)
    })

    it('looks again rather than call a photo post absent within the hour TikTok may take to fetch it', async () => {
      const before = heldOn.tiktok(rig.h)
      await expect(lookUp('Never sent', { since: Date.now() - 60_000 })).rejects.toMatchObject({
        kind: 'transient',
      })
      expect(await lookUp('Never sent')).toEqual({ kind: 'absent' })
      expect(heldOn.tiktok(rig.h)).toBe(before)
    })

    it('calls a video without a saved job absent: its init makes nothing', async () => {
      expect(await lookUp('A video', { mediaUrls: [rig.media('clip.mp4')], since: Date.now() })).toEqual({
        kind: 'absent',
      })
    })
  })
})
