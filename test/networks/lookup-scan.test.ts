import { describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/networks/adapter.js'
import { LOOKUP_MAX_PAGES, scanRecentPosts } from '../../src/networks/lookup-scan.js'

/** A profile's posts, newest first (`at` descending), served `size` a page with offset cursors. */
function profile(ats: number[], size: number) {
  const rows = ats.map((at, i) => ({ id: `p${i}`, at, text: `post ${i}` }))
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

describe('scanning a profile for the post an unanswered attempt made', () => {
  it('pages on until the match', async () => {
    const p = profile([9, 8, 7, 6, 5, 4, 3], 2)
    const found = await scanRecentPosts({
      ...p,
      network: 'X',
      isMatch: (row) => row.text === 'post 5',
      isOlder: (row) => row.at < 1,
    })
    expect(found?.id).toBe('p5')
    expect(p.cursors).toEqual([undefined, '2', '4'])
  })

  it('answers not found at the first post older than the attempt, without reading further', async () => {
    const p = profile([9, 8, 7, 6, 5, 4, 3, 2, 1], 2)
    const found = await scanRecentPosts({
      ...p,
      network: 'X',
      isMatch: () => false,
      isOlder: (row) => row.at < 6,
    })
    expect(found).toBeNull()
    expect(p.cursors).toEqual([undefined, '2', '4'])
  })

  it('answers not found on the last page', async () => {
    const p = profile([9, 8, 7], 2)
    expect(
      await scanRecentPosts({ ...p, network: 'X', isMatch: () => false, isOlder: () => false }),
    ).toBeNull()
    expect(p.cursors).toEqual([undefined, '2'])
  })

  it('throws an unknown outcome, never not found, when the bound is reached before the attempt', async () => {
    const p = profile(
      Array.from({ length: 2 * LOOKUP_MAX_PAGES + 1 }, (_, i) => 1000 - i),
      2,
    )
    const failure = await scanRecentPosts({
      ...p,
      network: 'Facebook',
      isMatch: () => false,
      isOlder: () => false,
    }).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(PublishFailure)
    expect(failure).toMatchObject({ kind: 'unknown_outcome' })
    expect((failure as Error).message).toBe(
      `The Facebook profile had too many posts since the attempt to be sure whether it went out (read ${2 * LOOKUP_MAX_PAGES} posts in ${LOOKUP_MAX_PAGES} pages without reaching the attempt)`,
    )
    expect(p.cursors).toHaveLength(LOOKUP_MAX_PAGES)
  })

  it('still finds a match on the last page the bound allows', async () => {
    const p = profile(
      Array.from({ length: 2 * LOOKUP_MAX_PAGES + 5 }, (_, i) => 1000 - i),
      2,
    )
    const found = await scanRecentPosts({
      ...p,
      network: 'X',
      isMatch: (row) => row.id === `p${2 * LOOKUP_MAX_PAGES - 1}`,
      isOlder: () => false,
    })
    expect(found?.id).toBe(`p${2 * LOOKUP_MAX_PAGES - 1}`)
  })
})
