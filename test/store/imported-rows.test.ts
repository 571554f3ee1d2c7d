import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/platform/db/db.js'
import { importedRows, recordImportedRow } from '../../src/platform/db/statements/imports.js'
import { backends } from '../helpers/backends.js'

describe.each(backends)('remembered CSV rows on $name', (backend) => {
  let store: Store
  beforeAll(async () => {
    store = await backend.open()
  })
  afterAll(() => store.destroy())

  it('records a row once: a second import of it at the same moment is told the posts of the first', async () => {
    for (let round = 0; round < 10; round++) {
      const key = `row-${round}`
      const record = (postIds: string[], now: number) =>
        store.db
          .transaction()
          .execute((tx) => recordImportedRow(tx, { workspaceId: 'ws-1', key, postIds }, now))
      const [a, b] = await Promise.all([record(['p1'], 1), record(['p2'], 2)])
      // Exactly one of the two recorded the row; the other was answered with its posts.
      expect([a, b].filter((answer) => answer === undefined)).toHaveLength(1)
      const first = a === undefined ? ['p1'] : ['p2']
      expect(a ?? b).toEqual(first)
      expect((await importedRows(store.db, 'ws-1', [key])).get(key)).toEqual(first)
    }
  })
})
