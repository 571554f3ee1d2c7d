import { describe, expect, it } from 'vitest'
import { NO_API_ACCESS_MESSAGE } from '../../src/adapters/googlebusiness/index.js'
import { REJECTED_MESSAGE } from '../../src/adapters/googlebusiness/publish.js'
import { afterEffect500, before500 } from '../helpers/fault-script.js'
import { useGbpRig } from './googlebusiness-fixtures.js'

/**
 * What the Google Business Profile adapter makes of each answer the simulated Google gives: a created post
 * is published (its name saved at once), a refusal of the content fails it with Google's words, a
 * rejection by moderation says so, a project without API access says that in words, a rate limit waits
 * for the minute's quota, a revoked sign-in asks for a reconnect, and any other answer to the creation
 * (late, cut, a 5xx before or after Google made the post) is an unknown outcome for the lookup. Copies
 * are counted in the simulator.
 */

const failureOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: Error & { kind?: string; options?: Record<string, unknown> }) => error,
  )

describe('the Google Business Profile adapter', () => {
  const rig = useGbpRig('Outcome Bakery')
  const copies = (summary: string) =>
    [...rig.sandbox.posts.values()].filter((p) => p.post.summary === summary)
  const create = { network: 'googlebusiness', operation: 'localPosts.create' } as const

  it('publishes an update with a photo and a button, saving the post’s name as soon as Google answers', async () => {
    const saved: Record<string, string>[] = []
    const result = await rig.adapter.publish(
      rig.request(0, 'New seeded rye today', {
        mediaUrls: [rig.media('rye.jpg')],
        googlebusiness: {
          type: 'update',
          callToAction: { actionType: 'LEARN_MORE', url: 'https://outcome.example' },
        },
        saveProgress: async (entries) => {
          saved.push(entries)
        },
      }),
    )
    const [copy] = copies('New seeded rye today')
    expect(copies('New seeded rye today')).toHaveLength(1)
    expect(result).toEqual({ remoteId: copy!.name, url: rig.sandbox.searchUrl(copy!) })
    expect(saved).toEqual([{ localPost: copy!.name }])
    expect(copy!.post).toMatchObject({
      topicType: 'STANDARD',
      callToAction: { actionType: 'LEARN_MORE', url: 'https://outcome.example' },
    })
    expect(copy!.photo).toMatchObject({ format: 'jpeg' })
  })

  it('says in words that Google has not granted the project access when every call meets a quota of 0', async () => {
    rig.sandbox.accessGranted = false
    try {
      const failure = await failureOf(rig.adapter.publish(rig.request(0, 'Refused for want of access')))
      expect(failure).toMatchObject({ kind: 'invalid_content', message: NO_API_ACCESS_MESSAGE })
      expect(failure.options).toMatchObject({ code: 'apiAccessNotGranted', status: 429 })
      expect(failure.message).toContain('Basic API Access')
      const listing = await failureOf(rig.adapter.oauth!.listProfiles!(rig.location(0).credentials))
      expect(listing).toMatchObject({ kind: 'invalid_content', message: NO_API_ACCESS_MESSAGE })
    } finally {
      rig.sandbox.accessGranted = true
    }
    expect(copies('Refused for want of access')).toHaveLength(0)
  })

  it('waits for the minute’s quota on a rate limit (Google sends no reset time)', async () => {
    rig.script.on(create, { timing: 'before', answer: { kind: 'status', status: 429 } })
    const before = rig.h.app.clock.now()
    const failure = await failureOf(rig.adapter.publish(rig.request(0, 'Throttled once')))
    expect(failure.kind).toBe('rate_limited')
    expect(Number(failure.options?.resetAt)).toBeGreaterThanOrEqual(before + 59_000)
    expect(copies('Throttled once')).toHaveLength(0)
  })

  it('fails a post Google’s moderation rejects, saving nothing', async () => {
    const saved: unknown[] = []
    const failure = await failureOf(
      rig.adapter.publish(
        rig.request(1, 'Try our SANDBOX-REJECT loaf', { saveProgress: async (e) => void saved.push(e) }),
      ),
    )
    expect(failure).toMatchObject({ kind: 'invalid_content', message: REJECTED_MESSAGE })
    expect(saved).toEqual([])
  })

  it('fails content Google refuses with Google’s own words', async () => {
    const failure = await failureOf(rig.adapter.publish(rig.request(0, 'x'.repeat(1501))))
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toContain('summary')
  })

  it.each([
    ['a 500 after Google made the post', afterEffect500, 1],
    [
      'a cut connection after Google made the post',
      { timing: 'after', answer: { kind: 'reset' } } as const,
      1,
    ],
    ['a 503 before anything was made', before500, 0],
  ])('takes %s for an unknown outcome, and the lookup tells which', async (_what, fault, made) => {
    const content = `Unanswered: ${_what}`
    rig.script.on(create, fault)
    const request = rig.request(0, content)
    const since = rig.h.app.clock.now()
    const failure = await failureOf(rig.adapter.publish(request))
    expect(failure.kind).toBe('unknown_outcome')
    expect(copies(content)).toHaveLength(made)
    const answer = await rig.adapter.findPublished!({ ...request, since })
    if (made === 0) expect(answer).toEqual({ kind: 'absent' })
    else
      expect(answer).toEqual({
        kind: 'found',
        result: { remoteId: copies(content)[0]!.name, url: expect.any(String) },
      })
  })

  it('takes an answer that never comes for an unknown outcome', async () => {
    rig.script.on(create, { timing: 'after', answer: { kind: 'hang' } })
    const content = 'Answered too late'
    const request = { ...rig.request(0, content), signal: AbortSignal.timeout(500) }
    const failure = await failureOf(rig.adapter.publish(request))
    expect(failure.kind).toBe('unknown_outcome')
    expect(copies(content)).toHaveLength(1)
  })

  // Last: both locations share the grant's token, which this revokes.
  it('asks for a reconnect once the Google user removed the app', async () => {
    const { credentials } = rig.location(1)
    rig.sandbox.oauth.revoke({ token: credentials.accessToken })
    const failure = await failureOf(rig.adapter.publish(rig.request(1, 'After the sign-in was revoked')))
    expect(failure.kind).toBe('auth_expired')
    const refreshed = await rig.adapter.refresh(credentials)
    expect(refreshed.accessToken).not.toBe(credentials.accessToken)
  })
})

describe('looking up a Google Business Profile post', () => {
  const rig = useGbpRig('Lookup Bakery')
  const seed = (index: 0 | 1, post: Record<string, unknown>, count = 1) => {
    const location = rig.sandbox.locations.get(rig.location(index).profile.profileId)!
    return Array.from({ length: count }, () => rig.sandbox.addPost(location, post))
  }
  const look = (index: 0 | 1, content: string, extra: Record<string, unknown> = {}) =>
    rig.adapter.findPublished!({
      ...rig.request(index, content),
      since: rig.h.app.clock.now() - 1000,
      ...extra,
    })

  it('finds the one post with what Herald sent, among many, reading page after page', async () => {
    seed(0, { summary: 'Someone else’s post', topicType: 'STANDARD' }, 230)
    const [ours] = seed(0, { summary: 'Ours  among\nmany', topicType: 'STANDARD' })
    seed(0, { summary: 'Someone else’s post', topicType: 'STANDARD' }, 20)
    const answer = await look(0, 'Ours among many')
    expect(answer).toEqual({
      kind: 'found',
      result: { remoteId: ours!.name, url: rig.sandbox.searchUrl(ours!) },
    })
  })

  it('reads past short and empty pages that still carry a token', async () => {
    const [ours] = seed(1, { summary: 'Behind short pages', topicType: 'STANDARD' })
    seed(1, { summary: 'Newer post', topicType: 'STANDARD' }, 5)
    rig.script.shortPages({ network: 'googlebusiness', operation: 'localPosts.list' }, 0, 2)
    rig.script.shortPages({ network: 'googlebusiness', operation: 'localPosts.list' }, 2, 1)
    expect(await look(1, 'Behind short pages')).toMatchObject({
      kind: 'found',
      result: { remoteId: ours!.name },
    })
  })

  it('tells an update from an event and an offer with the same copy', async () => {
    seed(1, { summary: 'Same words', topicType: 'STANDARD' })
    const [event] = seed(1, {
      summary: 'Same words',
      topicType: 'EVENT',
      event: {
        title: 'Open day',
        schedule: { startDate: { year: 2026, month: 9, day: 1 }, endDate: { year: 2026, month: 9, day: 1 } },
      },
    })
    const answer = await look(1, 'Same words', {
      googlebusiness: {
        type: 'event',
        event: { title: 'Open day', startDate: '2026-09-01', endDate: '2026-09-01' },
      },
    })
    expect(answer).toMatchObject({ kind: 'found', result: { remoteId: event!.name } })
  })

  it('cannot tell between two posts that both carry what Herald sent', async () => {
    seed(0, { summary: 'Posted twice by hand', topicType: 'STANDARD' }, 2)
    const answer = await look(0, 'Posted twice by hand')
    expect(answer.kind).toBe('ambiguous')
    expect((answer as { reason: string }).reason).toContain('2 posts since the attempt')
  })

  it('never takes a post another target holds, nor a rejected one', async () => {
    const [held] = seed(0, { summary: 'Held elsewhere', topicType: 'STANDARD' })
    expect(await look(0, 'Held elsewhere', { excludeRemoteIds: [held!.name] })).toEqual({ kind: 'absent' })
    rig.sandbox.rejectPhrase = 'REJECTED-ONE'
    seed(0, { summary: 'A REJECTED-ONE post', topicType: 'STANDARD' })
    rig.sandbox.rejectPhrase = 'SANDBOX-REJECT'
    expect(await look(0, 'A REJECTED-ONE post')).toEqual({ kind: 'absent' })
  })

  it('calls a match of copy that says nothing ambiguous', async () => {
    seed(1, { topicType: 'STANDARD', media: [] })
    const answer = await look(1, '')
    expect(answer.kind).toBe('ambiguous')
  })

  it('says it cannot be sure when the location has more posts than it reads back', async () => {
    seed(1, { summary: 'Filler', topicType: 'STANDARD' }, 1010)
    const answer = await look(1, 'Never posted')
    expect(answer.kind).toBe('ambiguous')
    expect((answer as { reason: string }).reason).toContain(
      'more posts since the attempt than Herald reads back',
    )
  })
})
