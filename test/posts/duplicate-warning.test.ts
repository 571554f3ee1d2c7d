import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import { FakeClock } from '../../src/platform/clock.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import type { Harness } from '../helpers/harness.js'
import { manage } from '../helpers/team.js'
import { scriptedAdapter } from '../helpers/test-adapters.js'
import { startPostHarness } from './post-harness.js'

describe.each(backends)('the repeated-copy warning on $name', (backend) => {
  let h: Harness
  const clock = new FakeClock(Date.UTC(2030, 5, 1, 12, 0))

  beforeAll(async () => {
    h = await startPostHarness(backend, {
      clock,
      adapters: { twitter: scriptedAdapter('twitter'), linkedin: scriptedAdapter('linkedin') },
    })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'twitter', 'tw-2', 'other')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
  })
  afterAll(() => h.close())

  const to = (platform: string, profileId: string) => ({ targetAccounts: [{ platform, profileId }] })
  const preflight = (content: string, more: Record<string, unknown>) =>
    h.call('preflight_post', { content, ...more }).then((r) => r.body)

  it('warns on LinkedIn and blocks on X when the same copy is scheduled to the profile within 24 hours, naming the post', async () => {
    const at = { scheduleDate: '2030-06-02', scheduleTime: '09:00', timezone: 'UTC' }
    const li = await h.call('create_post', {
      content: 'Summer sale starts now',
      ...to('linkedin', 'li-1'),
      ...at,
    })
    const x = await h.call('create_post', {
      content: 'Summer sale starts now',
      ...to('twitter', 'tw-1'),
      ...at,
    })
    // Twenty hours later, with other spacing: still the same copy as the networks compare it.
    const later = { scheduleDate: '2030-06-03', scheduleTime: '05:00', timezone: 'UTC' }
    const onLinkedIn = await preflight('Summer  sale starts now\n', { ...to('linkedin', 'li-1'), ...later })
    expect(onLinkedIn.ok).toBe(true)
    expect(onLinkedIn.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `linkedin @acme-li: the same copy is scheduled for 2030-06-02 09:00 UTC \\(post ${li.body.post.id}\\)`,
        ),
      ),
    ])
    const onX = await preflight('Summer sale starts now', { ...to('twitter', 'tw-1'), ...later })
    expect(onX.ok).toBe(false)
    expect(onX.blockers).toEqual([
      expect.stringContaining(`(post ${x.body.post.id}); X refuses a repeated post`),
    ])
    // Another profile, other copy, or a day and more apart: nothing to say.
    expect((await preflight('Summer sale starts now', { ...to('twitter', 'tw-2'), ...later })).ok).toBe(true)
    expect((await preflight('Summer sale starts now!', { ...to('twitter', 'tw-1'), ...later })).ok).toBe(true)
    const dayAfter = { scheduleDate: '2030-06-03', scheduleTime: '09:01', timezone: 'UTC' }
    const apart = await preflight('Summer sale starts now', { ...to('twitter', 'tw-1'), ...dayAfter })
    expect(apart.ok).toBe(true)
    expect(apart.warnings).toEqual([])
  })

  it('compares each queued profile around its own queue slot, in one read for all of them', async () => {
    await manage(h, 'POST', '/api/queues', {
      platform: 'twitter',
      profile: 'acme',
      timezone: 'UTC',
      slots: ['daily 10:00'],
    })
    await manage(h, 'POST', '/api/queues', {
      platform: 'twitter',
      profile: 'other',
      timezone: 'UTC',
      slots: ['wed 10:00'],
    })
    const copy = 'Queued copy for two profiles'
    const schedule = (profileId: string, scheduleDate: string, scheduleTime: string) =>
      h.call('create_post', { content: copy, ...to('twitter', profileId), scheduleDate, scheduleTime })
    // Near the other profile's slot, days from its own: neither counts.
    await schedule('tw-2', '2030-06-02', '11:00')
    await schedule('tw-1', '2030-06-05', '10:30')
    const both = {
      targetAccounts: [
        { platform: 'twitter', profileId: 'tw-1' },
        { platform: 'twitter', profileId: 'tw-2' },
      ],
      queue: true,
    }
    const clear = await preflight(copy, both)
    expect(clear.queueSlots.map((s: { scheduleDate: string }) => s.scheduleDate)).toEqual([
      '2030-06-02',
      '2030-06-05',
    ])
    expect(clear.blockers).toEqual([])
    const near = await schedule('tw-1', '2030-06-02', '20:00')
    const blocked = await preflight(copy, both)
    expect(blocked.blockers).toEqual([
      expect.stringMatching(new RegExp(`^twitter @acme: .*\\(post ${near.body.post.id}\\)`)),
    ])
  })

  it('counts a published post at the time it went out: within 24 hours and not after', async () => {
    const sent = await h.call('create_post', {
      content: 'Doors open at nine',
      ...to('twitter', 'tw-1'),
      scheduleDate: '2030-06-01',
      scheduleTime: '13:00',
    })
    clock.set(Date.UTC(2030, 5, 1, 13, 0))
    const worker = createAppWorker(h.app, { id: `dup-${backend.name}` })
    await worker.tick()
    await expect
      .poll(async () => (await h.call('get_post', { id: sent.body.post.id })).body.status)
      .toBe('published')
    await worker.idle()
    await worker.stop()

    clock.set(Date.UTC(2030, 5, 2, 12, 59))
    const within = await preflight('Doors open at nine', to('twitter', 'tw-1'))
    expect(within.blockers).toEqual([
      expect.stringContaining('the same copy was published at 2030-06-01 13:00 UTC'),
    ])
    clock.set(Date.UTC(2030, 5, 2, 13, 1))
    const after = await preflight('Doors open at nine', to('twitter', 'tw-1'))
    expect(after.ok).toBe(true)
    expect(after.blockers).toEqual([])
  })

  it('leaves create_post as it was: the check is preflight_post only', async () => {
    clock.set(Date.UTC(2030, 5, 1, 12, 0))
    const again = await h.call('create_post', {
      content: 'Summer sale starts now',
      ...to('twitter', 'tw-1'),
      scheduleDate: '2030-06-02',
      scheduleTime: '10:00',
    })
    expect(again.status).toBe(200)
  })
})
