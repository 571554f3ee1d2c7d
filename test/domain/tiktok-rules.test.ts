import { describe, expect, it } from 'vitest'
import { type ConnectionInfo, planPost } from '../../src/core/post-plan.js'
import {
  chunkPlan,
  chunkProblem,
  type TikTokCreator,
  tiktokConsentSentence,
  tiktokFindings,
  tiktokPhotoTitle,
  tiktokPostInfo,
} from '../../src/core/tiktok-rules.js'

const MB = 1024 * 1024

const creator: TikTokCreator = {
  nickname: 'Pier Bakery',
  username: 'pierbakery',
  privacyLevels: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
  commentsOff: true,
  duetOff: false,
  stitchOff: true,
  maxVideoSeconds: 180,
}

const tiktok: ConnectionInfo = {
  id: 'c1',
  platform: 'tiktok',
  profileId: 'open1',
  username: 'pierbakery',
  status: 'active',
}

describe('TikTok’s chunk rules', () => {
  it('cuts TikTok’s own worked example: 50,000,123 bytes in 10,000,000-byte chunks is five, the last 10,000,123', () => {
    const plan = chunkPlan(50_000_123, 10_000_000)
    expect(plan.totalChunkCount).toBe(5)
    expect(plan.ranges.at(-1)).toEqual([40_000_000, 50_000_122])
    expect(chunkProblem(plan)).toBeUndefined()
  })

  it('sends a file up to the chunk size whole, and a larger one in chunks whose remainder joins the last', () => {
    expect(chunkPlan(3 * MB)).toMatchObject({
      chunkSize: 3 * MB,
      totalChunkCount: 1,
      ranges: [[0, 3 * MB - 1]],
    })
    expect(chunkPlan(64 * MB)).toMatchObject({ totalChunkCount: 1 })
    const big = chunkPlan(200 * MB)
    expect(big).toMatchObject({ chunkSize: 64 * MB, totalChunkCount: 3 })
    expect(big.ranges.at(-1)).toEqual([128 * MB, 200 * MB - 1])
    expect(chunkProblem(big)).toBeUndefined()
    const small = chunkPlan(12 * MB, 5 * MB)
    expect(small.ranges).toEqual([
      [0, 5 * MB - 1],
      [5 * MB, 12 * MB - 1],
    ])
  })

  it.each([
    [{ videoSize: 12 * MB, chunkSize: 4 * MB, totalChunkCount: 3 }, 'chunk_size is under 5 MB'],
    [{ videoSize: 100 * MB, chunkSize: 100 * MB, totalChunkCount: 1 }, 'chunk_size is over 64 MB'],
    [
      { videoSize: 50 * MB, chunkSize: 10 * MB, totalChunkCount: 4 },
      'total_chunk_count must be floor(video_size / chunk_size)',
    ],
    [
      { videoSize: 200 * MB, chunkSize: 64 * MB, totalChunkCount: 2 },
      'total_chunk_count must be floor(video_size / chunk_size)',
    ],
    [{ videoSize: 191 * MB, chunkSize: 64 * MB, totalChunkCount: 2 }, undefined],
    [
      { videoSize: 0, chunkSize: 0, totalChunkCount: 0 },
      'video_size, chunk_size and total_chunk_count must be positive integers',
    ],
  ])('judges %o: %s', (cut, problem) => {
    expect(chunkProblem(cut)).toBe(problem)
  })
})

describe('what TikTok asks the poster to choose', () => {
  it('blocks a post without a privacy level, naming the levels the creator may choose, or TikTok’s four when unknown', () => {
    expect(tiktokFindings('tiktok @pierbakery', {}, creator, { photos: 0 }).blockers).toEqual([
      'tiktok @pierbakery: choose who can watch the post in tiktok.privacyLevel (TikTok allows no default): @pierbakery may choose PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS or SELF_ONLY',
    ])
    expect(tiktokFindings('tiktok @x', undefined, undefined, { photos: 0 }).blockers[0]).toMatch(
      /TikTok offers PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR or SELF_ONLY; Herald could not read which/,
    )
  })

  it('blocks a level the creator is not offered, branded content only the creator would see, and a video too long for them', () => {
    const { blockers } = tiktokFindings(
      'tiktok @pierbakery',
      { privacyLevel: 'FOLLOWER_OF_CREATOR', brandedContent: true },
      creator,
      { photos: 0, videoSeconds: 200 },
    )
    expect(blockers).toEqual([
      'tiktok @pierbakery: tiktok.privacyLevel FOLLOWER_OF_CREATOR is not offered to this creator; @pierbakery may choose PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS or SELF_ONLY',
      'tiktok @pierbakery: the video is 200 s; @pierbakery may post at most 180 s',
    ])
    expect(
      tiktokFindings('t', { privacyLevel: 'SELF_ONLY', brandedContent: true }, creator, { photos: 0 })
        .blockers,
    ).toEqual(['t: branded content cannot be private (SELF_ONLY); choose who else can watch it'])
  })

  it('warns that switches the creator turned off stay off, and sends them off', () => {
    const details = {
      privacyLevel: 'SELF_ONLY' as const,
      allowComments: true,
      allowDuet: true,
      allowStitch: true,
    }
    expect(tiktokFindings('t', details, creator, { photos: 0 }).warnings).toEqual([
      't: @pierbakery has comments and stitches turned off in the TikTok app, so the post goes out without them',
    ])
    // Photo posts have no duets or stitches.
    expect(tiktokFindings('t', details, creator, { photos: 2 }).warnings[0]).toMatch(
      /has comments turned off/,
    )
    expect(tiktokPostInfo(details, creator)).toEqual({
      disable_comment: true,
      disable_duet: false,
      disable_stitch: true,
      brand_content_toggle: false,
      brand_organic_toggle: false,
    })
    expect(tiktokPostInfo({ privacyLevel: 'SELF_ONLY' }, undefined)).toMatchObject({
      disable_comment: true,
      disable_duet: true,
      disable_stitch: true,
    })
  })

  it('asks nothing of a draft: the creator finishes it in the app', () => {
    expect(tiktokFindings('t', { sendAsDraft: true }, creator, { photos: 0, videoSeconds: 999 })).toEqual({
      blockers: [],
      warnings: [],
    })
  })

  it('words the consent sentence for branded content', () => {
    expect(tiktokConsentSentence({})).toBe("By posting, you agree to TikTok's Music Usage Confirmation.")
    expect(tiktokConsentSentence({ brandedContent: true })).toMatch(/Branded Content Policy and Music Usage/)
  })

  it('titles a photo post with the copy’s first line, cut to 90 UTF-16 units on a whole character', () => {
    expect(tiktokPhotoTitle('\n  Rye day  \nmore')).toBe('Rye day')
    const title = tiktokPhotoTitle(`${'a'.repeat(89)}😀 and more`)
    expect(title).toBe('a'.repeat(89))
    expect(tiktokPhotoTitle('b'.repeat(100)).length).toBe(90)
  })
})

describe('a TikTok post’s plan', () => {
  it('holds a video’s caption to 2,200 UTF-16 units and a photo post’s description to 4,000', () => {
    const long = 'x'.repeat(3000)
    const video = planPost(
      {
        content: long,
        platforms: ['tiktok'],
        mediaUrl: 'https://cdn.example/v.mp4',
        tiktok: { privacyLevel: 'SELF_ONLY' },
      },
      [tiktok],
    )
    expect(video.blockers).toEqual([
      'tiktok @pierbakery: the copy is 3000 characters; tiktok allows 2200 for a video',
    ])
    const photos = planPost(
      {
        content: long,
        platforms: ['tiktok'],
        mediaUrl: 'https://cdn.example/a.jpg',
        tiktok: { privacyLevel: 'SELF_ONLY' },
      },
      [tiktok],
    )
    expect(photos.blockers).toEqual([])
    expect(video.limits.tiktok).toBe(2200)
  })

  it('needs media, takes one video or photos only, and names the creator’s levels when given them', () => {
    const creators = new Map([['c1', creator]])
    expect(
      planPost({ content: 'Hi', platforms: ['tiktok'], tiktok: { privacyLevel: 'SELF_ONLY' } }, [tiktok])
        .blockers,
    ).toEqual(['tiktok @pierbakery: tiktok requires media'])
    const mixed = planPost(
      {
        content: 'Hi',
        platforms: ['tiktok'],
        mediaUrls: ['https://cdn.example/a.jpg', 'https://cdn.example/v.mp4'],
        tiktokCreators: creators,
      },
      [tiktok],
    )
    expect(mixed.blockers).toEqual([
      'tiktok @pierbakery: tiktok does not mix video into a set of several',
      'tiktok @pierbakery: choose who can watch the post in tiktok.privacyLevel (TikTok allows no default): @pierbakery may choose PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS or SELF_ONLY',
    ])
  })

  it('leaves a shared first comment out with a warning, and refuses one named for TikTok', () => {
    const shared = planPost(
      {
        content: 'Hi',
        platforms: ['tiktok'],
        mediaUrl: 'https://cdn.example/a.jpg',
        firstComment: 'More soon',
        tiktok: { privacyLevel: 'SELF_ONLY' },
      },
      [tiktok],
    )
    expect(shared.blockers).toEqual([])
    expect(shared.warnings).toEqual([
      'tiktok @pierbakery: tiktok takes no first comments; the first comment is left out there',
    ])
    expect(shared.targets[0]?.items).toEqual([])
    expect(shared.cost).toBe(1)
    const own = planPost(
      {
        content: 'Hi',
        platforms: ['tiktok'],
        mediaUrl: 'https://cdn.example/a.jpg',
        firstCommentVariants: { tiktok: 'More' },
        tiktok: { privacyLevel: 'SELF_ONLY' },
      },
      [tiktok],
    )
    expect(own.blockers).toEqual(['firstCommentVariants: tiktok @pierbakery: tiktok takes no first comments'])
  })

  it('merges a profile’s own TikTok settings over the shared ones, and gives other networks none', () => {
    const plan = planPost(
      {
        content: 'Hi',
        targetAccounts: [
          { platform: 'tiktok', profileId: 'open1', tiktok: { allowComments: true } },
          { platform: 'bluesky' },
        ],
        mediaUrl: 'https://cdn.example/a.jpg',
        tiktok: { privacyLevel: 'SELF_ONLY' },
      },
      [tiktok, { id: 'b1', platform: 'bluesky', profileId: 'did:b', username: 'b', status: 'active' }],
    )
    expect(plan.targets.map((t) => t.tiktok)).toEqual([
      { privacyLevel: 'SELF_ONLY', allowComments: true },
      null,
    ])
  })
})
