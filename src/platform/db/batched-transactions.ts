import type { Db } from './db.js'
import type { Dialect } from './dialect.js'

/**
 * A short write transaction. It may run twice (see {@link createBatchedTransactions}), so it must have no
 * effect outside the database and must decide everything from what it reads inside the transaction.
 */
export type TransactionUnit<T> = (tx: Db) => Promise<T>

export type RunBatched = <T>(unit: TransactionUnit<T>) => Promise<T>

const MAX_UNITS_PER_COMMIT = 64

interface Queued {
  unit: TransactionUnit<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

/**
 * Runs short write transactions, committing those that arrive together on SQLite as one transaction.
 *
 * SQLite has one writer, and a commit writes every page the transaction touched to the WAL: for a new post
 * that is about ten pages, most of them the same rightmost leaves the next post touches again. Units queued
 * while a commit is running (or in the same turn of the event loop) run back to back in one transaction and
 * share its commit, each answered only once that commit is done. When a unit throws, the whole batch rolls
 * back and each unit runs again in a transaction of its own, so one unit's failure never undoes or changes
 * another's outcome: the result is the same as running them one after the other.
 *
 * Postgres has many connections and no single writer; there each unit is its own transaction.
 */
export function createBatchedTransactions(db: Db, dialect: Dialect): RunBatched {
  if (dialect === 'postgres') return (unit) => db.transaction().execute(unit)

  let queue: Queued[] = []
  let flushing = false

  const runAlone = async (queued: Queued) => {
    try {
      queued.resolve(await db.transaction().execute(queued.unit))
    } catch (error) {
      queued.reject(error)
    }
  }

  const flush = async () => {
    const batch = queue.slice(0, MAX_UNITS_PER_COMMIT)
    queue = queue.slice(batch.length)
    try {
      if (batch.length === 1) {
        await runAlone(batch[0] as Queued)
        return
      }
      let results: unknown[] | undefined
      try {
        results = await db.transaction().execute(async (tx) => {
          const out: unknown[] = []
          for (const queued of batch) out.push(await queued.unit(tx))
          return out
        })
      } catch {
        for (const queued of batch) await runAlone(queued)
      }
      if (results) for (const [i, queued] of batch.entries()) queued.resolve(results[i])
    } finally {
      // Yield to I/O before the next batch so requests that arrived meanwhile can join it.
      if (queue.length > 0) setImmediate(flush)
      else flushing = false
    }
  }

  return <T>(unit: TransactionUnit<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ unit, resolve: resolve as (value: unknown) => void, reject })
      if (!flushing) {
        flushing = true
        setImmediate(flush)
      }
    })
}
