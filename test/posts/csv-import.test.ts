import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { csvLine, teamCsv } from '../helpers/csv-fixture.js'
import type { Harness } from '../helpers/harness.js'
import { addMember, manage } from '../helpers/team.js'
import { startPostHarness } from './post-harness.js'

describe.each(backends)('CSV import over REST on $name', (backend) => {
  let h: Harness
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0))
  const count = async () => (await h.call('list_posts', {})).body.counts.all as number
  const balance = async () => (await h.call('get_user_info', {})).body.credits.balance as number
  const upload = (csv: string, query = '', key?: string) =>
    manage(h, 'POST', `/api/imports${query}`, csv, { contentType: 'text/csv', key })

  beforeAll(async () => {
    h = await startPostHarness(backend, { clock, credits: 10_000 })
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await manage(h, 'POST', '/api/queues', {
      platform: 'linkedin',
      profile: 'acme-li',
      timezone: 'Europe/Berlin',
      slots: ['daily 09:00', 'daily 17:00'],
    })
  })
  afterAll(() => h.close())

  it('imports the 193 good rows of 200, reports the 7 bad ones with their reasons, and creates nothing the second time', async () => {
    const { text, bad } = teamCsv({ good: 193, from: '2030-01-01', queueRows: 3 })
    const before = await balance()

    const dry = await upload(text, '?dryRun=1')
    expect(dry.status, JSON.stringify(dry.body).slice(0, 500)).toBe(200)
    expect(dry.body.summary).toMatchObject({ rows: 200, ready: 193, blocked: 7, created: 0, cost: 193 })
    expect(await count()).toBe(0)
    const blocked = dry.body.rows.filter((r: { status: string }) => r.status === 'blocked')
    expect(blocked.map((r: { row: number }) => r.row)).toEqual(bad.map((b) => b.row))
    for (const [i, expected] of bad.entries()) {
      const problem = blocked[i].blockers[0]
      expect(problem.column, JSON.stringify(blocked[i])).toBe(expected.column)
      expect(problem.message).toMatch(expected.reason)
    }
    // Queue rows show the slot each takes, one after the other.
    const queued = dry.body.rows.filter((r: { slot: string }) => r.slot.startsWith('queue:'))
    expect(queued.map((r: { slot: string }) => r.slot)).toEqual([
      'queue: linkedin @acme-li 2030-01-01 17:00 Europe/Berlin',
      'queue: linkedin @acme-li 2030-01-02 09:00 Europe/Berlin',
      'queue: linkedin @acme-li 2030-01-02 17:00 Europe/Berlin',
    ])

    const done = await upload(text)
    expect(done.body.summary).toMatchObject({ created: 193, blocked: 7, failed: 0 })
    expect(await count()).toBe(193)
    expect(await balance()).toBe(before - 193)
    const made = done.body.rows.filter((r: { status: string }) => r.status === 'created')
    expect(new Set(made.flatMap((r: { postIds: string[] }) => r.postIds)).size).toBe(193)
    const first = await h.call('get_post', { id: made[0].postIds[0] })
    expect(first.body.content).toBe('Post 0: "quoted", with commas,\nand a second line')

    const again = await upload(text)
    expect(again.body.summary).toMatchObject({ created: 0, alreadyImported: 193, blocked: 7 })
    expect(await count()).toBe(193)
    expect(await balance()).toBe(before - 193)
  })

  it.each([
    ['a file that is not UTF-8', Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42]), /not UTF-8|binary/],
    ['a file that is not CSV', 'content,profiles\n"unclosed,linkedin\n', /not a CSV Herald can read/],
    [
      'unknown columns',
      'content,profiles,colour\nHi,linkedin,red\n',
      /Unknown column "colour"; the columns are/,
    ],
    ['no content column', 'profiles,date\nlinkedin,2030-02-01\n', /no content column/],
    ['an empty file', '', /empty/],
    ['a header alone', 'content,profiles\n', /no rows/],
  ])('refuses %s with a 400 that says why, creating nothing', async (_name, body, message) => {
    const before = await count()
    const res = await fetch(`${h.baseUrl}/api/imports`, {
      method: 'POST',
      headers: { 'x-api-key': h.apiKey, 'content-type': 'text/csv' },
      body,
    })
    const answer = (await res.json()) as { error: { message: string } }
    expect(res.status).toBe(400)
    expect(answer.error.message).toMatch(message)
    expect(await count()).toBe(before)
  })

  it('creates each row once and charges once when the same file is imported twice at the same moment', async () => {
    const rows = Array.from({ length: 24 }, (_, i) =>
      csvLine([`Twice at once ${i}`, 'linkedin', '2030-06-01', `${String(i % 24).padStart(2, '0')}:30`]),
    )
    const csv = [
      'content,profiles,date,time,queue',
      ...rows.map((r) => `${r},`),
      'Twice queued,linkedin,,,yes',
    ].join('\n')
    const before = await balance()
    const posts = await count()
    const [a, b] = await Promise.all([upload(csv), upload(csv)])
    expect(a.status, JSON.stringify(a.body).slice(0, 300)).toBe(200)
    expect(b.status, JSON.stringify(b.body).slice(0, 300)).toBe(200)
    expect(await count()).toBe(posts + 25)
    expect(await balance()).toBe(before - 25)
    // Both answers name the same posts for each row.
    const ids = (answer: typeof a) => answer.body.rows.map((r: { postIds: string[] }) => r.postIds.join())
    expect(ids(a)).toEqual(ids(b))
    const again = await upload(csv)
    expect(again.body.summary).toMatchObject({ created: 0, alreadyImported: 25 })
    expect(await count()).toBe(posts + 25)
  })

  it('refuses a file over the 5 MB limit with a 413 naming that limit, and a body of another type with a 415 naming the types it takes', async () => {
    const before = await count()
    const big = `content,profiles,date,time\n${'x'.repeat(5 * 1024 * 1024)},linkedin,2030-02-01,10:00\n`
    const tooBig = await upload(big)
    expect(tooBig.status).toBe(413)
    expect(tooBig.body.error.message).toMatch(/5242880 bytes/)
    const xml = await manage(h, 'POST', '/api/imports', '<rows/>', { contentType: 'application/xml' })
    expect(xml.status).toBe(415)
    expect(xml.body.error.message).toMatch(/text\/csv/)
    expect(await count()).toBe(before)
  })

  it('refuses more than 1,000 rows', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) =>
      csvLine([`Row ${i}`, 'linkedin', '2030-02-01', '10:00']),
    )
    const res = await upload(['content,profiles,date,time', ...rows].join('\n'))
    expect(res.status).toBe(400)
    expect(res.body.error.message).toMatch(/1001 rows; an import takes at most 1000/)
  })

  it('reads semicolons, a repeated row once, the JSON form, and a row whose cells do not match the header', async () => {
    const csv = [
      'content;profiles;date;time',
      'Semi one;linkedin;2030-03-01;10:00',
      'Semi one;linkedin;2030-03-01;10:00',
      'Short row;linkedin',
    ].join('\n')
    const res = await manage(h, 'POST', '/api/imports', { csv, dryRun: true })
    expect(res.status).toBe(200)
    expect(res.body.rows.map((r: { status: string }) => r.status)).toEqual(['ready', 'repeat', 'blocked'])
    expect(res.body.rows[1].note).toBe('the same as row 2: imported once')
    expect(res.body.rows[2].blockers[0].message).toMatch(/2 cells and the header 4/)
  })

  it('imports a row with a first comment as a post carrying it, since create_post takes firstComment', async () => {
    const csv = [
      csvLine(['content', 'profiles', 'date', 'time', 'first comment']),
      csvLine([
        'Hiring, again',
        'linkedin:acme-li',
        '2030-04-01',
        '10:00',
        'Apply: https://example.com/jobs',
      ]),
    ].join('\n')
    const res = await upload(csv)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.summary).toMatchObject({ created: 1, blocked: 0 })
    const post = await h.call('get_post', { id: res.body.rows[0].postIds[0] })
    expect(post.body.firstComment).toBe('Apply: https://example.com/jobs')
    expect(post.body.targets[0].items).toEqual([
      { kind: 'firstComment', content: 'Apply: https://example.com/jobs', status: 'pending' },
    ])
  })

  it('blocks a row that repeats an earlier row’s copy to X within 24 hours', async () => {
    const csv = [
      'content,profiles,date,time',
      'Same words,twitter:acme,2030-04-01,10:00',
      'Same words,twitter:acme,2030-04-01,18:00',
    ].join('\n')
    const res = await upload(csv, '?dryRun=true')
    expect(res.body.rows[1].status).toBe('blocked')
    expect(res.body.rows[1].blockers[0].message).toMatch(/same copy is in row 2.*X refuses/)
  })

  it("imports an editor's rows as posts waiting for approval when approvals are on", async () => {
    const editor = await addMember(h, 'importer')
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: true })
    const before = await balance()
    const res = await upload(
      'content,profiles,date,time\nFrom the editor,linkedin,2030-05-01,10:00\n',
      '',
      editor.apiKey,
    )
    expect(res.body.rows[0].status).toBe('waiting for approval')
    expect(await balance()).toBe(before)
    await manage(h, 'POST', '/api/approvals/settings', { requireApproval: false })
  })
})
