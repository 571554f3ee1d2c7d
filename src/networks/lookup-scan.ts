import { type LookupAnswer, PublishFailure, type PublishResult } from './adapter.js'

/** How many pages of a profile's recent posts a lookup reads before it gives up being sure. */
export const LOOKUP_MAX_PAGES = 10

/** One page of a profile's posts, newest first, and the network's cursor for the page after it. */
export interface LookupPage<Row> {
  rows: Row[]
  /** Absent on the last page. */
  next?: string
}

/**
 * Pages back through a profile's posts (newest first) until the match, a post older than the attempt's
 * window, or the last page. Not found is only answered once every post since the attempt was read: when
 * the bound is hit first, the lookup throws an `unknown_outcome` failure, so the target is not sent again.
 */
export async function scanRecentPosts<Row>(input: {
  readPage(cursor: string | undefined): Promise<LookupPage<Row>>
  isMatch(row: Row): boolean
  /** True for a post created before the window (the attempt's start, less the clock margin). */
  isOlder(row: Row): boolean
  /** The network's name for the profile's posts, for the failure message. */
  network: string
  maxPages?: number
}): Promise<Row | null> {
  const maxPages = input.maxPages ?? LOOKUP_MAX_PAGES
  let cursor: string | undefined
  let read = 0
  for (let page = 0; page < maxPages; page++) {
    const { rows, next } = await input.readPage(cursor)
    read += rows.length
    for (const row of rows) {
      if (input.isMatch(row)) return row
      if (input.isOlder(row)) return null
    }
    if (!next || rows.length === 0) return null
    cursor = next
  }
  throw new PublishFailure(
    'unknown_outcome',
    `The ${input.network} profile had too many posts since the attempt to be sure whether it went out (read ${read} posts in ${maxPages} pages without reaching the attempt)`,
  )
}

/** A lookup's match (or null for a certain "not there") as a {@link LookupAnswer}. */
export const lookupAnswer = (match: PublishResult | null): LookupAnswer =>
  match ? { kind: 'found', result: match } : { kind: 'absent' }
