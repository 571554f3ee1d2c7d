import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Harness } from '../helpers/harness.js'
import { usePreflightRig } from '../helpers/preflight-rig.js'

/**
 * Preflight and create_post rules for Google Business Profile: the summary's 1,500 characters, one photo
 * (a video or a carousel is refused with the reason), what an update, an event and an offer each need,
 * the button's URL rules, no comments on a post, and the `googlebusiness` object ignored elsewhere.
 */
describe('preflight for Google Business Profile', () => {
  const rig = usePreflightRig(
    async (h) => {
      const connected = await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'googlebusiness',
        username: 'Rules Bakery',
      })
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'bluesky', username: 'rulesbakery' })
      return connected
    },
    { targetAccounts: [{ platform: 'googlebusiness', username: 'rules-bakery-high-street' }] },
  )
  const { url, preflight } = rig
  const who = 'googlebusiness @rules-bakery-high-street'
  let h: Harness
  beforeAll(() => {
    h = rig.h
  })

  it('passes an update with a photo and a button, an event and an offer', async () => {
    const update = await preflight({
      content: 'Fresh today',
      mediaUrl: url('loaf.jpg'),
      googlebusiness: { callToAction: { actionType: 'ORDER', url: 'https://rules.example/order' } },
    })
    expect(update.blockers).toEqual([])
    expect(update.ok).toBe(true)
    const event = await preflight({
      content: 'Come and knead',
      googlebusiness: {
        type: 'event',
        event: {
          title: 'Open bakery',
          startDate: '2026-11-01',
          startTime: '10:00',
          endDate: '2026-11-01',
          endTime: '12:00',
        },
        callToAction: { actionType: 'CALL' },
      },
    })
    expect(event.blockers).toEqual([])
    const offer = await preflight({
      content: '',
      googlebusiness: {
        type: 'offer',
        event: { title: 'Ten percent off', startDate: '2026-11-01', endDate: '2026-11-30' },
        offer: {
          couponCode: 'TEN',
          redeemOnlineUrl: 'https://rules.example/ten',
          termsConditions: 'In store only.',
        },
      },
    })
    expect(offer.blockers).toEqual([])
  })

  it('refuses a video and a carousel, each with the reason', async () => {
    const video = await preflight({ content: 'A clip', mediaUrl: url('clip.mp4') })
    expect(video.ok).toBe(false)
    expect(video.blockers.join('\n')).toContain(
      `${who}: ${url('clip.mp4')} looks like a video; a Google Business Profile post takes a photo, not a video (Google accepts no video on posts)`,
    )
    const set = await preflight({ content: 'Two photos', mediaUrls: [url('a.jpg'), url('b.jpg')] })
    expect(set.ok).toBe(false)
    expect(set.blockers).toContain(
      `${who}: 2 attachments; a Google Business Profile post shows one photo; carousels of several are not available there`,
    )
  })

  it('counts the summary against its 1,500 characters and reports the limit', async () => {
    const long = await preflight({ content: 'x'.repeat(1501) })
    expect(long.blockers).toContain(`${who}: the copy is 1501 characters; googlebusiness allows 1500`)
    const answer = await h.call('preflight_post', { content: 'x', platforms: ['googlebusiness'] })
    expect(answer.body.limits.googlebusiness).toBe(1500)
  })

  it.each([
    [
      { type: 'event' },
      'googlebusiness.event: googlebusiness @rules-bakery-high-street: an event needs its title and dates',
    ],
    [
      {
        type: 'offer',
        event: { title: 'x', startDate: '2026-11-01', endDate: '2026-11-30' },
        callToAction: { actionType: 'SHOP', url: 'https://rules.example' },
      },
      'an offer shows Google’s own “Get offer” button',
    ],
    [
      { callToAction: { actionType: 'CALL', url: 'https://rules.example' } },
      'a Call now button calls the profile’s phone number and takes no URL',
    ],
    [{ callToAction: { actionType: 'BOOK' } }, 'a Book button needs the URL it opens'],
    [{ offer: { couponCode: 'X' } }, 'coupon, terms and redemption link belong to an offer'],
    [
      { event: { title: 'x', startDate: '2026-11-01', endDate: '2026-11-02' } },
      'an update has no title or dates',
    ],
    [
      { type: 'event', event: { title: 'x', startDate: '2026-11-05', endDate: '2026-11-02' } },
      'the event ends (2026-11-02 23:59) before it starts',
    ],
    [
      { type: 'event', event: { title: 'x', startDate: '2026-02-30', endDate: '2026-03-02' } },
      '2026-02-30 is not a date',
    ],
    [
      {
        type: 'event',
        event: { title: 'x', startDate: '2026-11-01', startTime: '10:00', endDate: '2026-11-01' },
      },
      'give both startTime and endTime, or neither for whole days',
    ],
    [
      { type: 'event', event: { title: ' ', startDate: '2026-11-01', endDate: '2026-11-01' } },
      'the event needs a title',
    ],
  ])('blocks %j', async (googlebusiness, blocker) => {
    const answer = await preflight({ content: 'Copy', googlebusiness })
    expect(answer.ok).toBe(false)
    expect(answer.blockers.join('\n')).toContain(blocker)
  })

  it('refuses malformed details with a 400 naming the field, on create_post too', async () => {
    for (const tool of ['preflight_post', 'create_post']) {
      const answer = await h.call(tool, {
        content: 'Copy',
        platforms: ['googlebusiness'],
        googlebusiness: { type: 'alert' },
        publishImmediately: true,
      })
      expect(answer.status).toBe(400)
      expect(JSON.stringify(answer.body)).toContain('googlebusiness')
    }
    const badDate = await h.call('create_post', {
      content: 'Copy',
      platforms: ['googlebusiness'],
      googlebusiness: { type: 'event', event: { title: 'x', startDate: '1 Nov', endDate: '2026-11-02' } },
      publishImmediately: true,
    })
    expect(badDate.status).toBe(400)
    expect(JSON.stringify(badDate.body)).toContain('must be a date, YYYY-MM-DD')
  })

  it('refuses on create_post what preflight blocks, creating nothing', async () => {
    const before = (await h.call('list_posts', {})).body
    const refused = await h.call('create_post', {
      content: 'A clip',
      platforms: ['googlebusiness'],
      mediaUrl: url('clip.mp4'),
      publishImmediately: true,
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error.details.blockers.join('\n')).toContain('takes a photo, not a video')
    expect((await h.call('list_posts', {})).body).toEqual(before)
  })

  it('leaves the shared first comment out with a warning, and blocks one named for Google Business Profile', async () => {
    const shared = await preflight({ content: 'Copy', firstComment: 'More at the counter' })
    expect(shared.ok).toBe(true)
    expect(shared.warnings).toContain(
      `${who}: googlebusiness takes no first comments; the first comment is left out there`,
    )
    const named = await preflight({ content: 'Copy', firstCommentVariants: { googlebusiness: 'More' } })
    expect(named.blockers).toContain(`firstCommentVariants: ${who}: googlebusiness takes no first comments`)
  })

  it('ignores the googlebusiness object on other networks', async () => {
    const answer = await h.call('preflight_post', {
      content: 'Only for Bluesky',
      platforms: ['bluesky'],
      googlebusiness: { type: 'event' },
    })
    expect(answer.status).toBe(200)
    expect(answer.body.blockers).toEqual([])
  })

  it('lets update_post replace the details of a scheduled post, checked like create_post', async () => {
    const created = await h.call('create_post', {
      content: 'Weekend offer',
      platforms: ['googlebusiness'],
      scheduleDate: '2030-05-04',
      scheduleTime: '09:00',
      googlebusiness: {
        type: 'offer',
        event: { title: 'Weekend loaves', startDate: '2030-05-04', endDate: '2030-05-05' },
        offer: { couponCode: 'WEEKEND' },
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const [id] = created.body.postIds as string[]
    const updated = await h.call('update_post', {
      id,
      googlebusiness: { callToAction: { actionType: 'LEARN_MORE', url: 'https://rules.example/weekend' } },
    })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect(updated.body.post.googlebusiness).toEqual({
      callToAction: { actionType: 'LEARN_MORE', url: 'https://rules.example/weekend' },
    })
    const targets = await h.app.store.db
      .selectFrom('targets')
      .select('googlebusiness')
      .where('post_id', '=', id!)
      .execute()
    for (const target of targets)
      expect(JSON.parse(target.googlebusiness ?? 'null')).toEqual({
        type: 'update',
        callToAction: { actionType: 'LEARN_MORE', url: 'https://rules.example/weekend' },
      })
    const refused = await h.call('update_post', { id, googlebusiness: { type: 'event' } })
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toContain('an event needs its title and dates')
  })
})
