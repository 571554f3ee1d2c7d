/**
 * What a thrown fetch says about whether the request left Herald. Shared by every adapter: a failure
 * while connecting (refused, no such host, TLS) means nothing reached the network, so it is safe to try
 * again; anything later may have taken effect.
 */

/** Error codes of failures that happen while connecting, before any byte of the request was sent. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  // The guarded request refused the host before connecting (src/platform/egress/guarded-http.ts).
  'HERALD_BLOCKED_ADDRESS',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/** The first string `code` along an error's `cause` chain (fetch wraps the socket error). */
export function thrownErrorCode(error: unknown): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    depth++
  ) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
