import type { FreeSlot } from '../../views.js'
import type { PostView } from './words.js'

/**
 * The queue's entries (the listed posts and the free posting times) by day and by week, as the agenda and
 * the week calendar show them. Dates are civil dates (`YYYY-MM-DD`, each post's own zone), counted in UTC so
 * no zone of the browser's moves a day.
 */

export type QueuePost = PostView & { dueAt?: string }

export type Entry = { post: QueuePost } | { free: FreeSlot }

export interface Day {
  date: string
  entries: Entry[]
}

export interface Week {
  /** The week's Monday. */
  monday: string
  /** Monday to Sunday, each with its entries (none on a day without any). */
  days: Day[]
}

const whenOf = (entry: Entry) => ('post' in entry ? entry.post : entry.free)

/** The posts and the free posting times by day, each day's in time order (a post before a free time at the same minute). */
export function byDay(posts: readonly QueuePost[], free: readonly FreeSlot[]): Day[] {
  const entries: Entry[] = [...posts.map((post) => ({ post })), ...free.map((slot) => ({ free: slot }))]
  const at = (e: Entry) => `${whenOf(e).scheduleDate} ${whenOf(e).scheduleTime} ${'post' in e ? 0 : 1}`
  entries.sort((a, b) => at(a).localeCompare(at(b)))
  const days = new Map<string, Entry[]>()
  for (const entry of entries) {
    const day = whenOf(entry).scheduleDate
    days.set(day, [...(days.get(day) ?? []), entry])
  }
  return [...days.entries()].map(([date, dayEntries]) => ({ date, entries: dayEntries }))
}

const DAY_MS = 86_400_000

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The Monday of a civil date's week, or undefined for a date that is not one. */
export function mondayOf(date: string): string | undefined {
  const ms = Date.parse(`${date}T00:00:00Z`)
  if (Number.isNaN(ms)) return undefined
  const weekday = (new Date(ms).getUTCDay() + 6) % 7
  return dateOf(ms - weekday * DAY_MS)
}

/** The weeks the days fall in, in order, each with all seven of its days. */
export function byWeek(days: readonly Day[]): Week[] {
  const weeks = new Map<string, Map<string, Entry[]>>()
  for (const day of days) {
    const monday = mondayOf(day.date)
    if (!monday) continue
    const week = weeks.get(monday) ?? new Map<string, Entry[]>()
    week.set(day.date, day.entries)
    weeks.set(monday, week)
  }
  return [...weeks.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([monday, found]) => {
      const start = Date.parse(`${monday}T00:00:00Z`)
      const all = Array.from({ length: 7 }, (_, i) => dateOf(start + i * DAY_MS))
      return { monday, days: all.map((date) => ({ date, entries: found.get(date) ?? [] })) }
    })
}
