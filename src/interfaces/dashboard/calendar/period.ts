import { addDays, utcMidnight, weekdayIndex } from '../../../core/civil-date.js'

/**
 * The stretch of days a calendar view shows, as plain civil dates (YYYY-MM-DD, no zone): a month grid from
 * the Monday on or before the 1st to the Sunday on or after the last day (so the last days are never cut
 * off), a week from Monday, or an agenda of four weeks from a day. Pure date arithmetic on UTC day numbers,
 * so it holds on every server whatever its own zone.
 */

export const CALENDAR_VIEWS = ['month', 'week', 'agenda'] as const
export type CalendarView = (typeof CALENDAR_VIEWS)[number]

export interface Period {
  view: CalendarView
  /** The day asked for (the anchor the navigation moves from). */
  date: string
  /** The first and last day shown, inclusive. */
  first: string
  last: string
  /** Every day shown, in order. */
  days: string[]
  /** The anchors of the periods before and after this one. */
  previous: string
  next: string
  /** The period in words: "December 2026", "7 – 13 December 2026". */
  title: string
}

/** How many days the agenda lists. */
export const AGENDA_DAYS = 28

const format = (date: string, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...options }).format(utcMidnight(date))

/** "Monday 7 December". */
export const longDay = (date: string) => format(date, { weekday: 'long', day: 'numeric', month: 'long' })
/** "Mon", "7", "Dec": the parts a day's heading shows. */
export const dayParts = (date: string) => ({
  weekday: format(date, { weekday: 'short' }),
  day: format(date, { day: 'numeric' }),
  month: format(date, { month: 'short' }),
})

function range(first: string, last: string): string[] {
  const days: string[] = []
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day)
  return days
}

function spanTitle(first: string, last: string): string {
  const sameYear = first.slice(0, 4) === last.slice(0, 4)
  const sameMonth = sameYear && first.slice(0, 7) === last.slice(0, 7)
  const start = format(first, sameMonth ? { day: 'numeric' } : { day: 'numeric', month: 'long' })
  const end = format(last, { day: 'numeric', month: 'long', year: 'numeric' })
  return `${start}${sameYear ? '' : ` ${first.slice(0, 4)}`} – ${end}`
}

/** The days a view shows around `date`, and where its previous and next links lead. */
export function periodOf(view: CalendarView, date: string): Period {
  if (view === 'month') {
    const start = `${date.slice(0, 7)}-01`
    const following = addDays(start, 32).slice(0, 7)
    const end = addDays(`${following}-01`, -1)
    const first = addDays(start, -weekdayIndex(start))
    const last = addDays(end, 6 - weekdayIndex(end))
    return {
      view,
      date,
      first,
      last,
      days: range(first, last),
      previous: `${addDays(start, -1).slice(0, 7)}-01`,
      next: `${following}-01`,
      title: format(start, { month: 'long', year: 'numeric' }),
    }
  }
  const length = view === 'week' ? 7 : AGENDA_DAYS
  const first = view === 'week' ? addDays(date, -weekdayIndex(date)) : date
  const last = addDays(first, length - 1)
  return {
    view,
    date,
    first,
    last,
    days: range(first, last),
    previous: addDays(first, -length),
    next: addDays(first, length),
    title: spanTitle(first, last),
  }
}
