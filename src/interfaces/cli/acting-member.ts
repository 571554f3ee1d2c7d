import type { actAs } from './act-as.js'

/**
 * {@link actAs}, loaded when a command runs: it reads the store (and so loads Kysely), which a mistake on the
 * command line, answered before anything is opened, never needs.
 */
export const actingMember: typeof actAs = async (db, v) => (await import('./act-as.js')).actAs(db, v)
