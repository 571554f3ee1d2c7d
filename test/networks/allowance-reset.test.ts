import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { facebookGrant, type MetaWorld, request as metaRequest, startMetaWorld } from './meta-fixtures.js'
import {
  startThreadsWorld,
  type ThreadsWorld,
  threadsGrant,
  request as threadsRequest,
} from './threads-fixtures.js'

/**
 * Rate-limit waits, the adapter's side: an exhausted publishing allowance waits until the time the network's
 * own numbers give, not a guessed hour. Instagram's `content_publishing_limit` and Threads'
 * `threads_publishing_limit` report the posts used in a rolling window of `config.quota_duration` seconds;
 * the allowance frees a post when the oldest post in the window leaves it, so the wait ends at the oldest
 * post's time plus the window.
 */

const HOUR = 60 * 60_000

async function failureOf(promise: Promise<unknown>): Promise<PublishFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof PublishFailure)) throw new Error(`expected a PublishFailure, got ${String(error)}`)
  return error
}

describe('an Instagram allowance used up', () => {
  let world: MetaWorld
  beforeAll(async () => {
    world = await startMetaWorld({ quotaTotal: 5 })
  })
  afterAll(() => world.close())

  it('waits until the oldest post of the 24-hour window leaves it', async () => {
    const { ig } = await facebookGrant(world, 'Allowance Bakery')
    const igUserId = ig.profile.profileId
    // Graph answers times to the second.
    const oldest = Math.floor((Date.now() - 20 * HOUR) / 1000) * 1000
    const times = [0, 2, 5, 9, 14].map((h) => oldest + h * HOUR)
    world.sandbox.publishTimes.set(igUserId, times)
    for (const [i, at] of times.entries()) {
      const id = world.sandbox.newId('18')
      world.sandbox.media.set(id, {
        id,
        igUserId,
        caption: `Earlier post ${i}`,
        mediaType: 'IMAGE',
        productType: 'FEED',
        shortcode: `allow${id}`,
        createdAt: at,
        children: [],
      })
    }
    const failure = await failureOf(
      world.instagram.publish(
        metaRequest(ig.profile, ig.credentials, 'One too many', [world.src('photo.jpg')]),
      ),
    )
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(oldest + 24 * HOUR)
    expect(world.sandbox.violations).toEqual([])
  })
})

describe('a Threads allowance used up', () => {
  let world: ThreadsWorld
  beforeAll(async () => {
    world = await startThreadsWorld({ quotaTotal: 4 })
  })
  afterAll(() => world.close())

  it('waits until the oldest post of the 24-hour window leaves it', async () => {
    const grant = await threadsGrant(world, 'Allowance Harbour')
    const userId = grant.profile.profileId
    const oldest = Math.floor((world.now() - 21 * HOUR) / 1000) * 1000
    const times = [0, 1, 3, 8].map((h) => oldest + h * HOUR)
    world.sandbox.publishTimes.set(userId, times)
    for (const [i, at] of times.entries()) {
      const id = world.sandbox.newId('17')
      world.sandbox.threads.set(id, {
        id,
        userId,
        text: `Earlier thread ${i}`,
        mediaType: 'TEXT_POST',
        shortcode: `allow${id}`,
        children: [],
        createdAt: at,
      })
    }
    const failure = await failureOf(
      world.threads.publish(threadsRequest(grant.profile, grant.credentials, 'One too many', [])),
    )
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(oldest + 24 * HOUR)
    const allowance = await world.threads.publishingAllowance!({
      credentials: grant.credentials,
      profile: grant.profile,
    })
    expect(allowance).toEqual({ used: 4, total: 4, windowHours: 24 })
    expect(world.sandbox.violations).toEqual([])
  })
})
