import { describe, expect, it } from 'vitest'
import {
  failureFromGraph,
  failureFromNetworkError,
  isMissingPermission,
  usageResetAt,
} from '../../src/adapters/meta/errors.js'
import { cutFetchError, fetchErrorShape, refusedFetchError } from '../helpers/node-fetch-errors.js'

const NOW = Date.UTC(2026, 10, 24, 12)
const envelope = (error: Record<string, unknown>) => ({
  error: { message: 'm', type: 'OAuthException', ...error },
})
const classify = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  failureFromGraph(
    { status, body, headers: new Headers(headers) },
    { label: 'Instagram', now: NOW, secrets: ['EAAB-secret-token-123'] },
  )

describe("Meta's error envelope", () => {
  it('treats code 190 and its subcodes as a reconnect', () => {
    for (const subcode of [undefined, 458, 460, 463, 467]) {
      const failure = classify(400, envelope({ code: 190, error_subcode: subcode }))
      expect(failure.kind).toBe('auth_expired')
      expect(failure.message).toMatch(/reconnect/)
    }
  })

  it('treats 4, 17, 32, 613 and 80001-80014 as rate limits with the reset from the usage headers', () => {
    for (const code of [4, 17, 32, 613, 80001, 80014])
      expect(classify(400, envelope({ code })).kind).toBe('rate_limited')
    const business = JSON.stringify({
      '123': [
        {
          type: 'pages',
          call_count: 100,
          total_cputime: 4,
          total_time: 5,
          estimated_time_to_regain_access: 7,
        },
      ],
    })
    const failure = classify(400, envelope({ code: 32 }), { 'x-business-use-case-usage': business })
    expect(failure.options.resetAt).toBe(NOW + 7 * 60_000)
    const app = classify(400, envelope({ code: 4 }), {
      'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 10, total_time: 12 }),
    })
    expect(app.options.resetAt).toBe(NOW + 60 * 60_000)
  })

  it('reads no reset from usage headers below 100 percent', () => {
    expect(
      usageResetAt(
        new Headers({ 'x-app-usage': '{"call_count":40,"total_time":10,"total_cputime":3}' }),
        NOW,
      ),
    ).toBeUndefined()
  })

  it('treats codes 1 and 2 and is_transient as transient', () => {
    expect(classify(500, envelope({ code: 1 })).kind).toBe('transient')
    expect(classify(400, envelope({ code: 2 })).kind).toBe('transient')
    expect(classify(400, envelope({ code: 36000, error_subcode: 2207003, is_transient: true })).kind).toBe(
      'transient',
    )
  })

  it('says a missing permission in words for 10 and 200-299', () => {
    for (const code of [10, 200, 299]) {
      const failure = classify(403, envelope({ code }))
      expect(failure.kind).toBe('auth_expired')
      expect(failure.message).toMatch(/permission is missing/)
      expect(isMissingPermission(failure)).toBe(true)
    }
    expect(isMissingPermission(classify(400, envelope({ code: 190 })))).toBe(false)
  })

  it("gives invalid content with Meta's user message for 368, 506 and the media subcodes", () => {
    const photo = classify(
      400,
      envelope({
        code: 100,
        error_subcode: 1366046,
        error_user_msg: 'Photos should be smaller than 4 MB and saved as JPG, PNG',
      }),
    )
    expect(photo.kind).toBe('invalid_content')
    expect(photo.message).toContain('Photos should be smaller than 4 MB')
    expect(photo.options.code).toBe('100/1366046')
    expect(classify(400, envelope({ code: 368 })).kind).toBe('invalid_content')
    expect(classify(400, envelope({ code: 506 })).kind).toBe('invalid_content')
    const aspect = classify(
      400,
      envelope({ code: 36003, error_subcode: 2207009, error_user_msg: 'aspect ratio' }),
    )
    expect(aspect.kind).toBe('invalid_content')
  })

  it('treats the Instagram daily publishing limit as a rate limit a day away', () => {
    const failure = classify(400, envelope({ code: 9, error_subcode: 2207042 }))
    expect(failure.kind).toBe('rate_limited')
    expect(failure.options.resetAt).toBe(NOW + 24 * 60 * 60_000)
  })

  it('never repeats a token that appears in the error message', () => {
    const failure = classify(400, envelope({ code: 100, message: 'bad token EAAB-secret-token-123 here' }))
    expect(failure.message).not.toContain('EAAB-secret-token-123')
  })

  it('makes a lost answer to a publishing call an unknown outcome and a refused connection transient', async () => {
    const publish = { label: 'Instagram', mayHaveTakenEffect: true, what: 'media_publish' }
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    expect(failureFromNetworkError(reset, publish).kind).toBe('unknown_outcome')
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    })
    // The refused connection above is built as Node's fetch throws one (its bundled undici: 6.29.1 on Node
    // 22.23.5, 7.29.1 on 24.21.0, 7.30.2 on 24.22.3): checked against this Node's, and both failures are
    // mapped as this Node's fetch really throws them, a cut connection being a SocketError UND_ERR_SOCKET.
    expect(
      fetchErrorShape(await refusedFetchError()),
      "this Node's fetch rejects a refused connection as TypeError 'fetch failed' with ECONNREFUSED on its cause",
    ).toEqual(fetchErrorShape(refused))
    expect(failureFromNetworkError(refused, publish).kind).toBe('transient')
    expect(failureFromNetworkError(await refusedFetchError(), publish).kind).toBe('transient')
    expect(failureFromNetworkError(await cutFetchError(), publish).kind).toBe('unknown_outcome')
  })
})
