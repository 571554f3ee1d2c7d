import type { FaultBody } from '../fault-hooks.js'

/**
 * How Meta answers an injected status (Facebook, Instagram and Threads share Graph's envelope):
 * - a 5xx: code 2 "An unexpected error has occurred", `is_transient: true`, the answer Graph gives after
 *   a failure that may or may not have applied the call;
 * - a 429: the app's request limit (code 4) with `X-App-Usage` at 100% and, for Facebook and Instagram,
 *   `X-Business-Use-Case-Usage` naming `estimated_time_to_regain_access` in minutes;
 * - anything else: code 100, the refusal of a parameter.
 */
export const REGAIN_ACCESS_MINUTES = 12

export const metaFaultBody: FaultBody = (status, call) => {
  const fbtrace_id = `SbxFault${Math.random().toString(36).slice(2, 10)}`
  const json = { 'content-type': 'application/json; charset=UTF-8' }
  if (status >= 500)
    return {
      body: {
        error: {
          message: 'An unexpected error has occurred. Please retry your request later.',
          type: 'OAuthException',
          code: 2,
          is_transient: true,
          fbtrace_id,
        },
      },
      headers: json,
    }
  if (status === 429)
    return {
      body: {
        error: {
          message: '(#4) Application request limit reached',
          type: 'OAuthException',
          code: 4,
          is_transient: true,
          fbtrace_id,
        },
      },
      headers: {
        ...json,
        'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 30 }),
        ...(call.network === 'threads'
          ? {}
          : {
              'x-business-use-case-usage': JSON.stringify({
                app: [
                  {
                    type: call.network === 'instagram' ? 'instagram' : 'pages',
                    call_count: 100,
                    total_cputime: 12,
                    total_time: 30,
                    estimated_time_to_regain_access: REGAIN_ACCESS_MINUTES,
                  },
                ],
              }),
            }),
      },
    }
  return {
    body: { error: { message: '(#100) Simulated refusal', type: 'OAuthException', code: 100, fbtrace_id } },
    headers: json,
  }
}

/** A Graph path under a host mount (`/v25.0/123/feed`) as its id and edge, the version dropped. */
export function graphSegments(rest: string): { id?: string; edge?: string } {
  const segments = rest.split('/').filter(Boolean)
  if (segments[0] && /^v\d+\.\d+$/.test(segments[0])) segments.shift()
  return { ...(segments[0] ? { id: segments[0] } : {}), ...(segments[1] ? { edge: segments[1] } : {}) }
}
