import { describe, expect, it } from 'vitest'
import { failureFromGraph } from '../../src/adapters/meta/errors.js'
import {
  HOSTED_MEDIA_UNREACHABLE,
  isPropagationLag,
  threadsFailure,
} from '../../src/adapters/threads/errors.js'

const NOW = Date.parse('2026-11-24T12:00:00Z')

/** A Graph answer from graph.threads.net classified as the Threads adapter does. */
const classify = (status: number, error: Record<string, unknown>) =>
  threadsFailure(
    failureFromGraph(
      {
        status,
        headers: new Headers(),
        body: { error: { type: 'OAuthException', fbtrace_id: 'x', ...error } },
      },
      { label: 'Threads', now: NOW, secrets: ['THQsecret-token-value'] },
    ),
  )

describe("Threads' error classification", () => {
  it.each([
    [
      400,
      { code: 190, error_subcode: 463, message: 'Error validating access token: Session has expired' },
      'auth_expired',
      /access token is expired or was revoked; reconnect/,
    ],
    [
      400,
      { code: 190, message: 'Error validating access token: THQsecret-token-value is invalid' },
      'auth_expired',
      /\[redacted\]/,
    ],
    [
      403,
      { code: 10, message: '(#10) Application does not have permission for this action' },
      'auth_expired',
      /permission is missing.*reconnect/,
    ],
    [
      400,
      { code: 1, error_subcode: 2207051, message: 'We restrict certain activity to protect our community.' },
      'invalid_content',
      /We restrict certain activity/,
    ],
    [400, { code: 2207051, message: 'Action blocked' }, 'invalid_content', /Action blocked/],
    [
      400,
      { code: 100, error_subcode: 4279013, error_user_msg: 'This account is restricted from posting.' },
      'invalid_content',
      /restricted from posting/,
    ],
    [
      400,
      {
        code: 100,
        error_subcode: 2207052,
        message: 'The media could not be fetched from this URI: https://h/media/a.jpg',
      },
      'invalid_content',
      /could not fetch Herald's hosted copy/,
    ],
    [
      400,
      { code: 100, message: 'text must be at most 500 characters' },
      'invalid_content',
      /at most 500 characters/,
    ],
    [400, { code: 4, message: '(#4) Application request limit reached' }, 'rate_limited', /rate limit/],
    [
      400,
      { code: 9, message: 'Publishing limit reached' },
      'rate_limited',
      /publishing limit reached for the last 24 hours/,
    ],
    [
      500,
      { code: 2, message: 'Service temporarily unavailable', is_transient: true },
      'transient',
      /temporary problem/,
    ],
    [
      400,
      { code: 24, error_subcode: 4279009, message: '(#24) The requested resource does not exist' },
      'invalid_content',
      /\(error 24\/4279009\)/,
    ],
  ])('answer %i %j is %s', (status, error, kind, message) => {
    const failure = classify(status, error)
    expect(failure.kind).toBe(kind)
    expect(failure.message).toMatch(message)
    expect(failure.message).not.toContain('THQsecret-token-value')
  })

  it('reads the media-fetch subcode even when the message says something else', () => {
    const failure = classify(400, { code: 100, error_subcode: 2207052, message: 'Media download failed' })
    expect(failure.kind).toBe('invalid_content')
    expect(failure.message).toContain(HOSTED_MEDIA_UNREACHABLE)
  })

  it('names the hosted-media problem with the setting that decides it', () => {
    expect(HOSTED_MEDIA_UNREACHABLE).toMatch(/PUBLIC_BASE_URL/)
  })

  it('treats code 24 alone as the propagation lag that threads_publish retries', () => {
    expect(isPropagationLag(classify(400, { code: 24, error_subcode: 4279009 }))).toBe(true)
    expect(isPropagationLag(classify(400, { code: 100, error_subcode: 24 }))).toBe(false)
    expect(isPropagationLag(new Error('code 24'))).toBe(false)
  })
})
