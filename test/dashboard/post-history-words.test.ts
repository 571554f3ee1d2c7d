import { describe, expect, it } from 'vitest'
import { detailInWords, entryInWords, profileHistory } from '../../src/interfaces/dashboard/post-history.js'
import type { PostView } from '../../src/modules/publishing/schemas.js'

/** A profile's history on a post's page, in a manager's words: no tool names, no machine times. */
describe('the words of a post’s history', () => {
  const x = { platform: 'twitter' as const, username: 'acme' }
  const at = '2031-05-01T09:00:00.000Z'

  it.each([
    [{ kind: 'lookup', result: 'found' }, 'Looked on X: the post was there, so it was not sent again'],
    [{ kind: 'lookup', result: 'absent' }, 'Looked on X: the post was not there, so Herald sent it again'],
    [{ kind: 'attempt', result: 'published', sent: true }, 'Sent to X @acme: published'],
    [{ kind: 'attempt', result: 'published', sent: false }, 'Published on X @acme'],
    [{ kind: 'attempt', result: 'failed', sent: false }, 'Not sent to X @acme'],
    [
      { kind: 'interrupted', result: 'check' },
      'The send to X @acme was interrupted: Herald looks on X before sending anything again',
    ],
    [{ kind: 'reset', result: 'release' }, 'Released by a person: marked failed, to be retried'],
    [{ kind: 'retried', result: 'now' }, 'Retried now'],
    [{ kind: 'retried', result: 'rescheduled' }, 'Retried at a new time'],
  ] as const)('says %o as “%s”', (entry, words) => {
    expect(entryInWords({ at, ...entry }, x).text).toBe(words)
  })

  it('drops the schedule Herald appended and names buttons instead of tools', () => {
    expect(
      detailInWords(
        'X answered 503; Herald will look for the post on twitter at 2031-05-01T09:01:00Z before sending again',
      ),
    ).toBe('X had a problem on its side')
    expect(detailInWords('Timeout; retrying at 2031-05-01T09:01:00.000Z')).toBe('Timeout')
    const words = detailInWords('Check the profile, then reset_stuck_post and publish_post_now to retry.')
    expect(words).toBe('Check the profile, then “Reset stuck sending” and “Retry” to retry.')
  })

  const post = (target: Partial<PostView['targets'][number]>, extra: Partial<PostView> = {}): PostView =>
    ({
      id: 'p1',
      content: 'Launch',
      platforms: ['twitter'],
      targets: [{ ...x, profileId: 'tw-1', status: 'pending', ...target }],
      status: 'scheduled',
      scheduleDate: '2031-05-01',
      scheduleTime: '09:00',
      timezone: 'UTC',
      dueAt: null,
      mediaUrls: [],
      createdAt: '2031-04-30T08:00:00.000Z',
      attempts: 0,
      lastError: '',
      ...extra,
    }) as PostView

  it('orders the made, decided and recorded lines by time', () => {
    const lines = profileHistory(
      post(
        {
          history: [
            { at: '2031-05-01T09:00:00.000Z', kind: 'attempt', result: 'failed', sent: true, detail: 'No' },
            { at: '2031-05-02T09:00:00.000Z', kind: 'retried', result: 'approved' },
          ],
        },
        { approval: { state: 'approved', decidedAt: '2031-05-01T12:00:00.000Z' } },
      ),
    )
    expect(lines.map((l) => l.text)).toEqual([
      'Created',
      'Sent to X @acme: refused',
      'Approved by an owner',
      'Retried once an owner approved it',
    ])
  })

  it('tells a post older than its history from what its rows still say', () => {
    const lines = profileHistory(
      post({ status: 'failed', error: 'Refused' }, { status: 'failed', attempts: 2 }),
    )
    expect(lines.map((l) => [l.text, l.detail])).toEqual([
      ['Created', undefined],
      ['Sent to X @acme: 2 attempts', undefined],
      ['Failed on X @acme', 'Refused'],
    ])
  })
})
