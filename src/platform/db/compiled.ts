import type { Compilable, CompiledQuery, QueryResult } from 'kysely'
import type { Db } from './db.js'
import type { Database } from './schema.js'

const SENTINEL = '\u0000herald-arg-'

/**
 * A hot-path query whose SQL Kysely compiles once per database instead of on every call. `build` receives
 * stand-ins for its arguments and must produce the same SQL whatever the argument values are (no value
 * may change the query's shape: no IN lists of varying length, no optional clauses). Each call reuses the
 * compiled SQL and binds the real values in place of the stand-ins. Compiling a builder costs more than
 * running a short query in SQLite, which is why create_post and authentication use this.
 */
export function compiledOnce<Args extends unknown[], Row>(
  arity: Args['length'],
  build: (db: Db, ...args: Args) => Compilable<Row>,
) {
  const cache = new WeakMap<
    object,
    { compiled: CompiledQuery<Row>; slots: Array<{ arg: number } | { value: unknown }> }
  >()
  const compile = (db: Db) => {
    const stand = Array.from({ length: arity }, (_, i) => `${SENTINEL}${i}`) as unknown as Args
    const compiled = build(db, ...stand).compile()
    // Parameters that are not stand-ins are constants written into the builder; they are bound as they are.
    const slots = compiled.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(SENTINEL)
        ? { arg: Number(value.slice(SENTINEL.length)) }
        : { value },
    )
    return { compiled, slots }
  }
  return async (db: Db, ...args: Args): Promise<QueryResult<Row>> => {
    // A transaction shares the compiled SQL of its dialect; cache by the executor's dialect adapter object.
    const key = db.getExecutor().adapter
    let entry = cache.get(key)
    if (!entry) {
      entry = compile(db)
      cache.set(key, entry)
    }
    const { compiled, slots } = entry
    return db.executeQuery<Row>({
      ...compiled,
      parameters: slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value)),
    })
  }
}

/**
 * An INSERT of one row into `table` with exactly `columns`, compiled once (see {@link compiledOnce}).
 * Every column must be present on the row passed in.
 */
export function compiledInsert<T extends keyof Database & string>(
  table: T,
  columns: ReadonlyArray<keyof Database[T] & string>,
) {
  const insert = compiledOnce(columns.length, (db: Db, ...values: unknown[]) =>
    db.insertInto(table).values(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as never),
  )
  return (db: Db, row: Database[T]) => insert(db, ...columns.map((column) => row[column]))
}

/**
 * An INSERT of several rows into `table` in one statement (one round trip), compiled once per number of
 * rows (see {@link compiledOnce}). Every column must be present on each row passed in.
 */
export function compiledInsertRows<T extends keyof Database & string>(
  table: T,
  columns: ReadonlyArray<keyof Database[T] & string>,
) {
  const bySize = new Map<number, (db: Db, ...values: unknown[]) => Promise<QueryResult<unknown>>>()
  const forSize = (size: number) => {
    let insert = bySize.get(size)
    if (!insert) {
      insert = compiledOnce(size * columns.length, (db: Db, ...values: unknown[]) =>
        db
          .insertInto(table)
          .values(
            Array.from({ length: size }, (_, row) =>
              Object.fromEntries(columns.map((column, i) => [column, values[row * columns.length + i]])),
            ) as never,
          ),
      )
      bySize.set(size, insert)
    }
    return insert
  }
  return async (db: Db, rows: ReadonlyArray<Database[T]>) => {
    if (rows.length === 0) return
    await forSize(rows.length)(db, ...rows.flatMap((row) => columns.map((column) => row[column])))
  }
}
