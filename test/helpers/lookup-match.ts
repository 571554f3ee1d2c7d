import type { LookupRequest, NetworkAdapter, PublishResult } from '../../src/adapters/adapter.js'

/**
 * An adapter's lookup as "the match, or null when the network certainly holds none"; an ambiguous answer
 * throws, so a test that expects a decision fails loudly when the adapter could not make one.
 */
export const lookupMatch =
  (adapter: Pick<NetworkAdapter, 'findPublished'>) =>
  async (request: LookupRequest): Promise<PublishResult | null> => {
    if (!adapter.findPublished) throw new Error('this adapter has no lookup')
    const answer = await adapter.findPublished(request)
    if (answer.kind === 'ambiguous') throw new Error(`the lookup could not tell: ${answer.reason}`)
    return answer.kind === 'found' ? answer.result : null
  }
