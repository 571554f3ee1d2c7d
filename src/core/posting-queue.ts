import { isValidTimezone, slotToInstant } from './schedule.js'

/**
 * A profile's posting queue: a weekly list of posting times in one time zone. `queue: true` on create_post
 * takes the next time that profile has free. Times are wall-clock times in the queue's zone, so a slot at
 * 09:00 stays at 09:00 across a daylight-saving change (its UTC instant moves); a time that does not exist
 * on a spring-forward day moves forward by the gap, as every slot does (see schedule.ts).
 */

export const weekdayNames = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
const longNames = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
const shownNames = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

/** One weekly posting time: ISO weekday (1 Monday … 7 Sunday) and `HH:MM`. */
export interface QueueSlot {
  day: number
  time: string
}

export interface PostingQueue {
  timezone: string
  slots: QueueSlot[]
}

export interface QueueProblem {
  /** The field or entry the message is about: `timezone`, or `slots[2]`. */
  path: string
  message: string
}

/** At most this many posting times a week (two an hour, every hour of every day, is already 336). */
export const MAX_QUEUE_SLOTS = 200

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/

function dayIndex(name: string): number | undefined {
  const lower = name.toLowerCase()
  const short = weekdayNames.indexOf(lower as (typeof weekdayNames)[number])
  if (short >= 0) return short + 1
  const long = longNames.indexOf(lower)
  return long >= 0 ? long + 1 : undefined
}

/** The days a day expression names: `daily`, `weekdays`, `weekends`, `mon`, `mon-fri`, `mon,wed,fri`. */
function parseDays(text: string): number[] | string {
  const lower = text.toLowerCase()
  if (lower === '' || lower === 'daily' || lower === 'everyday' || lower === 'every day')
    return [1, 2, 3, 4, 5, 6, 7]
  if (lower === 'weekdays') return [1, 2, 3, 4, 5]
  if (lower === 'weekends') return [6, 7]
  const days: number[] = []
  for (const part of lower.split(',').map((p) => p.trim())) {
    const range = part.split('-').map((p) => p.trim())
    if (range.length === 1) {
      const day = dayIndex(range[0] as string)
      if (!day) return `"${part}" is not a day (mon … sun, daily, weekdays, weekends)`
      days.push(day)
    } else if (range.length === 2) {
      const from = dayIndex(range[0] as string)
      const to = dayIndex(range[1] as string)
      if (!from || !to) return `"${part}" is not a range of days such as mon-fri`
      for (let d = from; ; d = (d % 7) + 1) {
        days.push(d)
        if (d === to) break
      }
    } else return `"${part}" is not a day or a range of days`
  }
  return days
}

/**
 * Parses posting times written as `<days> <HH:MM>` (`daily 09:00`, `weekdays 12:30`, `mon-fri 17:00`,
 * `sat,sun 10:00`, or a bare `09:00` for every day). Every problem names the entry it is about; a time
 * given twice for the same day ("overlapping": `daily 09:00` and `mon 09:00`) is a problem too.
 */
export function parseQueueSlots(entries: readonly string[]): {
  slots: QueueSlot[]
  problems: QueueProblem[]
} {
  const problems: QueueProblem[] = []
  const seen = new Map<string, number>()
  for (const [index, raw] of entries.entries()) {
    const path = `slots[${index}]`
    const entry = raw.trim().replace(/\s+/g, ' ')
    const match = /^(?:(.+?)\s+)?(\d{1,2}:\d{2})$/.exec(entry)
    if (!match) {
      problems.push({
        path,
        message: `"${raw}" is not a posting time; write it as <days> <HH:MM>, e.g. "daily 09:00" or "mon-fri 17:30"`,
      })
      continue
    }
    const time = TIME.exec(match[2] as string)
    if (!time) {
      problems.push({ path, message: `"${raw}": ${match[2]} is not a time of day (HH:MM, 24-hour)` })
      continue
    }
    const hhmm = `${(time[1] as string).padStart(2, '0')}:${time[2]}`
    const days = parseDays(match[1] ?? '')
    if (typeof days === 'string') {
      problems.push({ path, message: `"${raw}": ${days}` })
      continue
    }
    for (const day of days) {
      const key = `${day} ${hhmm}`
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        problems.push({
          path,
          message: `"${raw}" overlaps "${entries[earlier]}": both post on ${shownNames[day - 1]} at ${hhmm}`,
        })
        break
      }
      seen.set(key, index)
    }
  }
  const slots = [...seen.keys()]
    .map((key) => {
      const [day, time] = key.split(' ') as [string, string]
      return { day: Number(day), time }
    })
    .sort((a, b) => a.day - b.day || a.time.localeCompare(b.time))
  if (slots.length > MAX_QUEUE_SLOTS)
    problems.push({
      path: 'slots',
      message: `${slots.length} posting times a week; a queue holds at most ${MAX_QUEUE_SLOTS}`,
    })
  return { slots, problems }
}

/** Checks a whole queue: its zone and its posting times. */
export function checkQueue(input: { timezone: string; slots: readonly string[] }): {
  queue: PostingQueue
  problems: QueueProblem[]
} {
  const { slots, problems } = parseQueueSlots(input.slots)
  if (!isValidTimezone(input.timezone))
    problems.unshift({
      path: 'timezone',
      message: `timezone must be an IANA zone name such as Europe/Berlin, got "${input.timezone}"`,
    })
  return { queue: { timezone: input.timezone, slots }, problems }
}

/** The posting times as people write them, one line each, days with the same time grouped. */
export function describeSlots(slots: readonly QueueSlot[]): string[] {
  const byTime = new Map<string, number[]>()
  for (const slot of slots) byTime.set(slot.time, [...(byTime.get(slot.time) ?? []), slot.day])
  return [...byTime.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([time, days]) => {
      const set = [...new Set(days)].sort((a, b) => a - b).join(',')
      const name =
        set === '1,2,3,4,5,6,7'
          ? 'daily'
          : set === '1,2,3,4,5'
            ? 'weekdays'
            : set === '6,7'
              ? 'weekends'
              : days
                  .sort((a, b) => a - b)
                  .map((d) => weekdayNames[d - 1])
                  .join(',')
      return `${name} ${time}`
    })
}

export interface QueueOpening {
  date: string
  time: string
  timezone: string
  /** The UTC instant the wall-clock slot falls on. */
  dueAt: number
}

const DAY_MS = 86_400_000
const pad = (n: number) => String(n).padStart(2, '0')

const dateFormatters = new Map<string, Intl.DateTimeFormat>()

/** The local calendar date of an instant in a zone, as a UTC midnight (for day arithmetic). */
function localMidnight(instant: number, timezone: string): number {
  let format = dateFormatters.get(timezone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
    dateFormatters.set(timezone, format)
  }
  return Date.parse(`${format.format(new Date(instant))}T00:00:00Z`)
}

/**
 * Every posting time of the queue whose instant lies in [from, to), in order. Two wall-clock times that a
 * spring-forward gap maps onto the same instant are one opening (the earlier time keeps it).
 */
export function queueOpenings(queue: PostingQueue, from: number, to: number): QueueOpening[] {
  if (queue.slots.length === 0 || to <= from) return []
  const openings: QueueOpening[] = []
  const seen = new Set<number>()
  // One day either side: a local day starts up to 14 hours away from UTC midnight.
  for (let day = localMidnight(from, queue.timezone) - DAY_MS; day <= to + DAY_MS; day += DAY_MS) {
    const d = new Date(day)
    const weekday = ((d.getUTCDay() + 6) % 7) + 1
    const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
    for (const slot of queue.slots) {
      if (slot.day !== weekday) continue
      const dueAt = slotToInstant({ date, time: slot.time, timezone: queue.timezone })
      if (dueAt < from || dueAt >= to || seen.has(dueAt)) continue
      seen.add(dueAt)
      openings.push({ date, time: slot.time, timezone: queue.timezone, dueAt })
    }
  }
  return openings.sort((a, b) => a.dueAt - b.dueAt)
}

export const describeOpening = (o: Pick<QueueOpening, 'date' | 'time' | 'timezone'>) =>
  `${o.date} ${o.time} ${o.timezone}`
