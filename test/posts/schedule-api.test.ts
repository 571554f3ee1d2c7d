import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { expectTimeZoneRules, newYork2030 } from '../helpers/time-zone-rules.js'

describe.each(backends)(
  'scheduling through create_post, update_post and reschedule_post on $name',
  (backend) => {
    let h: Harness
    const clock = new FakeClock(Date.UTC(2030, 0, 1, 0, 0))
    beforeAll(async () => {
      h = await startHarness({ backend, clock })
      await connectProfile(h, 'linkedin', 'li-1', 'acme')
    })
    afterAll(() => h.close())

    const create = (slot: Record<string, unknown>) =>
      h.call('create_post', { content: 'Hello', platforms: ['linkedin'], ...slot })

    it.each([
      [
        'a slot in Asia/Kolkata',
        { scheduleDate: '2030-01-01', scheduleTime: '10:00', timezone: 'Asia/Kolkata' },
        '2030-01-01T04:30:00.000Z',
      ],
      [
        'a spring-forward gap in New York',
        { scheduleDate: '2030-03-10', scheduleTime: '02:30', timezone: 'America/New_York' },
        '2030-03-10T07:30:00.000Z',
      ],
      [
        'a fall-back overlap in New York',
        { scheduleDate: '2030-11-03', scheduleTime: '01:30', timezone: 'America/New_York' },
        '2030-11-03T05:30:00.000Z',
      ],
      ['no zone (UTC)', { scheduleDate: '2030-01-02', scheduleTime: '08:00' }, '2030-01-02T08:00:00.000Z'],
    ])('queues %s at the exact instant, keeping the slot as given', async (_name, slot, dueAt) => {
      // The instants follow the 2030 rules of this Node's time-zone data (test/helpers/time-zone-rules.ts).
      expectTimeZoneRules([...newYork2030, ['Asia/Kolkata', '2030-01-01T04:30:00Z', '+05:30']])
      const { status, body } = await create(slot)
      expect(status).toBe(200)
      expect(body.post).toMatchObject({
        scheduleDate: slot.scheduleDate,
        scheduleTime: slot.scheduleTime,
        timezone: 'timezone' in slot ? slot.timezone : 'UTC',
        dueAt,
      })
      const row = await h.app.store.db
        .selectFrom('targets')
        .select('run_at')
        .where('post_id', '=', body.postIds[0])
        .executeTakeFirstOrThrow()
      expect(new Date(row.run_at as number).toISOString()).toBe(dueAt)
    })

    it('refuses a slot in the past with a 400 and creates nothing', async () => {
      const before = (await h.call('list_posts', {})).body.counts.all
      const { status, body } = await create({ scheduleDate: '2029-12-31', scheduleTime: '23:58' })
      expect(status).toBe(400)
      expect(body.error.message).toMatch(/in the past/)
      expect((await h.call('list_posts', {})).body.counts.all).toBe(before)
    })

    it('accepts a slot less than a minute ago', async () => {
      clock.set(Date.UTC(2030, 0, 1, 0, 0, 30))
      expect((await create({ scheduleDate: '2030-01-01', scheduleTime: '00:00' })).status).toBe(200)
      clock.set(Date.UTC(2030, 0, 1, 0, 0))
    })

    it('refuses a bad zone name with a 400 naming the field', async () => {
      const { status, body } = await create({
        scheduleDate: '2030-01-02',
        scheduleTime: '08:00',
        timezone: 'Asia/Atlantis',
      })
      expect(status).toBe(400)
      expect(body.error.details).toEqual([expect.objectContaining({ path: 'timezone' })])
    })

    it('needs both scheduleDate and scheduleTime unless publishing immediately', async () => {
      expect((await create({ scheduleDate: '2030-01-02' })).body.error.message).toMatch(
        /scheduleTime is required/,
      )
      expect((await create({})).body.error.message).toMatch(/scheduleDate and scheduleTime are required/)
    })

    it('keeps the zone on reschedule when none is given and reports the slot it left', async () => {
      const id = (
        await create({ scheduleDate: '2030-01-05', scheduleTime: '10:00', timezone: 'Asia/Kolkata' })
      ).body.postIds[0]
      const { body } = await h.call('reschedule_post', {
        id,
        scheduleDate: '2030-01-06',
        scheduleTime: '11:30',
      })
      expect(body.from).toEqual({
        scheduleDate: '2030-01-05',
        scheduleTime: '10:00',
        timezone: 'Asia/Kolkata',
      })
      expect(body.post).toMatchObject({
        id,
        scheduleDate: '2030-01-06',
        scheduleTime: '11:30',
        status: 'scheduled',
      })
      expect((await h.call('get_post', { id })).body.dueAt).toBe('2030-01-06T06:00:00.000Z')
      const moved = await h.call('reschedule_post', {
        id,
        scheduleDate: '2030-01-06',
        scheduleTime: '11:30',
        timezone: 'America/New_York',
      })
      expect(moved.body.post.timezone).toBe('America/New_York')
      expect((await h.call('get_post', { id })).body.dueAt).toBe('2030-01-06T16:30:00.000Z')
    })

    it('refuses a past slot on reschedule and on update', async () => {
      const id = (await create({ scheduleDate: '2030-01-05', scheduleTime: '10:00' })).body.postIds[0]
      expect(
        (await h.call('reschedule_post', { id, scheduleDate: '2029-01-01', scheduleTime: '10:00' })).status,
      ).toBe(400)
      expect((await h.call('update_post', { id, scheduleDate: '2029-01-01' })).status).toBe(400)
      expect((await h.call('get_post', { id })).body.scheduleDate).toBe('2030-01-05')
    })

    it('recomputes the instant when update_post changes only the time', async () => {
      const id = (
        await create({ scheduleDate: '2030-01-05', scheduleTime: '10:00', timezone: 'Asia/Kolkata' })
      ).body.postIds[0]
      await h.call('update_post', { id, scheduleTime: '12:00' })
      expect((await h.call('get_post', { id })).body).toMatchObject({
        scheduleTime: '12:00',
        timezone: 'Asia/Kolkata',
        dueAt: '2030-01-05T06:30:00.000Z',
      })
    })
  },
)
