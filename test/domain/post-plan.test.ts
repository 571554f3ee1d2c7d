import { describe, expect, it } from 'vitest'
import { type ConnectionInfo, planPost } from '../../src/core/post-plan.js'

const connection = (
  platform: ConnectionInfo['platform'],
  profileId: string,
  status: ConnectionInfo['status'] = 'active',
): ConnectionInfo => ({
  id: `${platform}-${profileId}`,
  platform,
  profileId,
  username: profileId,
  status,
})

describe('post planning', () => {
  it('expands a network to its live profiles and leaves out one needing reconnect with a warning', () => {
    const plan = planPost({ content: 'Hi', platforms: ['twitter'] }, [
      connection('twitter', 'a'),
      connection('twitter', 'b', 'needs_reconnect'),
    ])
    expect(plan.targets.map((t) => t.connection.profileId)).toEqual(['a'])
    expect(plan.blockers).toEqual([])
    expect(plan.warnings).toEqual(['twitter @b is left out: it needs to be reconnected'])
  })

  it('blocks a network whose only profile needs reconnecting', () => {
    const plan = planPost({ content: 'Hi', platforms: ['twitter'] }, [
      connection('twitter', 'b', 'needs_reconnect'),
    ])
    expect(plan.blockers).toEqual(['twitter @b needs to be reconnected before it can publish'])
  })

  it('does not refuse long YouTube copy: the description keeps the first 5,000 characters', () => {
    const plan = planPost(
      {
        content: `Title\n${'x'.repeat(6000)}`,
        platforms: ['youtube'],
        mediaUrl: 'https://cdn.example.com/v.mp4',
      },
      [connection('youtube', 'UC1')],
    )
    expect(plan.blockers).toEqual([])
    expect(plan.warnings[0]).toMatch(/description keeps the first 5,000/)
    expect(plan.targets[0]?.youtube?.title).toBe('Title')
    expect(new TextEncoder().encode(plan.targets[0]?.youtube?.description).length).toBeLessThanOrEqual(5000)
    expect(plan.targets[0]?.youtube?.description.endsWith('#Shorts')).toBe(true)
  })

  it('counts the link surcharge once per call however many profiles', () => {
    const plan = planPost({ content: 'See https://example.com', platforms: ['linkedin', 'bluesky'] }, [
      connection('linkedin', 'l'),
      connection('bluesky', 'b'),
    ])
    expect(plan.cost).toBe(1 + 1 + 50)
  })
})
