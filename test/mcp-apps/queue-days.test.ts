import { describe, expect, it } from 'vitest'
import {
  byDay,
  byWeek,
  mondayOf,
  type QueuePost,
} from '../../src/interfaces/mcp-apps/client/parts/queue-days.js'

const post = (id: string, scheduleDate: string, scheduleTime: string): QueuePost => ({
  id,
  content: id,
  status: 'scheduled',
  targets: [],
  scheduleDate,
  scheduleTime,
  timezone: 'Europe/Paris',
})
const free = (scheduleDate: string, scheduleTime: string) => ({
  platform: 'twitter',
  username: 'acme',
  scheduleDate,
  scheduleTime,
  timezone: 'Europe/Paris',
})

describe('the queue by day and by week', () => {
  it('orders each day by time, a post before a free time at the same minute', () => {
    const days = byDay(
      [post('b', '2026-12-04', '09:00'), post('a', '2026-12-03', '18:00')],
      [free('2026-12-04', '09:00')],
    )
    expect(days.map((d) => [d.date, d.entries.map((e) => ('post' in e ? e.post.id : 'free'))])).toEqual([
      ['2026-12-03', ['a']],
      ['2026-12-04', ['b', 'free']],
    ])
  })

  it('finds the Monday of any day, Sunday included, across a month and a year', () => {
    expect(mondayOf('2026-12-03')).toBe('2026-11-30')
    expect(mondayOf('2026-12-06')).toBe('2026-11-30')
    expect(mondayOf('2026-12-07')).toBe('2026-12-07')
    expect(mondayOf('2027-01-01')).toBe('2026-12-28')
    expect(mondayOf('not a date')).toBe(undefined)
  })

  it('lays the days out as whole weeks, Monday to Sunday, empty days included', () => {
    const weeks = byWeek(byDay([post('a', '2026-12-03', '09:00'), post('b', '2026-12-08', '09:00')], []))
    expect(weeks.map((w) => w.monday)).toEqual(['2026-11-30', '2026-12-07'])
    expect(weeks[0]?.days.map((d) => d.date)).toEqual([
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
      '2026-12-04',
      '2026-12-05',
      '2026-12-06',
    ])
    expect(weeks[0]?.days.map((d) => d.entries.length)).toEqual([0, 0, 0, 1, 0, 0, 0])
  })
})
