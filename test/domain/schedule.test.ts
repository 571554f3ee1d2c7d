import { beforeAll, describe, expect, it } from 'vitest'
import {
  checkSlot,
  instantToSlot,
  isPastSlot,
  isValidTimezone,
  slotToInstant,
} from '../../src/core/schedule.js'
import { centralEurope2030, expectTimeZoneRules, newYork2030 } from '../helpers/time-zone-rules.js'

const instant = (date: string, time: string, timezone: string) =>
  new Date(slotToInstant({ date, time, timezone })).toISOString()

describe('schedule to instant', () => {
  // The expected instants follow the 2030 rules of this Node's time-zone data (test/helpers/time-zone-rules.ts).
  beforeAll(() =>
    expectTimeZoneRules([
      ...newYork2030,
      ...centralEurope2030('Europe/Paris'),
      ['America/New_York', '2030-01-01T14:15:00Z', '-05:00'],
      ['America/New_York', '2030-07-01T13:15:00Z', '-04:00'],
      ['Asia/Kolkata', '2030-06-14T18:30:00Z', '+05:30'],
      ['Pacific/Kiritimati', '2030-01-01T09:59:00Z', '+14:00'],
      // Lord Howe keeps half-hour daylight saving until the first Sunday of April.
      ['Australia/Lord_Howe', '2030-03-31T01:00:00Z', '+11:00'],
      ['Australia/Lord_Howe', '2030-06-30T01:30:00Z', '+10:30'],
    ]),
  )

  it.each([
    ['2030-01-01', '10:00', 'UTC', '2030-01-01T10:00:00.000Z'],
    ['2030-01-01', '10:00', 'Asia/Kolkata', '2030-01-01T04:30:00.000Z'],
    ['2030-06-15', '00:00', 'Asia/Kolkata', '2030-06-14T18:30:00.000Z'],
    ['2030-07-01', '09:15', 'America/New_York', '2030-07-01T13:15:00.000Z'],
    ['2030-01-01', '09:15', 'America/New_York', '2030-01-01T14:15:00.000Z'],
    ['2030-01-01', '23:59', 'Pacific/Kiritimati', '2030-01-01T09:59:00.000Z'],
    ['2030-03-31', '12:00', 'Australia/Lord_Howe', '2030-03-31T01:00:00.000Z'],
    ['2030-06-30', '12:00', 'Australia/Lord_Howe', '2030-06-30T01:30:00.000Z'],
  ])('maps %s %s in %s to %s', (date, time, zone, expected) => {
    expect(instant(date, time, zone)).toBe(expected)
  })

  it('moves a time in the spring-forward gap forward by the gap (New York, 02:30 does not exist)', () => {
    expect(instant('2030-03-10', '02:30', 'America/New_York')).toBe('2030-03-10T07:30:00.000Z')
    expect(instant('2030-03-10', '02:00', 'America/New_York')).toBe('2030-03-10T07:00:00.000Z')
    expect(instant('2030-03-10', '03:00', 'America/New_York')).toBe('2030-03-10T07:00:00.000Z')
    expect(instant('2030-03-10', '01:59', 'America/New_York')).toBe('2030-03-10T06:59:00.000Z')
  })

  it('takes the earlier instant for a time in the fall-back overlap (New York, 01:30 happens twice)', () => {
    expect(instant('2030-11-03', '01:30', 'America/New_York')).toBe('2030-11-03T05:30:00.000Z')
    expect(instant('2030-11-03', '00:59', 'America/New_York')).toBe('2030-11-03T04:59:00.000Z')
    expect(instant('2030-11-03', '02:00', 'America/New_York')).toBe('2030-11-03T07:00:00.000Z')
  })

  it('handles a European gap and overlap too', () => {
    expect(instant('2030-03-31', '02:30', 'Europe/Paris')).toBe('2030-03-31T01:30:00.000Z')
    expect(instant('2030-10-27', '02:30', 'Europe/Paris')).toBe('2030-10-27T00:30:00.000Z')
  })

  it('refuses bad dates, times and zone names with the field named', () => {
    expect(checkSlot({ date: '2030-02-30', time: '10:00', timezone: 'UTC' })).toEqual([
      expect.objectContaining({ path: 'scheduleDate' }),
    ])
    expect(checkSlot({ date: '30-01-2030', time: '10:00', timezone: 'UTC' })[0]?.path).toBe('scheduleDate')
    expect(checkSlot({ date: '2030-01-01', time: '24:00', timezone: 'UTC' })[0]?.path).toBe('scheduleTime')
    expect(checkSlot({ date: '2030-01-01', time: '9:00', timezone: 'UTC' })[0]?.path).toBe('scheduleTime')
    expect(checkSlot({ date: '2030-01-01', time: '10:00', timezone: 'Mars/Olympus_Mons' })[0]?.path).toBe(
      'timezone',
    )
    expect(checkSlot({ date: '2030-01-01', time: '10:00', timezone: '+05:30' })[0]?.path).toBe('timezone')
    expect(checkSlot({ date: '2030-01-01', time: '10:00', timezone: 'Asia/Kolkata' })).toEqual([])
  })

  it('accepts IANA names only', () => {
    expect(isValidTimezone('Europe/London')).toBe(true)
    expect(isValidTimezone('America/Argentina/Buenos_Aires')).toBe(true)
    expect(isValidTimezone('UTC')).toBe(true)
    expect(isValidTimezone('EST5EDT ')).toBe(false)
    expect(isValidTimezone('')).toBe(false)
  })

  it('treats a slot more than 60 seconds ago as past', () => {
    const now = Date.UTC(2030, 0, 1, 12)
    expect(isPastSlot(now - 61_000, now)).toBe(true)
    expect(isPastSlot(now - 59_000, now)).toBe(false)
    expect(isPastSlot(now + 1, now)).toBe(false)
  })

  it('formats an instant back to the wall clock of a zone', () => {
    expect(instantToSlot(Date.UTC(2030, 0, 1, 4, 30), 'Asia/Kolkata')).toEqual({
      date: '2030-01-01',
      time: '10:00',
      timezone: 'Asia/Kolkata',
    })
  })
})
