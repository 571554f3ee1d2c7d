import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextPacificMidnight, pacificDay } from '../../src/core/youtube-quota-day.js'
import type { Store } from '../../src/platform/db/db.js'
import { quotaUsed, releaseQuota, reserveQuota } from '../../src/platform/db/statements/quota.js'
import { backends } from '../helpers/backends.js'

describe.each(backends)('quota ledger on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  const slot = (day: string) => ({ key: 'youtube', day })

  it('reserves while units fit in the daily limit and refuses the one that would exceed it', async () => {
    const day = '2026-07-15'
    const results: boolean[] = []
    for (let i = 0; i < 7; i++)
      results.push(await reserveQuota(store.db, { ...slot(day), units: 1600, limit: 10_000 }))
    expect(results).toEqual([true, true, true, true, true, true, false])
    expect(await quotaUsed(store.db, slot(day))).toBe(9600)
    // What is left still fits smaller costs, up to the limit exactly.
    expect(await reserveQuota(store.db, { ...slot(day), units: 400, limit: 10_000 })).toBe(true)
    expect(await reserveQuota(store.db, { ...slot(day), units: 1, limit: 10_000 })).toBe(false)
    expect(await quotaUsed(store.db, slot(day))).toBe(10_000)
  })

  it('refuses a first reservation larger than the limit without writing a row', async () => {
    expect(await reserveQuota(store.db, { ...slot('2026-07-16'), units: 20_000, limit: 10_000 })).toBe(false)
    expect(await quotaUsed(store.db, slot('2026-07-16'))).toBe(0)
  })

  it('keeps keys and days apart', async () => {
    expect(await reserveQuota(store.db, { key: 'other', day: '2026-07-15', units: 5, limit: 10 })).toBe(true)
    expect(await quotaUsed(store.db, { key: 'other', day: '2026-07-15' })).toBe(5)
    expect(await quotaUsed(store.db, slot('2026-07-14'))).toBe(0)
  })

  it('releases units, never below zero', async () => {
    const day = '2026-07-20'
    await reserveQuota(store.db, { ...slot(day), units: 3200, limit: 10_000 })
    await releaseQuota(store.db, { ...slot(day), units: 1600 })
    expect(await quotaUsed(store.db, slot(day))).toBe(1600)
    await releaseQuota(store.db, { ...slot(day), units: 5000 })
    expect(await quotaUsed(store.db, slot(day))).toBe(0)
    await releaseQuota(store.db, { ...slot('2026-07-21'), units: 10 })
    expect(await quotaUsed(store.db, slot('2026-07-21'))).toBe(0)
  })

  it('never overshoots under concurrent reservations', async () => {
    const day = '2026-08-01'
    const results = await Promise.all(
      Array.from({ length: 24 }, () => reserveQuota(store.db, { ...slot(day), units: 1600, limit: 10_000 })),
    )
    expect(results.filter(Boolean)).toHaveLength(6)
    expect(await quotaUsed(store.db, slot(day))).toBe(9600)
  })

  it('starts a fresh Pacific day at midnight Pacific, across the DST change', async () => {
    // 1 November 2026 is 25 hours long in Pacific time.
    const lateOnFirst = Date.UTC(2026, 10, 2, 7, 59) // 23:59 PST on 1 November
    const day1 = pacificDay(lateOnFirst)
    const day2 = pacificDay(nextPacificMidnight(lateOnFirst))
    expect([day1, day2]).toEqual(['2026-11-01', '2026-11-02'])
    for (let i = 0; i < 6; i++) await reserveQuota(store.db, { ...slot(day1), units: 1600, limit: 10_000 })
    expect(await reserveQuota(store.db, { ...slot(day1), units: 1600, limit: 10_000 })).toBe(false)
    expect(await reserveQuota(store.db, { ...slot(day2), units: 1600, limit: 10_000 })).toBe(true)
  })
})
