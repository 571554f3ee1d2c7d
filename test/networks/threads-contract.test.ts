import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  loadThreadsContract,
  type ThreadsContract,
  validateThreadsCall,
} from '../../src/sandbox/threads/contract.js'
import {
  COLLECTION,
  hasCollection,
  request,
  startThreadsWorld,
  type ThreadsWorld,
  threadsGrant,
} from './threads-fixtures.js'

describe.runIf(hasCollection)("the check of Threads requests against Meta's Threads collection", () => {
  let contract: ThreadsContract
  let world: ThreadsWorld

  beforeAll(async () => {
    contract = loadThreadsContract(COLLECTION)!
    world = await startThreadsWorld()
  })
  afterAll(() => world.close())

  it('finds the collection through the reference helper and from the source tree alike', () => {
    expect(loadThreadsContract()?.endpoints.length).toBe(contract.endpoints.length)
    expect(contract.fields.has('permalink')).toBe(true)
    expect(contract.metrics.has('followers_count')).toBe(true)
    expect([...contract.enums.get('media_type')!]).toEqual(
      expect.arrayContaining(['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL']),
    )
  })

  it('accepts every request the adapter sent while connecting, publishing each kind of post and reading insights', async () => {
    const grant = await threadsGrant(world, 'Contract Check')
    const posted = await world.threads.publish(
      request(grant.profile, grant.credentials, 'See https://example.com/a', []),
    )
    await world.threads.publish(
      request(grant.profile, grant.credentials, 'Set', [world.src('photo.jpg'), world.src('clip.mp4')]),
    )
    await world.threads.postMetrics({
      credentials: grant.credentials,
      profile: grant.profile,
      remoteId: posted.remoteId,
    })
    await world.threads.profileMetrics({ credentials: grant.credentials, profile: grant.profile })
    await world.threads.publishingAllowance!({ credentials: grant.credentials, profile: grant.profile })
    const sent = world.requests.map((r) => {
      const url = new URL(r.url)
      const params = Object.fromEntries([...url.searchParams, ...new URLSearchParams(r.body ?? '')])
      return { method: r.method, path: url.pathname.split('/graph')[1]!, params }
    })
    const paths = new Set(sent.map((s) => `${s.method} ${s.path.replace(/\d{6,}/g, '{id}')}`))
    expect([...paths].sort()).toEqual([
      'GET /access_token',
      'GET /v1.0/me',
      'GET /v1.0/{id}',
      'GET /v1.0/{id}/insights',
      'GET /v1.0/{id}/threads_insights',
      'GET /v1.0/{id}/threads_publishing_limit',
      'POST /oauth/access_token',
      'POST /v1.0/{id}/threads',
      'POST /v1.0/{id}/threads_publish',
    ])
    for (const call of sent) expect(validateThreadsCall(contract, call), JSON.stringify(call)).toEqual([])
    expect(world.sandbox.violations).toEqual([])
  })

  it('catches an unknown parameter, a misspelt field or metric, an unknown media_type and a path the collection lacks', () => {
    expect(
      validateThreadsCall(contract, {
        method: 'POST',
        path: '/v1.0/123/threads',
        params: { media_type: 'TEXT', txt: 'hi' },
      }),
    ).toEqual(['POST /123/threads: unknown parameter txt'])
    expect(
      validateThreadsCall(contract, {
        method: 'GET',
        path: '/v1.0/123',
        params: { fields: 'id,permalnk' },
      })[0],
    ).toMatch(/permalnk/)
    expect(
      validateThreadsCall(contract, {
        method: 'GET',
        path: '/v1.0/123/insights',
        params: { metric: 'views,impressions' },
      })[0],
    ).toMatch(/impressions is not a Threads metric/)
    expect(
      validateThreadsCall(contract, {
        method: 'POST',
        path: '/v1.0/123/threads',
        params: { media_type: 'REELS' },
      })[0],
    ).toMatch(/media_type=REELS/)
    expect(
      validateThreadsCall(contract, { method: 'POST', path: '/v1.0/123/media_publish', params: {} })[0],
    ).toMatch(/no such request/)
  })

  it('has the simulator refuse a request with an unknown parameter with (#100) and record it', async () => {
    const grant = await threadsGrant(world, 'Unknown Param')
    const before = world.sandbox.violations.length
    const response = await fetch(`${world.settings.graphUrl}/v1.0/${grant.profile.profileId}/threads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${grant.credentials.accessToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ media_type: 'TEXT', text: 'hi', caption: 'an Instagram word' }),
    })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { code: number; message: string } }
    expect(body.error.code).toBe(100)
    expect(body.error.message).toMatch(/unknown parameter caption/)
    expect(world.sandbox.violations.slice(before)).toEqual([
      `POST /${grant.profile.profileId}/threads: unknown parameter caption`,
    ])
    world.sandbox.violations.length = before
  })
})
