import { PublishFailure } from '../adapter.js'
import { isMissingPermission } from './errors.js'

/** Helpers shared by the Facebook, Instagram and Threads readings of Meta's insights answers. */

type Row = Record<string, unknown>

/** A count, or null when the value is absent or not a number. */
export const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null

/** `{data: [{name, values: [{value}], total_value: {value}}]}` → name → value (objects summed when asked). */
export function insightValues(body: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const data = Array.isArray(body.data) ? (body.data as Row[]) : []
  for (const row of data) {
    if (typeof row.name !== 'string') continue
    const total = (row.total_value as { value?: unknown } | undefined)?.value
    const values = Array.isArray(row.values) ? (row.values as { value?: unknown }[]) : []
    out[row.name] = total !== undefined ? total : values.length > 0 ? values[values.length - 1]?.value : null
  }
  return out
}

/** A number from a value that may be a breakdown object (`page_media_view` by paid/organic, reactions by type). */
export function total(value: unknown): number | null {
  if (typeof value === 'number') return value
  if (typeof value === 'object' && value !== null) {
    const numbers = Object.values(value).filter((v): v is number => typeof v === 'number')
    return numbers.length > 0 ? numbers.reduce((a, b) => a + b, 0) : null
  }
  return null
}

export const sumOrNull = (...values: (number | null)[]): number | null =>
  values.every((v) => v === null) ? null : values.reduce<number>((a, b) => a + (b ?? 0), 0)

/** The reading's error when a missing permission stopped it (the spec's "reconnect" case); rethrows the rest. */
export function permissionProblem(error: unknown, label: string): string {
  if (error instanceof PublishFailure && isMissingPermission(error))
    return `${label} did not give Herald the insights permission for this profile: reconnect it and grant every permission asked for`
  throw error
}

/**
 * One insights call: its answer, or an empty answer with the reading's error when a missing permission
 * stopped it ({@link permissionProblem}); any other failure is thrown.
 */
export async function readInsights(
  label: string,
  read: () => Promise<Row>,
): Promise<{ body: Row; error?: string }> {
  try {
    return { body: await read() }
  } catch (failure) {
    return { body: {}, error: permissionProblem(failure, label) }
  }
}
