import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'
import { type ScriptedAdapter, scriptedAdapter } from '../helpers/test-adapters.js'
import { centralEurope2030, expectIsoDatesInEnCa, expectTimeZoneRules } from '../helpers/time-zone-rules.js'
import { startPostHarness } from './post-harness.js'

const iso = (ms: number) => new Date(ms).toISOString()

describe.each(backends)('posting queues on $name', (backend) => {
  let h: Harness
  let linkedin: ScriptedAdapter
  const sentAt: Array<{ content: string; at: string }> = []
  // Saturday 2030-03-30 12:00 UTC (13:00 in Berlin); Europe/Berlin moves to summer time on Sunday the 31st.
  const clock = new FakeClock(Date.UTC(2030, 2, 30, 12, 0))

  beforeAll(async () => {
    // Queue openings are found through ICU's en-CA dates, and Berlin's 2030 change is this Node's tzdata's.
    expectIsoDatesInEnCa()
    expectTimeZoneRules(centralEurope2030('Europe/Berlin'))
    linkedin = scriptedAdapter('linkedin')
    const publish = linkedin.publish.bind(linkedin)
    linkedin.publish = async (request) => {
      sentAt.push({ content: request.content, at: iso(clock.now()) })
      return publish(request)
    }
    h = await startPostHarness(backend, { clock, adapters: { linkedin } })
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    await connectProfile(h, 'linkedin', 'li-2', 'other-li')
  })
  afterAll(() => h.close())

  const setQueue = (body: Record<string, unknown>, key?: string) =>
    manage(h, 'POST', '/api/queues', { platform: 'linkedin', profile: 'acme-li', ...body }, { key })

  it('refuses malformed, overlapping and unzoned posting times, naming each, and saves nothing', async () => {
    const bad = await setQueue({ timezone: 'Europe/Berlin', slots: ['daily 09:00', 'mon 09:00', 'noon'] })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/slots\[1\]: "mon 09:00" overlaps "daily 09:00"/)
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual(['slots[1]', 'slots[2]'])
    const zone = await setQueue({ timezone: 'Mars/Olympus', slots: ['daily 09:00'] })
    expect(zone.status).toBe(400)
    expect(zone.body.error.details[0].path).toBe('timezone')
    const nobody = await setQueue({ profile: 'nobody', timezone: 'UTC', slots: ['daily 09:00'] })
    expect(nobody.status).toBe(404)
    expect((await manage(h, 'GET', '/api/queues')).body).toEqual([])
  })

  it('refuses queue: true for a profile without posting times, and queue together with a slot', async () => {
    const none = await h.call('create_post', {
      content: 'No queue yet',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-2' }],
      queue: true,
    })
    expect(none.status).toBe(400)
    expect(none.body.error.message).toMatch(/linkedin @other-li has no posting times/)
    const both = await h.call('create_post', {
      content: 'Both',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      queue: true,
      scheduleDate: '2030-04-02',
      scheduleTime: '10:00',
    })
    expect(both.status).toBe(400)
    expect(both.body.error.details[0].path).toBe('queue')
    expect((await h.call('list_posts', {})).body.counts.all).toBe(0)
  })

  it('lands three queued posts on the next three free slots across the daylight-saving change, and the worker sends them then', async () => {
    const saved = await setQueue({ timezone: 'Europe/Berlin', slots: ['daily 09:00', 'daily 17:00'] })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body.queues[0]).toMatchObject({
      timezone: 'Europe/Berlin',
      slots: ['daily 09:00', 'daily 17:00'],
    })
    // Sunday 09:00 is taken already by a post scheduled by hand: the queue skips it.
    const manual = await h.call('create_post', {
      content: 'Scheduled by hand',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      scheduleDate: '2030-03-31',
      scheduleTime: '09:00',
      timezone: 'Europe/Berlin',
    })
    expect(manual.status).toBe(200)

    const preview = await h.call('preflight_post', {
      content: 'Queued 1',
      targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
      queue: true,
    })
    expect(preview.body.queueSlots).toEqual([
      expect.objectContaining({
        scheduleDate: '2030-03-30',
        scheduleTime: '17:00',
        timezone: 'Europe/Berlin',
      }),
    ])
    const made = []
    for (const n of [1, 2, 3]) {
      const { status, body } = await h.call('create_post', {
        content: `Queued ${n}`,
        targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
        queue: true,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.message).toMatch(/^Queued 1 post at /)
      made.push(body.post)
    }
    expect(made.map((p) => [p.scheduleDate, p.scheduleTime, p.timezone, p.dueAt, p.queued])).toEqual([
      ['2030-03-30', '17:00', 'Europe/Berlin', '2030-03-30T16:00:00.000Z', true],
      // Summer time from here: 17:00 in Berlin is 15:00 UTC, no longer 16:00.
      ['2030-03-31', '17:00', 'Europe/Berlin', '2030-03-31T15:00:00.000Z', true],
      ['2030-04-01', '09:00', 'Europe/Berlin', '2030-04-01T07:00:00.000Z', true],
    ])
    const queues = (await manage(h, 'GET', '/api/queues')).body
    expect(queues[0].next[0]).toMatchObject({ scheduleDate: '2030-04-01', scheduleTime: '17:00' })

    const worker = createAppWorker(h.app, { id: `queue-worker-${backend.name}` })
    const stops = [
      Date.UTC(2030, 2, 30, 16, 0),
      Date.UTC(2030, 2, 31, 7, 0),
      Date.UTC(2030, 2, 31, 15, 0),
      Date.UTC(2030, 3, 1, 7, 0),
    ]
    try {
      for (const [index, stop] of stops.entries()) {
        // A minute before its slot nothing goes; at the slot exactly one post does (the worker's own
        // follow-up claims may be the ones that send it: wait for the send before moving the clock on).
        clock.set(stop - 60_000)
        await worker.tick()
        await worker.idle()
        expect(sentAt).toHaveLength(index)
        clock.set(stop)
        await worker.tick()
        await expect.poll(() => sentAt.length).toBe(index + 1)
        await worker.idle()
      }
    } finally {
      await worker.stop()
    }
    expect(sentAt).toEqual([
      { content: 'Queued 1', at: '2030-03-30T16:00:00.000Z' },
      { content: 'Scheduled by hand', at: '2030-03-31T07:00:00.000Z' },
      { content: 'Queued 2', at: '2030-03-31T15:00:00.000Z' },
      { content: 'Queued 3', at: '2030-04-01T07:00:00.000Z' },
    ])
    for (const post of made) expect((await h.call('get_post', { id: post.id })).body.status).toBe('published')
  })

  it('gives two posts queued at the same moment two different slots', async () => {
    clock.set(Date.UTC(2030, 3, 1, 8, 0))
    const results = await Promise.all(
      ['Race A', 'Race B', 'Race C'].map((content) =>
        h.call('create_post', {
          content,
          targetAccounts: [{ platform: 'linkedin', profileId: 'li-1' }],
          queue: true,
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual([200, 200, 200])
    const due = results.map((r) => r.body.post.dueAt).sort()
    expect(new Set(due).size).toBe(3)
    expect(due).toEqual(['2030-04-01T15:00:00.000Z', '2030-04-02T07:00:00.000Z', '2030-04-02T15:00:00.000Z'])
  })

  it('removes a queue with an empty list of times', async () => {
    expect((await setQueue({ timezone: 'UTC', slots: [] })).status).toBe(200)
    expect((await manage(h, 'GET', '/api/queues')).body).toEqual([])
  })
})
