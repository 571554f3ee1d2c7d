import { describe, expect, it } from 'vitest'
import { approvalVersion } from '../../src/core/approval.js'

type Post = Parameters<typeof approvalVersion>[0]
type Target = Parameters<typeof approvalVersion>[1][number]

const item = (role: 'thread' | 'firstComment', content: string, mediaUrls: string[] = []) => ({
  role,
  content,
  mediaUrls,
  status: 'pending',
})

const post: Post = {
  content: 'Launch day',
  media_urls: '[]',
  youtube: null,
  variants: '{}',
  schedule_date: '2030-01-05',
  schedule_time: '10:00',
  timezone: 'UTC',
  publish_immediately: 0,
  items: JSON.stringify({ thread: [{ content: 'Part two' }], firstComment: 'Details inside' }),
}

const target: Target = {
  connection_id: 'conn-x',
  platform: 'twitter',
  content: 'Launch day',
  media_urls: '[]',
  youtube: null,
  items: JSON.stringify([item('thread', 'Part two'), item('firstComment', 'Details inside')]),
  status: 'pending',
  paid: 0,
  remote_id: null,
}

const youtubeTarget: Target = {
  ...target,
  connection_id: 'conn-yt',
  platform: 'youtube',
  media_urls: '["https://cdn.example.com/a.mp4"]',
  youtube: JSON.stringify({ title: 'Launch', privacyStatus: 'public' }),
  items: JSON.stringify([item('firstComment', 'Details inside')]),
}

const reviewed = approvalVersion(post, [target, youtubeTarget])

describe('the approval version', () => {
  it.each<[string, Partial<Post>, Partial<Target>, Partial<Target>]>([
    ["a target's copy", {}, { content: 'Launch day https://example.com' }, {}],
    ["a target's media", {}, { media_urls: '["https://cdn.example.com/b.png"]' }, {}],
    ['a thread item', {}, { items: JSON.stringify([item('thread', 'Buy https://example.com')]) }, {}],
    [
      "a thread item's media",
      {},
      {
        items: JSON.stringify([
          item('thread', 'Part two', ['https://cdn.example.com/c.png']),
          item('firstComment', 'Details inside'),
        ]),
      },
      {},
    ],
    [
      'the first comment',
      {},
      {},
      { items: JSON.stringify([item('firstComment', 'Other https://example.com')]) },
    ],
    [
      'an item already live (it is not charged again)',
      {},
      {
        items: JSON.stringify([
          { ...item('thread', 'Part two'), status: 'published' },
          item('firstComment', 'Details inside'),
        ]),
      },
      {},
    ],
    [
      'the YouTube details',
      {},
      {},
      { youtube: JSON.stringify({ title: 'Launch', privacyStatus: 'private' }) },
    ],
    ['a target failed before (it is charged as a re-send)', {}, { status: 'failed' }, {}],
    ['a target paid already', {}, { paid: 1 }, {}],
    ['a target live already', {}, { remote_id: '1700' }, {}],
    ["the post's thread and first comment as given", { items: null }, {}, {}],
    ['the variants', { variants: '{"twitter":"Other"}' }, {}, {}],
    ['the slot', { schedule_time: '11:00' }, {}, {}],
    ['asking to go out now', { publish_immediately: 1 }, {}, {}],
  ])('changes with %s', (_what, postChange, xChange, youtubeChange) => {
    expect(
      approvalVersion({ ...post, ...postChange }, [
        { ...target, ...xChange },
        { ...youtubeTarget, ...youtubeChange },
      ]),
    ).not.toBe(reviewed)
  })

  it('changes with the set of profiles, and not with the order they are listed in', () => {
    expect(approvalVersion(post, [target])).not.toBe(reviewed)
    expect(approvalVersion(post, [target, youtubeTarget, { ...target, connection_id: 'conn-x2' }])).not.toBe(
      reviewed,
    )
    expect(approvalVersion(post, [youtubeTarget, target])).toBe(reviewed)
  })

  it('keeps the version a post showed while nothing that goes out changed', () => {
    const reread = approvalVersion({ ...post }, [{ ...target }, { ...youtubeTarget }])
    expect(reread).toBe(reviewed)
    expect(reread).toMatch(/^[0-9a-f]{16}$/)
  })
})
