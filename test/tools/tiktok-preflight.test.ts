import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { usePreflightRig } from '../helpers/preflight-rig.js'

/**
 * Preflight, create_post and update_post for TikTok: the privacy level with no default (blocked, naming
 * the creator's levels), what the creator info allows (levels, longest video), one video or photos only,
 * the tiktok object kept on the post and merged by update_post, and the unaudited app's warning that
 * blocks nothing.
 */
describe('preflight for TikTok', () => {
  const rig = usePreflightRig(
    async (h) =>
      (
        await sandboxConnect(h.app, {
          workspaceId: h.workspaceId,
          network: 'tiktok',
          username: 'rules.bakery',
        })
      ).profileId,
    { platforms: ['tiktok'] },
  )
  const { url, preflight } = rig
  let h: Harness
  beforeAll(() => {
    h = rig.h
  })
  const user = () => h.sandboxes!.tiktok.ensureUser('rules.bakery')

  it('passes a video with a privacy level the creator may choose, and warns of nothing for an audited app', async () => {
    const answer = await preflight({
      content: 'Dawn',
      mediaUrl: url('clip.mp4'),
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(answer.blockers).toEqual([])
    expect(answer.warnings).toEqual([])
    expect(answer.ok).toBe(true)
  })

  it('names a private account’s levels, and blocks one it is not offered', async () => {
    user().privateAccount = true
    try {
      const none = await preflight({ content: 'Dawn', mediaUrl: url('clip.mp4') })
      expect(none.blockers).toEqual([
        'tiktok @rules.bakery: choose who can watch the post in tiktok.privacyLevel (TikTok allows no default): @rules.bakery may choose FOLLOWER_OF_CREATOR, MUTUAL_FOLLOW_FRIENDS or SELF_ONLY',
      ])
      const wrong = await preflight({
        content: 'Dawn',
        mediaUrl: url('clip.mp4'),
        tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      })
      expect(wrong.blockers[0]).toMatch(/PUBLIC_TO_EVERYONE is not offered to this creator/)
    } finally {
      user().privateAccount = false
    }
  })

  it('blocks a video longer than the creator may post, in preflight and in create_post', async () => {
    user().maxVideoSeconds = 5
    try {
      const input = {
        content: 'Nine seconds',
        mediaUrl: url('clip.mp4'),
        tiktok: { privacyLevel: 'SELF_ONLY' },
      }
      expect((await preflight(input)).blockers).toEqual([
        'tiktok @rules.bakery: the video is 9 s; @rules.bakery may post at most 5 s',
      ])
      const refused = await h.call('create_post', {
        ...input,
        platforms: ['tiktok'],
        publishImmediately: true,
      })
      expect(refused.status).toBe(400)
      expect(refused.body.error.details.blockers).toEqual([
        'tiktok @rules.bakery: the video is 9 s; @rules.bakery may post at most 5 s',
      ])
    } finally {
      user().maxVideoSeconds = 600
    }
  })

  it('warns that switches the creator turned off stay off', async () => {
    user().duetOff = true
    try {
      const answer = await preflight({
        content: 'Duet me',
        mediaUrl: url('clip.mp4'),
        tiktok: { privacyLevel: 'SELF_ONLY', allowDuet: true },
      })
      expect(answer.ok).toBe(true)
      expect(answer.warnings).toEqual([
        'tiktok @rules.bakery: @rules.bakery has duets turned off in the TikTok app, so the post goes out without them',
      ])
    } finally {
      user().duetOff = false
    }
  })

  it('names every level TikTok has when the creator info cannot be read now, and blocks copy alone', async () => {
    user().cannotPost = 'spam_risk_too_many_posts'
    try {
      const answer = await preflight({ content: 'Dawn', mediaUrl: url('clip.mp4') })
      expect(answer.blockers[0]).toMatch(
        /TikTok offers PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR or SELF_ONLY/,
      )
    } finally {
      delete user().cannotPost
    }
    expect(
      (await preflight({ content: 'Words only', tiktok: { privacyLevel: 'SELF_ONLY' } })).blockers,
    ).toEqual(['tiktok @rules.bakery: tiktok requires media'])
  })

  it('keeps the tiktok object on the post; update_post merges it and refuses to add a TikTok profile without a level', async () => {
    const created = await h.call('create_post', {
      content: 'Kept',
      platforms: ['tiktok'],
      mediaUrl: url('clip.mp4'),
      tiktok: { privacyLevel: 'SELF_ONLY', yourBrand: true },
      scheduleDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '09:00',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.posts[0].id
    expect(created.body.posts[0].tiktok).toEqual({ privacyLevel: 'SELF_ONLY', yourBrand: true })
    const updated = await h.call('update_post', { id, tiktok: { allowComments: true } })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.post.tiktok).toEqual({
      privacyLevel: 'SELF_ONLY',
      yourBrand: true,
      allowComments: true,
    })
    const target = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow()
    expect(JSON.parse(target.tiktok!)).toEqual({
      privacyLevel: 'SELF_ONLY',
      yourBrand: true,
      allowComments: true,
    })

    const other = await h.call('create_post', {
      content: 'No TikTok yet',
      platforms: ['tiktok'],
      mediaUrl: url('a.jpg'),
      tiktok: { sendAsDraft: true },
      scheduleDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '09:00',
    })
    const unlevelled = await h.call('update_post', {
      id: other.body.posts[0].id,
      tiktok: { sendAsDraft: false },
    })
    expect(unlevelled.status).toBe(400)
    expect(unlevelled.body.error.message).toMatch(/choose who can watch the post in tiktok\.privacyLevel/)
  })

  it('takes TikTok among the variants’ keys and every network in platforms', async () => {
    const answer = await preflight({
      content: 'Shared',
      variants: { tiktok: 'TikTok copy' },
      platforms: ['linkedin', 'twitter', 'facebook', 'instagram', 'threads', 'bluesky', 'youtube', 'tiktok'],
      mediaUrl: url('clip.mp4'),
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(answer.blockers.some((b) => b.startsWith('tiktok'))).toBe(false)
  })
})

describe('preflight for TikTok while TikTok has not audited the app', () => {
  let h: Harness
  beforeAll(async () => {
    // The simulator's own app, set in the environment without the audit flag.
    h = await startHarness({
      sandbox: true,
      credits: 100,
      env: {
        HERALD_TIKTOK_CLIENT_KEY: 'herald-sandbox',
        HERALD_TIKTOK_CLIENT_SECRET: 'herald-sandbox-secret',
        HERALD_ALLOW_PRIVATE_MEDIA: '1',
      },
    })
    await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'tiktok',
      username: 'unaudited.bakery',
    })
  }, 60_000)
  afterAll(() => h?.close())

  it('warns that every post is private to the creator, and blocks nothing for it', async () => {
    const { body } = await h.call('preflight_post', {
      content: 'Words',
      platforms: ['tiktok'],
      mediaUrl: 'https://cdn.example.com/v.mp4',
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(body.warnings).toContainEqual(
      "tiktok @unaudited.bakery: TikTok has not audited this Herald's app yet: every post it makes is visible only to the creator (private), and only creators with a private account can post. It goes out all the same; once TikTok audits the app, mark it audited on the network apps page",
    )
    expect(body.blockers.filter((b: string) => /audit/.test(b))).toEqual([])
  })
})
