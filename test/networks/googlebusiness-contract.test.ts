import { describe, expect, it } from 'vitest'
import { DiscoveryRequestValidator, loadDiscovery } from '../helpers/discovery-request-validator.js'
import { GOOGLE_BUSINESS_DOCUMENTS } from '../helpers/gbp-discovery.js'
import { useGbpRig } from './googlebusiness-fixtures.js'

/**
 * The Google Business Profile adapter and its simulator held to Google's own discovery documents of the
 * four APIs (../shared/reference/openapi): every call the adapter makes while connecting, publishing each
 * kind of post, looking one up and reading figures is a method of its host's document with only the
 * parameters and body fields that method takes, and every answer the simulator gives matches the
 * method's response schema (unknown fields refused).
 */

const posts = loadDiscovery(GOOGLE_BUSINESS_DOCUMENTS.postsUrl)

describe('Google Business Profile against Google’s discovery documents', () => {
  const rig = useGbpRig('Contract Bakery')

  it('makes only calls the documents describe, and the simulator answers only what they describe', async (context) => {
    if (!rig.validation) return context.skip()
    const { adapter } = rig
    const { profile, credentials } = rig.location(0)
    const profiles = await adapter.oauth!.listProfiles!(credentials)
    expect(profiles.map((p) => p.profile.name)).toContain('Contract Bakery – High Street')
    expect(await adapter.resolveProfile(credentials)).toMatchObject({ profileId: profile.profileId })

    const update = await adapter.publish(
      rig.request(0, 'Warm rolls from seven, every day', {
        googlebusiness: {
          type: 'update',
          callToAction: { actionType: 'ORDER', url: 'https://contract.example/order' },
        },
        mediaUrls: [rig.media('rolls.jpg')],
      }),
    )
    const event = await adapter.publish(
      rig.request(0, 'Bread-making morning for children', {
        googlebusiness: {
          type: 'event',
          event: {
            title: 'Little bakers',
            startDate: '2026-11-07',
            startTime: '09:30',
            endDate: '2026-11-07',
            endTime: '11:00',
          },
          callToAction: { actionType: 'CALL' },
        },
      }),
    )
    const offer = await adapter.publish(
      rig.request(0, '', {
        googlebusiness: {
          type: 'offer',
          event: { title: 'Half-price loaves after four', startDate: '2026-11-01', endDate: '2026-11-30' },
          offer: {
            couponCode: 'AFTER4',
            termsConditions: 'While stocks last.',
            redeemOnlineUrl: 'https://contract.example/after4',
          },
        },
      }),
    )
    const since = rig.h.app.clock.now() - 60_000
    expect(
      await adapter.findPublished!({
        ...rig.request(0, 'Bread-making morning for children'),
        since,
        googlebusiness: {
          type: 'event',
          event: {
            title: 'Little bakers',
            startDate: '2026-11-07',
            startTime: '09:30',
            endDate: '2026-11-07',
            endTime: '11:00',
          },
        },
      }),
    ).toEqual({ kind: 'found', result: event })
    expect(
      await adapter.findPublished!({
        ...rig.request(0, 'Warm rolls from seven, every day'),
        since,
        progress: { localPost: update.remoteId },
      }),
    ).toEqual({ kind: 'found', result: update })
    const reading = await adapter.profileMetrics({ credentials, profile })
    expect(reading.summary.views).toBeGreaterThan(0)
    expect(offer.remoteId).toMatch(/^accounts\/\d+\/locations\/\d+\/localPosts\/\d+$/)

    const methods = new Set(rig.validation.checked.map((c) => c.methodId))
    expect([...methods].sort()).toEqual([
      'businessprofileperformance.locations.fetchMultiDailyMetricsTimeSeries',
      'mybusiness.accounts.locations.localPosts.create',
      'mybusiness.accounts.locations.localPosts.get',
      'mybusiness.accounts.locations.localPosts.list',
      'mybusinessaccountmanagement.accounts.list',
      'mybusinessbusinessinformation.accounts.locations.list',
      'mybusinessbusinessinformation.locations.get',
    ])
    expect(rig.validation.problems).toEqual([])
    expect(rig.validation.responseProblems).toEqual([])
  }, 60_000)

  it('refuses what the v4 document does not allow on a local post', (context) => {
    if (!posts) return context.skip()
    const validator = new DiscoveryRequestValidator(posts, { apiUrl: 'http://127.0.0.1:1/mybusiness' })
    const check = (method: string, path: string, body?: unknown) =>
      validator.check({
        method,
        url: new URL(`http://127.0.0.1:1/mybusiness${path}`),
        headers: new Headers({ 'content-type': 'application/json' }),
        body,
      })
    const create = '/v4/accounts/1/locations/2/localPosts'
    expect(check('POST', create, { summary: 'x', topicType: 'STANDARD' }).problems).toEqual([])
    expect(check('POST', create, { summary: 'x', topicType: 'NEWS' }).problems.join()).toContain(
      'allowed values',
    )
    expect(
      check('POST', create, { summary: 'x', topicType: 'STANDARD', button: {} }).problems.join(),
    ).toContain('(button)')
    expect(check('GET', `${create}?pageSize=100&pageToken=abc`).problems).toEqual([])
    expect(check('GET', `${create}?limit=100`).problems.join()).toContain('unknown query parameter limit')
    expect(check('GET', `${create}/3`).methodId).toBe('mybusiness.accounts.locations.localPosts.get')
  })
})
