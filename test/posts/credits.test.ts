import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerFor } from '../../src/platform/db/statements/credits.js'
import { backends } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, startHarness } from '../helpers/harness.js'

const slot = { scheduleDate: '2035-01-01', scheduleTime: '10:00' }

describe.each(backends)('credits on $name', (backend) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ backend, credits: 100 })
    await connectProfile(h, 'twitter', 'tw-1', 'acme')
    await connectProfile(h, 'twitter', 'tw-2', 'acme2')
    await connectProfile(h, 'linkedin', 'li-1', 'acme-li')
    await connectProfile(h, 'bluesky', 'did:plc:abc', 'acme.bsky.social')
  })
  afterAll(() => h.close())

  const balance = async () => (await h.call('get_user_info')).body.credits.balance as number

  it('moves the balance by exactly the charge: 5 per X profile, 1 per other profile', async () => {
    const before = await balance()
    const { body } = await h.call('create_post', {
      content: 'No links here',
      platforms: ['twitter', 'linkedin', 'bluesky'],
      ...slot,
    })
    expect(body.credits).toEqual({ charged: 5 + 5 + 1 + 1, remaining: before - 12 })
    expect(await balance()).toBe(before - 12)
  })

  it('adds a one-off 50 when the copy holds a link', async () => {
    const before = await balance()
    const { body } = await h.call('create_post', {
      content: 'Read https://example.com/post',
      platforms: ['linkedin', 'bluesky'],
      ...slot,
    })
    expect(body.credits.charged).toBe(1 + 1 + 50)
    expect(await balance()).toBe(before - 52)
  })

  it('quotes the same price in preflight_post without charging', async () => {
    const before = await balance()
    const { body } = await h.call('preflight_post', {
      content: 'Link: example.com',
      platforms: ['twitter'],
      ...slot,
    })
    expect(body.credits).toEqual({ cost: 5 + 5 + 50, balance: before, remainingAfter: before - 60 })
    expect(await balance()).toBe(before)
  })

  it('refuses a post the balance cannot pay with a 402 that creates and charges nothing', async () => {
    const before = await balance()
    const counts = (await h.call('list_posts')).body.counts
    const ledger = (await ledgerFor(h.app.store.db, h.workspaceId)).length
    const { status, body } = await h.call('create_post', {
      content: 'See https://example.com',
      platforms: ['twitter'],
      ...slot,
    })
    expect(status).toBe(402)
    expect(body.error).toMatchObject({
      code: 'insufficient_credits',
      details: { required: 60, balance: before },
    })
    expect(await balance()).toBe(before)
    expect((await h.call('list_posts')).body.counts).toEqual(counts)
    expect(await ledgerFor(h.app.store.db, h.workspaceId)).toHaveLength(ledger)
  })

  it('records every movement in the ledger with the balance after it', async () => {
    const ledger = await ledgerFor(h.app.store.db, h.workspaceId)
    let running = 0
    for (const row of ledger) {
      running += Number(row.delta)
      expect(Number(row.balance_after)).toBe(running)
    }
    expect(running).toBe(await balance())
  })

  it('never overdraws under concurrent create_post calls', async () => {
    const racer = await startHarness({ backend, credits: 50 })
    try {
      await connectProfile(racer, 'twitter', 'tw-r', 'racer')
      const attempts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          racer.call('create_post', { content: `race ${i}`, platforms: ['twitter'], ...slot }),
        ),
      )
      const ok = attempts.filter((a) => a.status === 200)
      const refused = attempts.filter((a) => a.status === 402)
      expect(ok).toHaveLength(10)
      expect(refused).toHaveLength(10)
      expect((await racer.call('get_user_info')).body.credits.balance).toBe(0)
      expect((await racer.call('list_posts')).body.counts.all).toBe(10)
    } finally {
      await racer.close()
    }
  })
})
