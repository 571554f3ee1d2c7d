import { describe, expect, it } from 'vitest'
import {
  type Checked,
  fieldNotes,
  fieldOf,
  networkOf,
  tabStates,
} from '../../src/interfaces/dashboard/compose-findings.js'

describe('where Compose shows what the check found', () => {
  it.each([
    ['linkedin @acme-li: the copy is 3001 characters; linkedin allows 3000', 'copy:linkedin'],
    [
      'twitter @acme: the same copy is scheduled for 2031-06-01 10:00 UTC (post 1); X refuses a repeated post within 24 hours, so change the copy or the day',
      'copy:twitter',
    ],
    ['instagram @acme: Instagram needs an image or a video', 'media'],
    [
      'thread: none of the profiles takes a thread (linkedin @a); threads go to twitter, bluesky, threads',
      'thread',
    ],
    ['linkedin @acme-li: the first comment is 1300 characters; linkedin allows 1250', 'comment'],
    ['youtube @acme-yt: the video needs a title (give youtube.title or a first line of copy)', 'youtube'],
    ['Unknown time zone Mars/Olympus', 'when'],
    ['linkedin @acme-li needs to be reconnected before it can publish', 'profiles'],
    ['The workspace has 2 credits; this post costs 6', 'general'],
  ])('places “%s” by %s', (finding, field) => {
    expect(fieldOf(finding)).toBe(field)
  })

  it('reads the network a finding names, or none', () => {
    expect(networkOf('bluesky @a.bsky.social: too long')).toBe('bluesky')
    expect(networkOf('targetAccounts[].thread: twitter @acme: no')).toBe('twitter')
    expect(networkOf('Unknown time zone Mars/Olympus')).toBeUndefined()
  })

  const checked: Checked = {
    ok: false,
    counts: [
      { platform: 'twitter', profileId: 'a', username: 'acme', count: 281, limit: 280 },
      { platform: 'linkedin', profileId: 'b', username: 'acme-li', count: 3001, limit: 3000 },
      {
        platform: 'twitter',
        profileId: 'a',
        username: 'acme',
        count: 10,
        limit: 280,
        what: 'thread post 2 of 2',
      },
    ],
    blockers: ['linkedin @acme-li: the copy is 3001 characters; linkedin allows 3000'],
    warnings: [],
    credits: { cost: 6, balance: 10, remainingAfter: 4 },
  }

  it('puts each count under the copy of all and of its network, and thread counts under the thread', () => {
    const notes = fieldNotes(checked)
    expect(notes['copy:all']).toContain('X @acme: <strong>281</strong> / 280 characters (over)')
    expect(notes['copy:linkedin']).toContain('LinkedIn allows 3000')
    expect(notes['copy:twitter']).not.toContain('LinkedIn allows 3000')
    expect(notes.thread).toContain('X @acme, thread post 2 of 2: <strong>10</strong> / 280')
    expect(notes.media).toBeUndefined()
  })

  it('marks a network’s tab with its longest copy and whether its copy is blocked', () => {
    expect(tabStates(checked)).toEqual({
      twitter: { count: 281, limit: 280, blocked: false },
      linkedin: { count: 3001, limit: 3000, blocked: true },
    })
  })
})
