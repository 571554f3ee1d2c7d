import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../src/platform/db/db.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { csvLine } from '../helpers/csv-fixture.js'
import type { Harness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'
import { startPostHarness } from './post-harness.js'

/** The posts one create_post made are one compose; list_posts finds them by compose and by the new filters. */
describe.each(backends)('composes on $name', (backend) => {
  let h: Harness
  const slot = { scheduleDate: '2031-05-01', scheduleTime: '09:00', timezone: 'Europe/Paris' }

  beforeAll(async () => {
    h = await startPostHarness(backend, { credits: 10_000 })
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    await connectProfile(h, 'bluesky', 'bs-1', 'acme.bsky.social')
  })
  afterAll(() => h.close())

  const create = async (content: string, profiles: string[], extra: Record<string, unknown> = {}) => {
    const res = await h.call('create_post', {
      content,
      targetAccounts: profiles.map((p) => ({
        platform: p === 'li-1' ? 'linkedin' : 'bluesky',
        profileId: p,
      })),
      ...slot,
      ...extra,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as { postIds: string[]; posts: Array<{ composeId: string }> }
  }

  it('gives the posts of one create_post one compose id, the first post’s, and a single post its own', async () => {
    const pair = await create('Two profiles at once', ['li-1', 'bs-1'])
    expect(pair.posts.map((p) => p.composeId)).toEqual([pair.postIds[0], pair.postIds[0]])
    const single = await create('One profile', ['bs-1'])
    expect(single.posts[0]?.composeId).toBe(single.postIds[0])
    const read = await h.call('get_post', { id: pair.postIds[1] })
    expect(read.body.composeId).toBe(pair.postIds[0])
    const compose = await h.call('list_posts', { composeId: pair.postIds[0], all: true })
    expect(compose.body.posts.map((p: { id: string }) => p.id).sort()).toEqual([...pair.postIds].sort())
  })

  it('pages by compose, whole composes newest first, when asked; a call without the additions answers as before', async () => {
    const plain = await h.call('list_posts', { limit: 1 })
    expect(plain.body.pagination).toEqual({
      page: 1,
      limit: 1,
      totalPosts: plain.body.counts.all,
      totalPages: plain.body.counts.all,
    })
    const grouped = await h.call('list_posts', { byCompose: true, limit: 1, page: 2 })
    expect(grouped.status).toBe(200)
    expect(grouped.body.posts.map((p: { content: string }) => p.content)).toEqual([
      'Two profiles at once',
      'Two profiles at once',
    ])
    expect(grouped.body.pagination).toMatchObject({ page: 2, limit: 1, totalComposes: 2, totalPages: 2 })
  })

  it('narrows by network, profile, slot dates and words in the copy, with % and _ taken as written', async () => {
    await create('Half price: 50% off_today', ['li-1'], { scheduleDate: '2031-07-01' })
    const contents = async (args: Record<string, unknown>) =>
      ((await h.call('list_posts', { all: true, ...args })).body.posts as Array<{ content: string }>)
        .map((p) => p.content)
        .sort()
    expect(await contents({ search: 'HALF' })).toEqual(['Half price: 50% off_today'])
    expect(await contents({ search: '50% off_' })).toEqual(['Half price: 50% off_today'])
    expect(await contents({ search: '5_%' })).toEqual([])
    expect(await contents({ network: 'bluesky' })).toEqual(['One profile', 'Two profiles at once'])
    expect(await contents({ profileId: 'li-1', from: '2031-06-01' })).toEqual(['Half price: 50% off_today'])
    expect(await contents({ to: '2031-05-01', network: 'linkedin' })).toEqual(['Two profiles at once'])
    expect((await h.call('list_posts', { from: '1 May' })).status).toBe(400)
  })

  it('makes each CSV row its own compose', async () => {
    const csv = [
      'content,profiles,date,time',
      csvLine(['Row one to both', 'linkedin;bluesky', '2031-09-01', '10:00']),
      csvLine(['Row two to both', 'linkedin;bluesky', '2031-09-01', '11:00']),
    ].join('\n')
    const done = await manage(h, 'POST', '/api/imports', csv, { contentType: 'text/csv' })
    expect(done.status, JSON.stringify(done.body).slice(0, 400)).toBe(200)
    const rows = done.body.rows as Array<{ postIds: string[] }>
    expect(rows.map((r) => r.postIds.length)).toEqual([2, 2])
    for (const row of rows) {
      const posts = await Promise.all(row.postIds.map(async (id) => (await h.call('get_post', { id })).body))
      expect(posts.map((p) => p.composeId)).toEqual([row.postIds[0], row.postIds[0]])
    }
  })

  it('gives every post made before compose ids were recorded its own compose', async () => {
    const db = h.app.store.db
    const before = await create('Made before compose ids', ['li-1', 'bs-1'])
    // Back to the schema before 027, then migrate again.
    await sql`DROP INDEX posts_workspace_compose`.execute(db)
    await sql`ALTER TABLE posts DROP COLUMN compose_id`.execute(db)
    await sql`DELETE FROM kysely_migration WHERE name = '027-compose-groups'`.execute(db)
    await migrate(h.app.store)
    const posts = await Promise.all(before.postIds.map(async (id) => (await h.call('get_post', { id })).body))
    expect(posts.map((p) => p.composeId)).toEqual(before.postIds)
    const orphans = await db.selectFrom('posts').select('id').where('compose_id', 'is', null).execute()
    expect(orphans).toEqual([])
  })
})
