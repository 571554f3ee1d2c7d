import { describe, expect, it } from 'vitest'
import { settleHistory } from '../../src/core/target-history.js'
import type { Outcome } from '../../src/core/target-lifecycle.js'

/** What one settled attempt writes to its profile's history, from its outcome and what the send saw. */
describe('the history entries of a settled attempt', () => {
  const published: Outcome = { kind: 'published', remoteId: '1', url: 'https://x.example/1' }
  const check: Outcome = { kind: 'check', error: 'no answer', runAt: 2, unknownSince: 1 }

  it('writes the attempt alone when the send did not look first', () => {
    expect(settleHistory(published, { sent: true })).toEqual([
      { kind: 'attempt', result: 'published', sent: true },
    ])
    expect(settleHistory({ kind: 'failed', error: 'refused' }, { sent: true })).toEqual([
      { kind: 'attempt', result: 'failed', sent: true, detail: 'refused' },
    ])
  })

  it('writes the lookup before the attempt, and a found post as published without a send', () => {
    expect(settleHistory(published, { sent: false, lookup: { result: 'found' } })).toEqual([
      { kind: 'lookup', result: 'found' },
      { kind: 'attempt', result: 'published', sent: false },
    ])
  })

  it('writes a lookup that could not ask once, without the wait that follows it', () => {
    expect(
      settleHistory(check, { sent: false, lookup: { result: 'unreachable', detail: 'timeout' } }),
    ).toEqual([{ kind: 'lookup', result: 'unreachable', detail: 'timeout' }])
  })

  it('keeps the stuck end of lookups that could not ask for a day', () => {
    const stuck: Outcome = { kind: 'unknown', error: 'a day of failed lookups', reason: 'lookups_exhausted' }
    expect(settleHistory(stuck, { sent: false, lookup: { result: 'unreachable' } })).toEqual([
      { kind: 'lookup', result: 'unreachable' },
      { kind: 'attempt', result: 'stuck', sent: false, detail: 'a day of failed lookups' },
    ])
  })

  it('writes an attempt that did not reach the network as not sent when the settle has no trail', () => {
    expect(settleHistory(check, undefined)).toEqual([
      { kind: 'attempt', result: 'check', sent: false, detail: 'no answer' },
    ])
  })
})
