import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import type { Harness } from '../helpers/harness.js'
import { useSandboxPublishing } from '../helpers/sandbox-publishing.js'
import { solidImage } from '../media/fixtures.js'
import type { TestServer } from '../media/servers.js'

/**
 * Google Business Profile end to end in sandbox mode: `sandbox connect` connects every location of the
 * simulated business through the consent page and the choose-profiles page; an offer with a photo goes to
 * both locations through REST and through MCP, each published once (counted in the simulator's own state),
 * its photo fetched by the simulator from Herald's hosted copy, and its link opening the simulator's page of
 * the post with the offer's button.
 */
describe('Google Business Profile in sandbox mode, end to end', () => {
  const rig = useSandboxPublishing({
    simulator: 'googlebusiness',
    workerId: 'e2e-googlebusiness',
    files: async () => ({ '/loaf.jpg': { type: 'image/jpeg', bytes: await solidImage(1200, 900, 'jpeg') } }),
  })
  let h: Harness
  let sources: TestServer
  let locations: Array<{ profileId: string; username: string }>
  beforeAll(async () => {
    ;({ h, sources } = rig)
    const connected = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'googlebusiness',
      username: 'Harbour Bakery',
    })
    locations = (connected.profiles ?? [connected]).map((p) => ({
      profileId: p.profileId,
      username: p.username,
    }))
  }, 60_000)

  const offer = (content: string) => ({
    content,
    platforms: ['googlebusiness'],
    mediaUrl: `${sources.url}/loaf.jpg`,
    googlebusiness: {
      type: 'offer',
      event: { title: 'Two loaves for one', startDate: '2026-10-01', endDate: '2026-10-31' },
      offer: {
        couponCode: 'TWOFOR1',
        termsConditions: 'One per visit.',
        redeemOnlineUrl: 'https://harbour.example/offer',
      },
    },
    publishImmediately: true,
  })
  const copiesOf = async (content: string) => {
    const state = await rig.state()
    return (state.localPosts as any[]).filter((p) => p.summary === content)
  }

  it('connects both locations of the business, each its own profile', async () => {
    expect(locations).toHaveLength(2)
    expect(locations.map((l) => l.username)).toEqual([
      'harbour-bakery-high-street',
      'harbour-bakery-station-road',
    ])
    const accounts = await rig.call('get_connected_accounts', {})
    const gbp = (accounts.body as any[]).filter((a) => a.platform === 'googlebusiness')
    expect(gbp.map((a) => a.profileId).sort()).toEqual(locations.map((l) => l.profileId).sort())
  })

  it('publishes an offer with a photo to both locations through REST, once each', async () => {
    const content = 'Fresh sourdough at both shops this October (REST)'
    const { status, body } = await rig.call('create_post', offer(content))
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.posts).toHaveLength(2)
    for (const post of body.posts) {
      expect(post.status, JSON.stringify(post)).toBe('published')
      expect(post.googlebusiness).toMatchObject({ type: 'offer', offer: { couponCode: 'TWOFOR1' } })
    }
    const copies = await copiesOf(content)
    expect(copies).toHaveLength(2)
    expect(copies.map((c) => c.location).sort()).toEqual(locations.map((l) => l.profileId).sort())
    for (const copy of copies) {
      expect(copy).toMatchObject({
        topicType: 'OFFER',
        event: { title: 'Two loaves for one' },
        offer: { couponCode: 'TWOFOR1', redeemOnlineUrl: 'https://harbour.example/offer' },
        photo: { format: 'jpeg' },
      })
      expect(copy.media).toHaveLength(1)
    }
    // The simulator fetched Herald's hosted copy, not the source.
    const state = await rig.state()
    expect((state.fetches as any[]).every((f) => f.ok && f.url.startsWith(h.baseUrl))).toBe(true)

    const page = await fetch(body.posts[0].targets[0].url)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Get offer')
    expect(html).toContain('href="https://harbour.example/offer"')
    expect(html).toContain('TWOFOR1')
  }, 60_000)

  it('publishes the same kind of offer through MCP, once each', async () => {
    const content = 'Fresh sourdough at both shops this October (MCP)'
    const client = new Client({ name: 'herald-e2e', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': h.apiKey } },
      }),
    )
    try {
      const result = await client.callTool({ name: 'create_post', arguments: offer(content) })
      expect(result.isError).toBeFalsy()
      const body = JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
      expect(body.posts.map((p: { status: string }) => p.status)).toEqual(['published', 'published'])
    } finally {
      await client.close()
    }
    const copies = await copiesOf(content)
    expect(copies).toHaveLength(2)
    expect(new Set(copies.map((c) => c.location)).size).toBe(2)
  }, 60_000)

  it('reads each location’s figures and says per-post figures are not offered', async () => {
    const profile = await rig.call('get_profile_analytics', {
      platform: 'googlebusiness',
      profileId: locations[0]!.profileId,
      refresh: true,
    })
    expect(profile.status, JSON.stringify(profile.body)).toBe(200)
    const { analytics } = profile.body
    expect(analytics.summary.views).toBeGreaterThan(0)
    expect(analytics.summary).toMatchObject({ followers: null, following: null, posts: null })
    expect(analytics.metrics).toMatchObject({
      calls: expect.any(Number),
      websiteClicks: expect.any(Number),
      directionRequests: expect.any(Number),
      searches: expect.any(Number),
    })
    expect(analytics.metrics.views).toBe(analytics.summary.views)

    const listed = await rig.call('list_posts', { network: 'googlebusiness' })
    const id = (listed.body.posts ?? listed.body)[0].id
    const post = await rig.call('get_post_analytics', { id, refresh: true })
    expect(post.status, JSON.stringify(post.body)).toBe(200)
    expect(JSON.stringify(post.body)).toContain('"unavailable":true')
    expect(JSON.stringify(post.body)).toContain('Google offers no figures per post')
  }, 60_000)
})
