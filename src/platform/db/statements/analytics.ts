import { newId } from '../../ids.js'
import type { Db } from '../db.js'
import type { AnalyticsReadingsTable } from '../schema.js'

export type ReadingRow = AnalyticsReadingsTable

export interface NewReading {
  workspaceId: string
  kind: 'post' | 'profile'
  /** The target read (post readings); null for profile readings. */
  targetId: string | null
  connectionId: string
  fetchedAt: number
  summary: Record<string, number | null>
  metrics: Record<string, unknown>
  window: string | null
  source: string
  error: string
  unavailable: boolean
}

/** Appends a reading; readings are never updated, so the history of a target or profile is kept. */
export async function insertReading(db: Db, reading: NewReading): Promise<string> {
  const id = newId(reading.fetchedAt)
  await db
    .insertInto('analytics_readings')
    .values({
      id,
      workspace_id: reading.workspaceId,
      kind: reading.kind,
      target_id: reading.targetId,
      connection_id: reading.connectionId,
      fetched_at: reading.fetchedAt,
      summary: JSON.stringify(reading.summary),
      metrics: JSON.stringify(reading.metrics),
      window: reading.window,
      source: reading.source,
      error: reading.error,
      unavailable: reading.unavailable ? 1 : 0,
    })
    .execute()
  return id
}

/** The newest post reading of each target (by the `(target_id, fetched_at)` index). */
export async function latestPostReadings(db: Db, targetIds: string[]): Promise<Map<string, ReadingRow>> {
  const latest = new Map<string, ReadingRow>()
  if (targetIds.length === 0) return latest
  const rows = await db
    .selectFrom('analytics_readings')
    .selectAll()
    .where('kind', '=', 'post')
    .where('target_id', 'in', targetIds)
    .orderBy('fetched_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
  for (const row of rows) if (row.target_id && !latest.has(row.target_id)) latest.set(row.target_id, row)
  return latest
}

/** The newest profile reading of a connection (by the `(connection_id, kind, fetched_at)` index). */
export function latestProfileReading(db: Db, connectionId: string) {
  return db
    .selectFrom('analytics_readings')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('kind', '=', 'profile')
    .orderBy('fetched_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** A profile's readings over time, oldest first, for charts (figures only; failed reads left out). */
export async function profileReadingHistory(db: Db, workspaceId: string, connectionId: string, limit = 90) {
  const rows = await db
    .selectFrom('analytics_readings')
    .select(['fetched_at', 'summary'])
    .where('workspace_id', '=', workspaceId)
    .where('connection_id', '=', connectionId)
    .where('kind', '=', 'profile')
    .where('error', '=', '')
    .orderBy('fetched_at', 'desc')
    .limit(limit)
    .execute()
  return rows.reverse().map((r) => ({
    at: Number(r.fetched_at),
    summary: JSON.parse(r.summary) as Record<string, number | null>,
  }))
}
