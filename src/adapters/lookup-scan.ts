import type { LookupAnswer, PublishResult } from './adapter.js'

/** How many pages of a profile's recent posts a lookup reads before it gives up being sure. */
export const LOOKUP_MAX_PAGES = 10

/** One page of a profile's posts, newest first, and the network's cursor for the page after it. */
export interface LookupPage<Row> {
  /** May be fewer than asked for, or none, on any page: networks filter a page after reading it. */
  rows: Row[]
  /** The network's cursor to the rest; absent only on the last page, the one thing that ends a scan. */
  next?: string
}

/** What a scan of the profile's recent posts concluded: the one post that is the attempt's, or none. */
export type RecentAnswer<Row> = { kind: 'found'; row: Row } | Exclude<LookupAnswer, { kind: 'found' }>

export interface RecentLookup<Row> {
  readPage(cursor: string | undefined): Promise<LookupPage<Row>>
  /** True for a post created before the window (the attempt's start, less the clock margin). */
  isOlder(row: Row): boolean
  /** The network's id of a post: ids in `exclude` are never the attempt's post. */
  idOf(row: Row): string | undefined
  /** Where a person reads the post, named in an ambiguous answer. */
  urlOf(row: Row): string
  /** The same post as the attempt's, by a key Herald recorded or by its copy. */
  isMatch(row: Row): boolean
  /**
   * False when a match says nothing: copy that is empty or only links could be anyone's post, so a post
   * that looks the same is not proof that the attempt went out.
   */
  distinctive: boolean
  /** Remote ids other targets of the connection hold. */
  exclude?: readonly string[] | undefined
  /** The profile's posts, in words, for a person: `@carol's posts on X`. */
  where: string
  maxPages?: number
  /**
   * Why the scan stopped short, for a person (the resolution is added after it); by default the profile
   * has more posts since the attempt than Herald reads back.
   */
  unread?(read: number, maxPages: number): string
}

const RESOLVE =
  'If one of them is this post, it went out; otherwise reset the post (reset_stuck_post) and publish it again.'

/**
 * Reads every post of the profile since the attempt (pages newest first, until a post older than the
 * window or the last page) and decides only on unambiguous evidence: no match is `absent`, one match of
 * distinctive copy (or a recorded key) is `found`; a match of copy that says nothing (empty, links only),
 * several matches, or a profile too busy to read back to the attempt (with no match read) is `ambiguous`,
 * with the posts a person should check. Posts other targets hold never match.
 *
 * Only a page without a cursor is the last: X and Graph may answer a page shorter than asked, even empty,
 * with a cursor to more (they filter a page after reading it), so a short or empty page is read past. A
 * post read twice (pages that overlap) counts once. Pages past the budget (`maxPages`) are never read:
 * a scan that ran out of them has not seen everything, and answers `ambiguous`, never `absent`.
 */
export async function lookUpRecent<Row>(input: RecentLookup<Row>): Promise<RecentAnswer<Row>> {
  const maxPages = input.maxPages ?? LOOKUP_MAX_PAGES
  const excluded = new Set(input.exclude ?? [])
  const matches = new Map<string, Row>()
  let cursor: string | undefined
  let read = 0
  let complete = false
  for (let page = 0; page < maxPages && !complete; page++) {
    const { rows, next } = await input.readPage(cursor)
    read += rows.length
    for (const row of rows) {
      if (input.isOlder(row)) {
        complete = true
        break
      }
      const id = input.idOf(row)
      if (id !== undefined && !excluded.has(id) && input.isMatch(row)) matches.set(id, row)
    }
    if (next === undefined || next === '') complete = true
    cursor = next
  }
  return conclude(input, [...matches.values()], read, maxPages, complete)
}

/** What a scan's matches say, once it has read all it will. */
function conclude<Row>(
  input: RecentLookup<Row>,
  matches: Row[],
  read: number,
  maxPages: number,
  complete: boolean,
): RecentAnswer<Row> {
  const listed = matches.map((row) => input.urlOf(row)).join(', ')
  if (matches.length > 1)
    return {
      kind: 'ambiguous',
      reason: `Herald cannot tell whether the unanswered attempt went out: ${input.where} show ${matches.length} posts since the attempt that look like it (${listed}). ${RESOLVE}`,
    }
  const [match] = matches
  if (match && !input.distinctive)
    return {
      kind: 'ambiguous',
      reason: `Herald cannot tell whether the unanswered attempt went out: its copy is empty or only links, and ${input.where} show a post since the attempt with the same (${listed}). ${RESOLVE}`,
    }
  if (match) return { kind: 'found', row: match }
  if (!complete)
    return {
      kind: 'ambiguous',
      reason: `Herald cannot tell whether the unanswered attempt went out: ${
        input.unread?.(read, maxPages) ??
        `${input.where} have more posts since the attempt than Herald reads back (${read} in ${maxPages} pages). Check them.`
      } ${RESOLVE}`,
    }
  return { kind: 'absent' }
}

/** A scan's answer with its post made a {@link PublishResult}. */
export async function toLookupAnswer<Row>(
  answer: RecentAnswer<Row>,
  result: (row: Row) => PublishResult | Promise<PublishResult>,
): Promise<LookupAnswer> {
  return answer.kind === 'found' ? { kind: 'found', result: await result(answer.row) } : answer
}

/** A lookup's match (or null for a certain "not there") as a {@link LookupAnswer}. */
export const lookupAnswer = (match: PublishResult | null): LookupAnswer =>
  match ? { kind: 'found', result: match } : { kind: 'absent' }

/**
 * The answer for a post found by a key Herald recorded (a record key, a container, an upload session):
 * found, unless another target of the connection holds it, which no key should allow.
 */
export function foundByKey(result: PublishResult, exclude: readonly string[] | undefined): LookupAnswer {
  if (exclude?.includes(result.remoteId))
    return {
      kind: 'ambiguous',
      reason: `The post this attempt recorded (${result.url}) is held by another post of the same profile in Herald; check both posts.`,
    }
  return { kind: 'found', result }
}

/** Copy as lookups compare it: NFC, line breaks as `\n`, every run of spacing one space, trimmed. */
export const normaliseCopy = (text: string): string =>
  text.normalize('NFC').replace(/\r\n?/g, '\n').replace(/\s+/g, ' ').trim()

const LINK = /\bhttps?:\/\/\S+/gi

/** True when the copy holds something besides links and spacing to tell one post from another. */
export const isDistinctive = (text: string): boolean => normaliseCopy(text.replace(LINK, ' ')) !== ''

/** How far a network's clock may be behind Herald's when a reply or comment is looked up. */
const REPLY_CLOCK_SLACK_MS = 2 * 60_000

/**
 * An item (a reply, a comment) whose call went unanswered, looked for among what its parent
 * holds (the replies or comments the network lists under it), by its copy and the time it was made: one
 * match of distinctive copy is found, several or copy that says nothing is ambiguous, none is absent.
 * Every page is read (up to the bound), or, on a listing newest first, every page until one ends before the
 * attempt: a parent with more than Herald reads back and no match is ambiguous, never absent, since the
 * item may be on a page not read, and absent sends it again.
 */
export async function findAmongReplies<Row>(input: {
  /** One page of the parent's replies or comments; `next` absent on the last. */
  readPage(cursor: string | undefined): Promise<LookupPage<Row>>
  /**
   * True when the listing is newest first (YouTube's `order=time`): a page whose last row was made before
   * the attempt ends the scan. The last row, not the first older one, so a pinned comment out of order
   * does not end it early.
   */
  newestFirst?: boolean
  /** Rows that could be the item at all (LinkedIn: the comments by the item's actor). */
  isCandidate?(row: Row): boolean
  /** Where a person would look, in words: "the comments on https://…". */
  where: string
  content: string
  since: number
  exclude: readonly string[]
  idOf(row: Row): string | undefined
  textOf(row: Row): string
  /** Epoch ms the row was made; NaN when the network does not say. */
  timeOf(row: Row): number
  result(row: Row): PublishResult
}): Promise<LookupAnswer> {
  const wanted = normaliseCopy(input.content)
  const from = input.since - REPLY_CLOCK_SLACK_MS
  const answer = await lookUpRecent<Row>({
    where: input.where,
    readPage: async (cursor) => {
      const page = await input.readPage(cursor)
      const last = page.rows.at(-1)
      return input.newestFirst && last !== undefined && input.timeOf(last) < from ? { rows: page.rows } : page
    },
    idOf: input.idOf,
    urlOf: (row) => input.result(row).url,
    isMatch: (row) => {
      if (input.isCandidate && !input.isCandidate(row)) return false
      const time = input.timeOf(row)
      return normaliseCopy(input.textOf(row)) === wanted && (Number.isNaN(time) || time >= from)
    },
    distinctive: isDistinctive(input.content),
    exclude: input.exclude,
    isOlder: () => false,
    unread: (read, pages) =>
      `${input.where} are more than Herald reads back (${read} read in ${pages} pages, none of them the attempt's). Check the rest.`,
  })
  return toLookupAnswer(answer, input.result)
}
