import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/db.js'
import { importedRows, recordImportedRows } from '../../src/store/imports.js'
import { backends } from '../helpers/backends.js'

describe.each(backends)('remembered CSV rows on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('remembers the same rows from two imports at once, whatever order each finished its rows in', async () => {
    // Two imports of one file create their rows in parallel, so each remembers them in its own order.
    // Inserted as they came, the two statements took the same keys in opposite orders and Postgres
    // answered one with a deadlock (a 500 to the person importing).
    for (let round = 0; round < 20; round++) {
      const rows = Array.from({ length: 60 }, (_, i) => ({ key: `r${round}-${i}`, postIds: [`p${i}`] }))
      const shuffled = [...rows].reverse()
      await Promise.all([
        recordImportedRows(store.db, 'ws-1', rows, 1),
        recordImportedRows(store.db, 'ws-1', shuffled, 2),
        recordImportedRows(store.db, 'ws-1', [...rows.slice(30), ...rows.slice(0, 30)], 3),
      ])
      const found = await importedRows(
        store.db,
        'ws-1',
        rows.map((r) => r.key),
      )
      expect(found.size).toBe(60)
    }
  })
})
