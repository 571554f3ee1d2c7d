import { describe, expect, it } from 'vitest'
import { addDays, daysBetween, isCivilDate, weekdayIndex } from '../../src/core/civil-date.js'
import { freeSlotItems, itemsByDay, postItems } from '../../src/interfaces/dashboard/calendar/items.js'
import { periodOf } from '../../src/interfaces/dashboard/calendar/period.js'
import type { PostView } from '../../src/modules/publishing/schemas.js'

/** The calendar's pure parts: which days a view shows, and where each post and free slot lands on them. */

const post = (over: Partial<PostView>): PostView => ({
  id: 'p1',
  content: 'Hello',
  platforms: ['twitter'],
  targets: [{ platform: 'twitter', profileId: 'tw-1', username: '@acme', status: 'pending' }],
  status: 'scheduled',
  scheduleDate: '2026-03-29',
  scheduleTime: '00:30',
  timezone: 'Europe/Paris',
  dueAt: '2026-03-28T23:30:00.000Z',
  mediaUrls: [],
  createdAt: '2026-03-01T00:00:00.000Z',
  attempts: 0,
  lastError: '',
  ...over,
})

describe('the days a calendar view shows', () => {
  it.each([
    ['2026-02-10', '2026-01-26', '2026-03-01', 35, 'February 2026', '2026-01-01', '2026-03-01'],
    ['2026-03-31', '2026-02-23', '2026-04-05', 42, 'March 2026', '2026-02-01', '2026-04-01'],
    ['2026-06-01', '2026-06-01', '2026-07-05', 35, 'June 2026', '2026-05-01', '2026-07-01'],
  ])(
    'shows the whole month of %s, from the Monday before its 1st to the Sunday after its last day',
    (date, first, last, count, title, previous, next) => {
      const period = periodOf('month', date)
      expect(period).toMatchObject({ first, last, title, previous, next })
      expect(period.days).toHaveLength(count)
      expect(weekdayIndex(period.first)).toBe(0)
      expect(weekdayIndex(period.last)).toBe(6)
    },
  )

  it('shows a week from its Monday, and an agenda of four weeks from the day asked for', () => {
    expect(periodOf('week', '2026-12-31')).toMatchObject({
      first: '2026-12-28',
      last: '2027-01-03',
      previous: '2026-12-21',
      next: '2027-01-04',
      title: '28 December 2026 – 3 January 2027',
    })
    const agenda = periodOf('agenda', '2026-12-02')
    expect(agenda).toMatchObject({ first: '2026-12-02', last: '2026-12-29', next: '2026-12-30' })
    expect(agenda.title).toBe('2 – 29 December 2026')
  })

  it('counts civil dates without a zone, and refuses dates that do not exist', () => {
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30')
    expect(daysBetween('2026-12-31', '2027-01-02')).toBe(2)
    expect(isCivilDate('2026-02-29')).toBe(false)
    expect(isCivilDate('2028-02-29')).toBe(true)
    expect(isCivilDate('2026-2-1')).toBe(false)
  })
})

describe('where posts and free slots land', () => {
  it('puts a post on the day and time of the zone shown, keeping its own slot for a move', () => {
    const [utc] = postItems([post({})], 'UTC')
    expect(utc).toMatchObject({ day: '2026-03-28', time: '23:30', handle: 'acme', movable: true })
    const [paris] = postItems([post({})], 'Europe/Paris')
    expect(paris).toMatchObject({ day: '2026-03-29', time: '00:30' })
    expect(paris!.kind === 'post' && paris!.slot).toEqual({
      date: '2026-03-29',
      time: '00:30',
      timezone: 'Europe/Paris',
    })
  })

  it('makes one item per profile, marks one waiting for approval as movable, and places published ones when they went out', () => {
    const items = postItems(
      [
        post({
          status: 'draft',
          approval: { state: 'pending' },
          targets: [
            { platform: 'twitter', profileId: 'tw-1', username: 'acme', status: 'pending' },
            { platform: 'bluesky', profileId: 'bs-1', username: '@@acme.bsky.social', status: 'pending' },
          ],
        }),
        post({
          id: 'p2',
          status: 'published',
          publishedAt: '2026-03-30T08:01:00.000Z',
          targets: [
            {
              platform: 'linkedin',
              profileId: 'li-1',
              username: 'acme-li',
              status: 'published',
              publishedAt: '2026-03-30T08:02:00.000Z',
            },
          ],
        }),
        post({ id: 'p3', status: 'draft', dueAt: null }),
      ],
      'UTC',
    )
    expect(items.map((i) => [i.id, i.platform, i.handle, i.state, i.movable, i.day, i.time])).toEqual([
      ['p1', 'twitter', 'acme', 'pending approval', true, '2026-03-28', '23:30'],
      ['p1', 'bluesky', 'acme.bsky.social', 'pending approval', true, '2026-03-28', '23:30'],
      ['p2', 'linkedin', 'acme-li', 'published', false, '2026-03-30', '08:02'],
    ])
  })

  it('lists each day in time order, a post before a free slot at the same minute', () => {
    const free = freeSlotItems(
      [
        {
          date: '2026-03-28',
          time: '23:30',
          timezone: 'UTC',
          dueAt: Date.parse('2026-03-28T23:30:00Z'),
          platform: 'twitter',
          username: '@acme',
          profileId: 'tw-1',
        },
        {
          date: '2026-03-28',
          time: '09:00',
          timezone: 'UTC',
          dueAt: Date.parse('2026-03-28T09:00:00Z'),
          platform: 'twitter',
          username: '@acme',
          profileId: 'tw-1',
        },
      ],
      'UTC',
    )
    expect(free[0]!.compose).toBe('/compose?profile=twitter%3Atw-1&date=2026-03-28&time=23%3A30&timezone=UTC')
    const day = itemsByDay([...free, ...postItems([post({})], 'UTC')]).get('2026-03-28')!
    expect(day.map((i) => `${i.time} ${i.kind}`)).toEqual(['09:00 free', '23:30 post', '23:30 free'])
  })
})
