import { describe, expect, it } from 'vitest'
import {
  findAmongReplies,
  isDistinctive,
  LOOKUP_MAX_PAGES,
  lookUpRecent,
  normaliseCopy,
  type RecentLookup,
} from '../../src/adapters/lookup-scan.js'

type Row = { id: string; at: number; text: string }

/** A profile's posts, newest first (`at` descending), served `size` a page with offset cursors. */
function profile(ats: number[], size: number, text = (i: number) => `post ${i}`) {
  const rows: Row[] = ats.map((at, i) => ({ id: `p${i}`, at, text: text(i) }))
  const cursors: (string | undefined)[] = []
  return {
    cursors,
    readPage: async (cursor: string | undefined) => {
      cursors.push(cursor)
      const from = Number(cursor ?? 0)
      const page = rows.slice(from, from + size)
      return { rows: page, next: from + size < rows.length ? String(from + size) : undefined }
    },
  }
}

const scan = (
  p: Pick<RecentLookup<Row>, 'readPage'>,
  rest: Partial<RecentLookup<Row>> & Pick<RecentLookup<Row>, 'isMatch'>,
) =>
  lookUpRecent<Row>({
    readPage: p.readPage,
    where: "@carol's posts on X",
    idOf: (row) => row.id,
    urlOf: (row) => `https://x.com/carol/status/${row.id}`,
    isOlder: () => false,
    distinctive: true,
    ...rest,
  })

describe('looking back through a profile for the post an unanswered attempt made', () => {
  it('finds the one match, reading on to the attempt to be sure it is the only one', async () => {
    const p = profile([9, 8, 7, 6, 5, 4, 3], 2)
    const answer = await scan(p, { isMatch: (row) => row.text === 'post 5', isOlder: (row) => row.at < 4 })
    expect(answer).toEqual({ kind: 'found', row: { id: 'p5', at: 4, text: 'post 5' } })
    expect(p.cursors).toEqual([undefined, '2', '4', '6'])
  })

  it('answers absent at the first post older than the attempt, without reading further', async () => {
    const p = profile([9, 8, 7, 6, 5, 4, 3, 2, 1], 2)
    expect(await scan(p, { isMatch: () => false, isOlder: (row) => row.at < 6 })).toEqual({ kind: 'absent' })
    expect(p.cursors).toEqual([undefined, '2', '4'])
  })

  it('answers absent on the last page', async () => {
    const p = profile([9, 8, 7], 2)
    expect(await scan(p, { isMatch: () => false })).toEqual({ kind: 'absent' })
    expect(p.cursors).toEqual([undefined, '2'])
  })

  it('is ambiguous, naming both posts, when two posts since the attempt look like it', async () => {
    const p = profile([9, 8, 7], 5, () => 'same words')
    const answer = await scan(p, { isMatch: (row) => row.text === 'same words' && row.id !== 'p1' })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    const { reason } = answer as { reason: string }
    expect(reason).toContain('2 posts since the attempt')
    expect(reason).toContain('https://x.com/carol/status/p0, https://x.com/carol/status/p2')
    expect(reason).toContain('reset_stuck_post')
  })

  it('never takes a post another target holds, whatever its copy', async () => {
    const p = profile([9, 8, 7], 5, () => 'same words')
    const answer = await scan(p, { isMatch: (row) => row.text === 'same words', exclude: ['p0', 'p2'] })
    expect(answer).toEqual({ kind: 'found', row: { id: 'p1', at: 8, text: 'same words' } })
    expect(await scan(p, { isMatch: () => true, exclude: ['p0', 'p1', 'p2'] })).toEqual({ kind: 'absent' })
  })

  it('is ambiguous when copy that says nothing matches, and absent when nothing matches at all', async () => {
    const p = profile([9, 8], 5, () => '')
    const answer = await scan(p, { isMatch: (row) => row.id === 'p1', distinctive: false })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toContain('its copy is empty or only links')
    expect(await scan(p, { isMatch: () => false, distinctive: false })).toEqual({ kind: 'absent' })
  })

  it('is ambiguous, never absent, when the bound is reached before the attempt', async () => {
    const p = profile(
      Array.from({ length: 2 * LOOKUP_MAX_PAGES + 1 }, (_, i) => 1000 - i),
      2,
    )
    const answer = await scan(p, { isMatch: () => false })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toContain(
      `more posts since the attempt than Herald reads back (${2 * LOOKUP_MAX_PAGES} in ${LOOKUP_MAX_PAGES} pages)`,
    )
    expect(p.cursors).toHaveLength(LOOKUP_MAX_PAGES)
  })

  it('still finds a match on the last page the bound allows', async () => {
    const p = profile(
      Array.from({ length: 2 * LOOKUP_MAX_PAGES + 5 }, (_, i) => 1000 - i),
      2,
    )
    const answer = await scan(p, { isMatch: (row) => row.id === `p${2 * LOOKUP_MAX_PAGES - 1}` })
    expect(answer).toMatchObject({ kind: 'found', row: { id: `p${2 * LOOKUP_MAX_PAGES - 1}` } })
  })
})

/** Pages served exactly as given, newest first; every page but the last carries a cursor to the next. */
function pages(shapes: string[][]) {
  const cursors: (string | undefined)[] = []
  return {
    cursors,
    readPage: async (cursor: string | undefined) => {
      cursors.push(cursor)
      const at = Number(cursor ?? 0)
      const rows = (shapes[at] ?? []).map((id) => ({ id, at: 100 - at, text: id }))
      return at + 1 < shapes.length ? { rows, next: String(at + 1) } : { rows }
    },
  }
}

describe('how a lookup pages: only a page without a cursor is the last', () => {
  it('reads past a short page and an empty page that carry a cursor, and finds the post after them', async () => {
    const p = pages([['a'], [], ['b', 'ours']])
    const answer = await scan(p, { isMatch: (row) => row.text === 'ours' })
    expect(answer).toMatchObject({ kind: 'found', row: { id: 'ours' } })
    expect(p.cursors).toEqual([undefined, '1', '2'])
  })

  it('answers absent only on the page without a cursor, however many empty pages come before it', async () => {
    const p = pages([[], [], ['a'], []])
    expect(await scan(p, { isMatch: () => false })).toEqual({ kind: 'absent' })
    expect(p.cursors).toEqual([undefined, '1', '2', '3'])
  })

  it('is ambiguous, never absent, when empty pages with a cursor use up the budget', async () => {
    const p = pages(Array.from({ length: LOOKUP_MAX_PAGES + 1 }, () => []))
    const answer = await scan(p, { isMatch: () => false })
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toContain(`(0 in ${LOOKUP_MAX_PAGES} pages)`)
    expect(p.cursors).toHaveLength(LOOKUP_MAX_PAGES)
  })

  it('counts once a post that two overlapping pages both hold', async () => {
    const p = pages([
      ['a', 'ours'],
      ['ours', 'b'],
    ])
    expect(await scan(p, { isMatch: (row) => row.text === 'ours' })).toMatchObject({
      kind: 'found',
      row: { id: 'ours' },
    })
  })

  it('reads past an empty page of comments newest first that carries a cursor', async () => {
    const p = pages([[], ['ours']])
    const answer = await findAmongReplies<Row>({
      readPage: p.readPage,
      newestFirst: true,
      where: 'the comments on https://example.com/p/1',
      content: 'ours',
      since: 0,
      exclude: [],
      idOf: (row) => row.id,
      textOf: (row) => row.text,
      timeOf: () => Number.NaN,
      result: (row) => ({ remoteId: row.id, url: `https://example.com/c/${row.id}` }),
    })
    expect(answer).toMatchObject({ kind: 'found', result: { remoteId: 'ours' } })
  })
})

describe("looking for an unanswered item among its parent's comments", () => {
  const since = 10 * 60_000
  /** Comments, served `size` a page; `at` in minutes. */
  const comments = (rows: Array<{ at: number; text: string }>, size: number) => {
    const p = profile(
      rows.map((r) => r.at * 60_000),
      size,
      (i) => rows[i]!.text,
    )
    return {
      cursors: p.cursors,
      find: (rest: { newestFirst?: boolean; content?: string } = {}) =>
        findAmongReplies<Row>({
          readPage: p.readPage,
          where: 'the comments on https://example.com/p/1',
          content: rest.content ?? 'Our comment',
          since,
          exclude: [],
          ...(rest.newestFirst ? { newestFirst: true } : {}),
          idOf: (row) => row.id,
          textOf: (row) => row.text,
          timeOf: (row) => row.at,
          result: (row) => ({ remoteId: row.id, url: `https://example.com/c/${row.id}` }),
        }),
    }
  }
  const others = (n: number, at = 20) => Array.from({ length: n }, () => ({ at, text: 'Someone else' }))

  it('finds the comment on the last page of a listing in no useful order', async () => {
    const c = comments([...others(7), { at: 11, text: 'Our comment' }], 2)
    expect(await c.find()).toMatchObject({ kind: 'found', result: { remoteId: 'p7' } })
    expect(c.cursors).toEqual([undefined, '2', '4', '6'])
  })

  it('answers absent only after the last page', async () => {
    const c = comments(others(7), 2)
    expect(await c.find()).toEqual({ kind: 'absent' })
    expect(c.cursors).toHaveLength(4)
  })

  it('is ambiguous, never absent, when the pages run past the bound without the comment', async () => {
    const c = comments([...others(2 * LOOKUP_MAX_PAGES), { at: 11, text: 'Our comment' }], 2)
    const answer = await c.find()
    expect(answer).toMatchObject({ kind: 'ambiguous' })
    expect((answer as { reason: string }).reason).toContain(
      `the comments on https://example.com/p/1 are more than Herald reads back (${2 * LOOKUP_MAX_PAGES} read in ${LOOKUP_MAX_PAGES} pages`,
    )
    expect(c.cursors).toHaveLength(LOOKUP_MAX_PAGES)
  })

  it('newest first, stops after the page that ends before the attempt, a pinned old comment on top not counting', async () => {
    const c = comments([{ at: 1, text: 'Pinned' }, ...others(3), { at: 2, text: 'Old' }, ...others(4, 1)], 2)
    expect(await c.find({ newestFirst: true })).toEqual({ kind: 'absent' })
    expect(c.cursors).toEqual([undefined, '2', '4'])
  })
})

describe('copy as lookups compare it', () => {
  it.each([
    ['Cafe\u0301  au\r\nlait ', 'Café au lait'],
    ['\n\n  two\tspaces  ', 'two spaces'],
  ])('normalises %j to %j', (text, expected) => {
    expect(normaliseCopy(text)).toBe(expected)
  })

  it.each([
    ['', false],
    ['   \n ', false],
    ['https://example.com/a', false],
    [' https://example.com/a  http://b.example ', false],
    ['Read https://example.com/a', true],
    ['Bread', true],
  ])('%j is distinctive: %s', (text, expected) => {
    expect(isDistinctive(text)).toBe(expected)
  })
})
