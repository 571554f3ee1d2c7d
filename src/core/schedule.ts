/**
 * Wall-clock slots to UTC instants through IANA time zones. A time that does not exist (spring-forward
 * gap) moves forward by the gap; an ambiguous one (fall-back overlap) takes the earlier instant, as
 * Temporal's `compatible` disambiguation does.
 */

export interface Slot {
  /** YYYY-MM-DD */
  date: string
  /** HH:MM, 24-hour */
  time: string
  /** IANA zone name */
  timezone: string
}

export type SlotProblem = { path: 'scheduleDate' | 'scheduleTime' | 'timezone'; message: string }

/** How far in the past a slot may be and still be accepted (clock skew, slow clients). */
export const PAST_SLOT_TOLERANCE_MS = 60_000

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/
const ZONE = /^(UTC|[A-Za-z][A-Za-z_+-]*(\/[A-Za-z0-9][A-Za-z0-9_+-]*)+|Etc\/[A-Za-z0-9+-]+)$/

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timezone, formatter)
  }
  return formatter
}

/** True for a zone name the runtime's time-zone database knows (IANA names only, not offsets). */
export function isValidTimezone(timezone: string): boolean {
  if (!ZONE.test(timezone)) return false
  try {
    formatterFor(timezone)
    return true
  } catch {
    return false
  }
}

/** The wall-clock fields of an instant in a zone. */
export function wallClock(instant: number, timezone: string) {
  const parts = Object.fromEntries(
    formatterFor(timezone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  )
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  }
}

/** The zone's offset from UTC at an instant, in ms (east positive), straight from Intl. */
function offsetFromIntl(instant: number, timezone: string): number {
  const w = wallClock(instant, timezone)
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  return asUtc - (instant - (((instant % 1000) + 1000) % 1000))
}

const HOUR = 3_600_000
const offsetCache = new Map<string, number>()

/**
 * The zone's offset at an instant. Intl is slow, so offsets are cached per UTC hour, but only for hours
 * whose first and last millisecond agree (no transition inside), which keeps the cache exact.
 */
function offsetAt(instant: number, timezone: string): number {
  const hour = Math.floor(instant / HOUR)
  const key = `${timezone}|${hour}`
  const cached = offsetCache.get(key)
  if (cached !== undefined) return cached
  const start = offsetFromIntl(hour * HOUR, timezone)
  if (start !== offsetFromIntl(hour * HOUR + HOUR - 1, timezone)) return offsetFromIntl(instant, timezone)
  if (offsetCache.size > 50_000) offsetCache.clear()
  offsetCache.set(key, start)
  return start
}

export function checkSlot(slot: Slot): SlotProblem[] {
  const problems: SlotProblem[] = []
  const date = DATE.exec(slot.date)
  if (!date) {
    problems.push({ path: 'scheduleDate', message: `scheduleDate must be YYYY-MM-DD, got "${slot.date}"` })
  } else {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])]
    const probe = new Date(Date.UTC(y, m - 1, d))
    if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) {
      problems.push({ path: 'scheduleDate', message: `scheduleDate ${slot.date} is not a calendar date` })
    }
  }
  if (!TIME.test(slot.time))
    problems.push({
      path: 'scheduleTime',
      message: `scheduleTime must be HH:MM (24-hour), got "${slot.time}"`,
    })
  if (!isValidTimezone(slot.timezone)) {
    problems.push({
      path: 'timezone',
      message: `timezone must be an IANA zone name such as Europe/Paris, got "${slot.timezone}"`,
    })
  }
  return problems
}

const instantCache = new Map<string, number>()

/** The UTC instant (epoch ms) of a valid slot. Call {@link checkSlot} first. */
export function slotToInstant(slot: Slot): number {
  // Many posts share a slot (the top of an hour, a campaign's time); the answer never changes in a process.
  const key = `${slot.timezone}|${slot.date}|${slot.time}`
  let instant = instantCache.get(key)
  if (instant === undefined) {
    instant = computeInstant(slot)
    if (instantCache.size > 50_000) instantCache.clear()
    instantCache.set(key, instant)
  }
  return instant
}

function computeInstant(slot: Slot): number {
  const [y, m, d] = slot.date.split('-').map(Number) as [number, number, number]
  const [hh, mm] = slot.time.split(':').map(Number) as [number, number]
  const local = Date.UTC(y, m - 1, d, hh, mm)
  const day = 86_400_000
  const before = offsetAt(local - day, slot.timezone)
  const after = offsetAt(local + day, slot.timezone)
  const candidates = [...new Set([local - before, local - after])].sort((a, b) => a - b)
  const valid = candidates.filter((instant) => instant + offsetAt(instant, slot.timezone) === local)
  // Overlap: two valid instants, take the earlier. Gap: none valid; the pre-transition offset moves the
  // wall-clock time forward by the gap's length.
  return valid[0] ?? local - before
}

/** The slot an instant falls on in a zone (used to show immediate posts' send time). */
export function instantToSlot(instant: number, timezone: string): Slot {
  const w = wallClock(instant, timezone)
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return {
    date: `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`,
    time: `${pad(w.hour)}:${pad(w.minute)}`,
    timezone,
  }
}

export const isPastSlot = (instant: number, now: number) => instant < now - PAST_SLOT_TOLERANCE_MS
