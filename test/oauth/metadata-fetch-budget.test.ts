import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from '../helpers/harness.js'
import {
  authorizeUrl,
  type CallbackServer,
  type DocumentServer,
  documentFetcher,
  metadataDocument,
  pkcePair,
  startCallbackServer,
  startDocumentServer,
} from '../helpers/oauth.js'

/**
 * Client ID metadata documents are fetched at most 30 times a minute per requesting client. Behind a reverse
 * proxy that client is the address the proxy forwards (when HERALD_TRUST_PROXY names the proxy), never the
 * proxy's own: otherwise one client spending the budget would block every other client's first sign-in.
 * The oracle is the document host: how many times each document was fetched.
 */
describe('the metadata-document fetch budget', () => {
  let documents: DocumentServer
  let callback: CallbackServer
  let behindProxy: Harness
  let direct: Harness
  let documentCount = 0

  beforeAll(async () => {
    documents = await startDocumentServer()
    callback = await startCallbackServer()
    const options = { prePickPort: true, oauthMetadataFetcher: documentFetcher }
    behindProxy = await startHarness({
      ...options,
      env: { HERALD_ALLOW_PRIVATE_MEDIA: '1', HERALD_TRUST_PROXY: '127.0.0.1' },
    })
    direct = await startHarness({ ...options, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
  })
  afterAll(async () => {
    await behindProxy.close()
    await direct.close()
    await documents.close()
    await callback.close()
  })

  /** Starts a sign-in with a client never seen before (so its document is not cached); answers its fetches. */
  const signInWithNewClient = async (h: Harness, forwardedFor: string) => {
    const path = `/client-${++documentCount}.json`
    const clientId = documents.url(path)
    documents.set(path, metadataDocument(clientId, callback.redirectUri))
    const answer = await fetch(
      authorizeUrl(h, {
        clientId,
        redirectUri: callback.redirectUri,
        challenge: pkcePair().challenge,
        method: 'S256',
        resource: `${h.baseUrl}/mcp`,
        scope: 'posts:read',
      }),
      { redirect: 'manual', headers: { 'x-forwarded-for': forwardedFor } },
    )
    await answer.arrayBuffer()
    return documents.hits.get(path) ?? 0
  }

  const spendBudget = async (h: Harness, forwardedFor: string) => {
    for (let i = 0; i < 30; i++) expect(await signInWithNewClient(h, forwardedFor)).toBe(1)
    expect(await signInWithNewClient(h, forwardedFor)).toBe(0)
  }

  it('counts each client behind a trusted proxy on its own: one spending its 30 leaves the next its own', async () => {
    await spendBudget(behindProxy, '203.0.113.10')
    expect(await signInWithNewClient(behindProxy, '203.0.113.20')).toBe(1)
    expect(await signInWithNewClient(behindProxy, '203.0.113.10')).toBe(0)
  })

  it('counts the socket address when no proxy is trusted, whatever X-Forwarded-For a client sends', async () => {
    await spendBudget(direct, '203.0.113.10')
    expect(await signInWithNewClient(direct, '203.0.113.20')).toBe(0)
  })
})
