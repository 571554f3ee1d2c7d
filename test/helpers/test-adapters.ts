import {
  type NetworkAdapter,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../../src/adapters/adapter.js'
import type { Network } from '../../src/core/networks.js'

/** An adapter whose publish behaviour each test scripts; it records every call it receives. */
export interface ScriptedAdapter extends NetworkAdapter {
  calls: PublishRequest[]
  refreshes: number
  /** Answers the next publishes, in order; once used up, publishes succeed. */
  script: Array<(request: PublishRequest) => Promise<PublishResult>>
}

export function scriptedAdapter(network: Network, options: { concurrency?: number } = {}): ScriptedAdapter {
  const adapter: ScriptedAdapter = {
    network,
    capabilities: { concurrency: options.concurrency ?? 4 },
    calls: [],
    refreshes: 0,
    script: [],
    async refresh(credentials) {
      adapter.refreshes += 1
      return {
        ...credentials,
        accessToken: `${credentials.accessToken}-r${adapter.refreshes}`,
        expiresAt: Date.now() + 3_600_000,
      }
    },
    async resolveProfile() {
      return { profileId: 'p', username: 'u', name: 'U', isOrganization: false }
    },
    async publish(request) {
      adapter.calls.push(request)
      const next = adapter.script.shift()
      if (next) return next(request)
      return {
        remoteId: `remote-${adapter.calls.length}`,
        url: `https://${network}.example/${request.targetId}`,
      }
    },
    async postMetrics() {
      throw new PublishFailure('invalid_content', 'not used')
    },
    async profileMetrics() {
      throw new PublishFailure('invalid_content', 'not used')
    },
  }
  return adapter
}

export const fail =
  (kind: PublishFailure['kind'], message: string, options: PublishFailure['options'] = {}) =>
  async (): Promise<PublishResult> => {
    throw new PublishFailure(kind, message, options)
  }

/** An adapter that publishes by POSTing to a recording HTTP server (as a real network would receive it). */
export function recordingAdapter(
  network: Network,
  recorderUrl: string,
  options: { concurrency?: number } = {},
): NetworkAdapter {
  return {
    network,
    capabilities: { concurrency: options.concurrency ?? 64 },
    async refresh(credentials) {
      const response = await fetch(`${recorderUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: credentials.refreshToken }),
      })
      if (response.status === 400) throw new PublishFailure('auth_expired', 'invalid_grant')
      if (!response.ok) throw new PublishFailure('transient', `token endpoint answered ${response.status}`)
      const issued = (await response.json()) as { accessToken: string; refreshToken: string }
      return { ...issued, expiresAt: Date.now() + 7_200_000 }
    },
    async resolveProfile() {
      return { profileId: 'p', username: 'u', name: 'U', isOrganization: false }
    },
    async publish(request) {
      let response: Response
      try {
        response = await fetch(`${recorderUrl}/publish`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ targetId: request.targetId, content: request.content }),
          signal: request.signal,
        })
      } catch (error) {
        throw new PublishFailure(
          request.signal.aborted ? 'unknown_outcome' : 'transient',
          `recorder unreachable: ${(error as Error).message}`,
        )
      }
      if (!response.ok) throw new PublishFailure('transient', `recorder answered ${response.status}`)
      const body = (await response.json()) as { id: string }
      return { remoteId: body.id, url: `${recorderUrl}/posts/${body.id}` }
    },
    async postMetrics() {
      throw new PublishFailure('invalid_content', 'not used')
    },
    async profileMetrics() {
      throw new PublishFailure('invalid_content', 'not used')
    },
  }
}
