/**
 * Tells the transports in this process that a credential was revoked (an API key, or an OAuth grant with
 * its tokens), so they can close what it holds open: an MCP SSE session authenticated by it ends at once.
 * A revocation made by another process (the `herald` CLI) is not heard here; the per-message re-check in
 * the SSE transport and its periodic sweep cover that case.
 */
export interface Revocations {
  /** Announces that `credentialId` (an API key id, or `oauth:<grantId>`) no longer authenticates. */
  revoked(credentialId: string): void
  /** Calls `listener` for every revocation; returns the unsubscribe function. */
  subscribe(listener: (credentialId: string) => void): () => void
}

export function createRevocations(): Revocations {
  const listeners = new Set<(credentialId: string) => void>()
  return {
    revoked(credentialId) {
      for (const listener of listeners) listener(credentialId)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
