import { beforeAll, describe, expect, it } from 'vitest'
import { checkQueue, describeSlots, parseQueueSlots, queueOpenings } from '../../src/core/posting-queue.js'
import { centralEurope2030, expectIsoDatesInEnCa, expectTimeZoneRules } from '../helpers/time-zone-rules.js'

describe('posting times as people write them', () => {
  it.each([
    [['daily 09:00'], 7],
    [['weekdays 12:30'], 5],
    [['weekends 10:00'], 2],
    [['mon-fri 17:00', 'sat,sun 11:00'], 7],
    [['fri-mon 08:00'], 4],
    [['9:00'], 7],
    [['Monday 09:00', 'tuesday 9:00'], 2],
  ])('reads %j as %i weekly slots', (entries, count) => {
    const { slots, problems } = parseQueueSlots(entries)
    expect(problems).toEqual([])
    expect(slots).toHaveLength(count)
  })

  it.each([
    [['someday 09:00'], 'slots[0]', /"someday" is not a day/],
    [['mon 25:00'], 'slots[0]', /25:00 is not a time of day/],
    [['daily'], 'slots[0]', /not a posting time/],
    [['mon-funday 09:00'], 'slots[0]', /not a range of days/],
    [['daily 09:00', 'mon 09:00'], 'slots[1]', /overlaps "daily 09:00": both post on Mon at 09:00/],
    [['mon 9:00', 'mon 09:00'], 'slots[1]', /overlaps/],
  ])('refuses %j, naming the entry', (entries, path, message) => {
    const { problems } = parseQueueSlots(entries)
    expect(problems).toEqual([expect.objectContaining({ path, message: expect.stringMatching(message) })])
  })

  it('refuses an unknown zone, naming the field', () => {
    const { problems } = checkQueue({ timezone: 'Europe/Atlantis', slots: ['daily 09:00'] })
    expect(problems).toEqual([expect.objectContaining({ path: 'timezone' })])
  })

  it('refuses more posting times than a queue holds', () => {
    const times = Array.from(
      { length: 30 },
      (_, i) => `daily ${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
    )
    expect(parseQueueSlots(times).problems.at(-1)?.message).toMatch(/at most 200/)
  })

  it('writes the times back grouped by days', () => {
    const { slots } = parseQueueSlots(['daily 09:00', 'weekdays 17:00', 'sat 12:00', 'mon,wed 07:15'])
    expect(describeSlots(slots)).toEqual(['mon,wed 07:15', 'daily 09:00', 'sat 12:00', 'weekdays 17:00'])
  })
})

describe('queue openings', () => {
  // Openings are found through ICU's en-CA dates and follow the 2030 rules of this Node's time-zone data.
  beforeAll(() => {
    expectIsoDatesInEnCa()
    expectTimeZoneRules([
      ...centralEurope2030('Europe/Berlin'),
      ['Asia/Tokyo', '2030-01-06T22:00:00Z', '+09:00'],
    ])
  })
  const berlin = checkQueue({ timezone: 'Europe/Berlin', slots: ['daily 09:00', 'daily 17:00'] }).queue

  it('keeps the wall-clock time across the spring daylight-saving change', () => {
    // Europe/Berlin moves from +01:00 to +02:00 on Sunday 2030-03-31.
    const from = Date.UTC(2030, 2, 30, 12, 0)
    const openings = queueOpenings(berlin, from, from + 3 * 86_400_000)
    expect(openings.slice(0, 4).map((o) => [o.date, o.time, new Date(o.dueAt).toISOString()])).toEqual([
      ['2030-03-30', '17:00', '2030-03-30T16:00:00.000Z'],
      ['2030-03-31', '09:00', '2030-03-31T07:00:00.000Z'],
      ['2030-03-31', '17:00', '2030-03-31T15:00:00.000Z'],
      ['2030-04-01', '09:00', '2030-04-01T07:00:00.000Z'],
    ])
  })

  it('keeps the wall-clock time across the autumn change', () => {
    const from = Date.UTC(2030, 9, 26, 12, 0)
    const openings = queueOpenings(berlin, from, from + 2 * 86_400_000)
    expect(openings.map((o) => new Date(o.dueAt).toISOString())).toEqual([
      '2030-10-26T15:00:00.000Z',
      '2030-10-27T08:00:00.000Z',
      '2030-10-27T16:00:00.000Z',
      '2030-10-28T08:00:00.000Z',
    ])
  })

  it('moves a time that does not exist forward by the gap, once', () => {
    const gap = checkQueue({ timezone: 'Europe/Berlin', slots: ['sun 02:30', 'sun 03:30'] }).queue
    const from = Date.UTC(2030, 2, 30, 0, 0)
    const openings = queueOpenings(gap, from, from + 2 * 86_400_000)
    expect(openings.map((o) => [o.time, new Date(o.dueAt).toISOString()])).toEqual([
      ['02:30', '2030-03-31T01:30:00.000Z'],
    ])
  })

  it('takes the weekday in the queue zone, not in UTC', () => {
    const tokyo = checkQueue({ timezone: 'Asia/Tokyo', slots: ['mon 07:00'] }).queue
    // Sunday 2030-01-06 21:30 UTC is Monday 06:30 in Tokyo: that Monday's 07:00 is half an hour away.
    const [soon] = queueOpenings(tokyo, Date.UTC(2030, 0, 6, 21, 30), Date.UTC(2030, 0, 20))
    expect(soon).toMatchObject({ date: '2030-01-07', time: '07:00' })
    expect(new Date(soon!.dueAt).toISOString()).toBe('2030-01-06T22:00:00.000Z')
    // An hour later it has passed, and the next is a week on.
    const [later] = queueOpenings(tokyo, Date.UTC(2030, 0, 6, 23, 0), Date.UTC(2030, 0, 20))
    expect(later).toMatchObject({ date: '2030-01-14', time: '07:00' })
  })
})
