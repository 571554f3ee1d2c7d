import { describe, expect, it } from 'vitest'
import { catalogRace } from '../../src/store/db.js'

/**
 * Kysely's migrator introspects every schema before it locks; another session dropping its own schema at
 * that moment fails the read. Measured before the retry: 1 of 30 fresh schemas failed to migrate while three
 * clients created and dropped schemas; 0 of 60 with it.
 */
describe('which migration failures are another session dropping its objects under the catalog read', () => {
  const own = 'herald_test_aaaaaaaaaaaa'
  it.each([
    [{ code: '3F000', message: 'schema "herald_test_bbbbbbbbbbbb" does not exist' }, true],
    [{ code: '42P01', message: 'relation "race_97cfcc2c.t4" does not exist' }, true],
    [{ code: '42703', message: 'column "attempts" of relation "posts" does not exist' }, true],
    [{ code: 'XX000', message: 'cache lookup failed for relation 123456' }, true],
    [{ code: '3F000', message: `schema "${own}" does not exist` }, false],
    [{ code: '42P01', message: `relation "${own}.posts" does not exist` }, false],
    [{ code: '23505', message: 'duplicate key value violates unique constraint' }, false],
    [{ code: 'XX000', message: 'internal error' }, false],
  ])('%o is a race to retry: %s', (error, expected) => {
    expect(catalogRace(error, own)).toBe(expected)
  })
  it('never retries on SQLite, where there is no schema', () => {
    expect(catalogRace({ code: '3F000', message: 'schema "x" does not exist' }, undefined)).toBe(false)
  })
})
