/**
 * Civil dates (YYYY-MM-DD, a day on a wall calendar with no zone), counted as UTC day numbers so the
 * answer is the same on every machine whatever its own zone. Shared by the calendar page and its script.
 */

const DAY = 86_400_000
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const toDay = (date: string) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return Date.UTC(y, m - 1, d)
}
const fromDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The date `n` days after `date` (before, when negative). */
export const addDays = (date: string, n: number) => fromDay(toDay(date) + n * DAY)

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string) => Math.round((toDay(to) - toDay(from)) / DAY)

/** A real calendar date written YYYY-MM-DD (not 2026-02-31), from 1970 on. */
export function isCivilDate(value: string): boolean {
  const match = DATE.exec(value)
  if (!match) return false
  return Number(match[1]) >= 1970 && fromDay(toDay(value)) === value
}

/** 0 for Monday … 6 for Sunday. */
export const weekdayIndex = (date: string) => (new Date(toDay(date)).getUTCDay() + 6) % 7

/** The date as a Date at its UTC midnight, for formatting it with `timeZone: 'UTC'`. */
export const utcMidnight = (date: string) => new Date(toDay(date))
