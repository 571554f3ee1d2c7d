import { emptyPostSummary as emptyReadingSummary, PublishFailure } from '../../adapters/adapter.js'
import type { ReadingRow } from '../../platform/db/statements/analytics.js'
import type { ConnectionRow } from '../../platform/db/statements/connections.js'
import type { PostReading, PostSummary, ProfileReading } from './schemas.js'

/** Converting stored readings to the spec's shapes, and the rules about who can report at all. */

export const emptyPostSummary = (): PostSummary => emptyReadingSummary()

export const emptyProfileSummary = (): ProfileReading['summary'] => ({
  followers: null,
  following: null,
  posts: null,
  views: null,
})

const iso = (ms: number) => new Date(Number(ms)).toISOString()

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function pickNumbers<T extends Record<string, number | null>>(empty: T, stored: Record<string, unknown>): T {
  const out = { ...empty }
  for (const key of Object.keys(empty) as (keyof T)[]) {
    const value = stored[key as string]
    out[key] = (typeof value === 'number' && Number.isFinite(value) ? value : null) as T[keyof T]
  }
  return out
}

export function postReadingOf(row: ReadingRow | undefined, unavailable = false): PostReading {
  if (!row)
    return { fetchedAt: null, summary: emptyPostSummary(), metrics: {}, source: '', error: '', unavailable }
  return {
    fetchedAt: iso(row.fetched_at),
    summary: pickNumbers(emptyPostSummary(), parseObject(row.summary)),
    metrics: parseObject(row.metrics),
    source: row.source,
    error: row.error,
    unavailable: row.unavailable === 1 || unavailable,
  }
}

export function profileReadingOf(row: ReadingRow | undefined, unavailable = false): ProfileReading {
  if (!row) {
    return {
      fetchedAt: null,
      summary: emptyProfileSummary(),
      metrics: {},
      window: '',
      source: '',
      error: '',
      unavailable,
    }
  }
  return {
    fetchedAt: iso(row.fetched_at),
    summary: pickNumbers(emptyProfileSummary(), parseObject(row.summary)),
    metrics: parseObject(row.metrics),
    window: row.window ?? '',
    source: row.source,
    error: row.error,
    unavailable: row.unavailable === 1 || unavailable,
  }
}

/** True when a reading carries at least one figure. */
export const hasNumbers = (summary: Record<string, number | null>) =>
  Object.values(summary).some((v) => v !== null)

/**
 * Why a profile will never report, or undefined. LinkedIn answers analytics only for organization
 * pages (spec §4), so a personal LinkedIn profile is unavailable whatever this build can read.
 */
export function neverReports(
  platform: string,
  connection: Pick<ConnectionRow, 'is_organization'> | undefined,
) {
  if (platform === 'linkedin' && connection?.is_organization !== 1)
    return 'LinkedIn reports analytics only for organization pages; this is a personal profile'
  return undefined
}

/** A failed read as the text stored in the reading's `error` (never a token: adapters scrub those). */
export function readError(error: unknown): string {
  if (error instanceof PublishFailure) {
    return error.kind === 'auth_expired' && !/reconnect/i.test(error.message)
      ? `${error.message}; reconnect the profile`
      : error.message
  }
  return 'Herald could not read this profile (unexpected error)'
}
