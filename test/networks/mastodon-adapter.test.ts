import { describe, expect, it } from 'vitest'
import type { PublishFailure } from '../../src/adapters/adapter.js'
import { useFaultRig } from '../helpers/fault-rig.js'

describe('the Mastodon adapter against the Mastodon simulator', () => {
  const rig = useFaultRig([{ network: 'mastodon', username: 'alice@social.example' }])
  const instance = () => rig.h.sandboxes!.mastodon.instances.get('social.example')!

  it('connects @alice@social.example through the instance it names, registering Herald there once', () => {
    const who = rig.profile('mastodon')
    expect(who.profile.username).toBe('alice@social.example')
    expect(who.profile.profileId).toMatch(/^\d+@social\.example$/)
    expect(who.credentials.extra?.instance).toBe('social.example')
    expect([...instance().apps.values()].map((a) => a.name)).toEqual(['Herald'])
  })

  it('publishes a status with an image, its alt text, visibility, content warning and language', async () => {
    const result = await rig.publish('mastodon', 'Harbour at dawn #photo', [rig.media('harbour.jpg')], {
      mastodon: { visibility: 'unlisted', contentWarning: 'bright light', language: 'en' },
      media: [{ url: rig.media('harbour.jpg'), altText: 'Boats in the morning fog' }],
    } as never)
    if (result instanceof Error) throw result
    const status = instance().statuses.get(result.remoteId)!
    expect(status).toMatchObject({ visibility: 'unlisted', spoilerText: 'bright light', language: 'en' })
    expect(instance().media.get(status.mediaIds[0]!)?.description).toBe('Boats in the morning fog')
    expect(result.url).toContain('/sandbox/mastodon/web/social.example/@alice/')
  })

  it('refuses a status longer than the instance allows, with the content warning counted', async () => {
    const failure = (await rig.publish('mastodon', 'x'.repeat(495), [], {
      mastodon: { contentWarning: 'spoilers' },
    } as never)) as PublishFailure
    expect(failure.kind).toBe('invalid_content')
  })
})
