/**
 * YouTube's quota day. The Data API quota (spec §7 quotaExceeded, §8) and, as Herald models it, a channel's
 * own upload ceiling reset at midnight Pacific time, so a quota day is a calendar date in
 * America/Los_Angeles: 24 hours long except on DST change days (23 h in March, 25 h in November).
 */

const PACIFIC = 'America/Los_Angeles'

const pacificFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: PACIFIC,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
})

interface WallClock {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

function pacificWallClock(ms: number): WallClock {
  const parts: Record<string, number> = {}
  for (const part of pacificFormat.formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** The Pacific calendar date (`YYYY-MM-DD`) of an instant: the `quota_usage.day` of YouTube's quota. */
export function pacificDay(ms: number): string {
  const { year, month, day } = pacificWallClock(ms)
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`
}

/**
 * The instant (epoch ms) of the first Pacific midnight after `ms`: when a quota refusal made at `ms`
 * lifts. Pacific midnight is 07:00 UTC in daylight time and 08:00 UTC in standard time; DST changes happen
 * at 02:00 local, so midnight itself always exists and is never ambiguous.
 */
export function nextPacificMidnight(ms: number): number {
  const { year, month, day } = pacificWallClock(ms)
  for (const offsetHours of [7, 8]) {
    // Date.UTC normalises day overflow (31 + 1 rolls the month and year).
    const candidate = Date.UTC(year, month - 1, day + 1, offsetHours)
    const wall = pacificWallClock(candidate)
    if (wall.hour === 0 && wall.minute === 0 && wall.second === 0) return candidate
  }
  // Unreachable while Pacific time is UTC-7 or UTC-8; fall back to a plain day rather than throw.
  return ms + 24 * 60 * 60 * 1000
}
