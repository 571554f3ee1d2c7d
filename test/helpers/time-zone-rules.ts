import { expect } from 'vitest'

/**
 * What tests of wall-clock scheduling take from this Node's ICU, checked before they run (in a `beforeAll`),
 * so that a Node whose ICU data differs fails with the assumption named, not as a Herald bug.
 *
 * Time-zone rules: instants across a daylight-saving change in 2030 hold only while the time-zone data
 * that Node bundles keeps today's rules for that year. Written on tzdata 2026c (Node 24.21.0) and 2026e
 * (24.22.3 and 22.23.5), whose rules for these zones agree. A later tzdata that changes a zone's rules
 * (a country ending daylight saving) means moving the test's dates, not changing Herald.
 */

/** One fact of a zone's rules: its UTC offset (`+HH:MM`) at an instant. */
export type ZoneOffset = [zone: string, instant: string, offset: string]

/** The UTC offset this Node's time-zone data gives `zone` at `instant`, as `+HH:MM`. */
export function offsetAt(zone: string, instant: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant))
    .find((part) => part.type === 'timeZoneName')?.value
  return /^GMT([+-]\d{2}:\d{2})$/.exec(name ?? '')?.[1] ?? (name === 'GMT' ? '+00:00' : `unknown (${name})`)
}

export function expectTimeZoneRules(facts: ZoneOffset[]): void {
  expect(
    facts.map(([zone, instant]) => [zone, instant, offsetAt(zone, instant)]),
    `this Node's time-zone data (tzdata ${process.versions.tz}) keeps the rules these tests were written on (tzdata 2026c and 2026e)`,
  ).toEqual(facts)
}

/** New York's 2030 changes: 02:00 EST becomes 03:00 EDT on 10 March, 02:00 EDT becomes 01:00 EST on 3 November. */
export const newYork2030: ZoneOffset[] = [
  ['America/New_York', '2030-03-10T06:59:59Z', '-05:00'],
  ['America/New_York', '2030-03-10T07:00:00Z', '-04:00'],
  ['America/New_York', '2030-11-03T05:59:59Z', '-04:00'],
  ['America/New_York', '2030-11-03T06:00:00Z', '-05:00'],
]

/** Central Europe's 2030 changes, at 01:00 UTC on 31 March and 27 October. */
export const centralEurope2030 = (zone: 'Europe/Berlin' | 'Europe/Paris'): ZoneOffset[] => [
  [zone, '2030-03-31T00:59:59Z', '+01:00'],
  [zone, '2030-03-31T01:00:00Z', '+02:00'],
  [zone, '2030-10-27T00:59:59Z', '+02:00'],
  [zone, '2030-10-27T01:00:00Z', '+01:00'],
]

/**
 * `src/core/posting-queue.ts` reads a local calendar date from an `en-CA` date format, which ICU writes
 * as `YYYY-MM-DD` (ICU 78.3 with CLDR 48 on Node 22.23.5, 24.21.0 and 24.22.3); CLDR has changed en-CA's
 * numeric date pattern before, so the queue tests check it first.
 */
export function expectIsoDatesInEnCa(): void {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
  expect(
    format.format(new Date('2030-03-31T12:00:00Z')),
    `this Node's ICU ${process.versions.icu} (CLDR ${process.versions.cldr}) writes an en-CA numeric date as YYYY-MM-DD`,
  ).toBe('2030-03-31')
}
