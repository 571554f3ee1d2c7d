import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccounts } from '../../src/modules/accounts/accounts.js'
import { FakeClock } from '../../src/platform/clock.js'
import { codeChallengeS256, createCodeVerifier } from '../../src/platform/crypto/pkce.js'
import {
  consumeState,
  createStateSigner,
  issueState,
  STATE_TTL_MS,
  type StateDeps,
} from '../../src/platform/crypto/state-tokens.js'
import { createVault } from '../../src/platform/crypto/vault.js'
import type { Store } from '../../src/platform/db/db.js'
import { backends } from '../helpers/backends.js'

describe('PKCE', () => {
  it('derives the S256 challenge of RFC 7636 appendix B', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('makes 43-character verifiers from the unreserved alphabet, different each time', () => {
    const a = createCodeVerifier()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(createCodeVerifier()).not.toBe(a)
  })
})

describe('the signed state', () => {
  const signer = createStateSigner(Buffer.alloc(32, 9))

  it('verifies its own signature and nothing else', () => {
    const state = signer.sign('abcdefghijklmnopqrstuvwx')
    expect(signer.verify(state)).toBe('abcdefghijklmnopqrstuvwx')
    expect(signer.verify(state.replace('abc', 'abd'))).toBeUndefined()
    expect(signer.verify(`${state}x`)).toBeUndefined()
    expect(createStateSigner(Buffer.alloc(32, 8)).verify(state)).toBeUndefined()
    expect(signer.verify('')).toBeUndefined()
  })
})

describe.each(backends)('issuing and consuming states on $name', (backend) => {
  let store: Store
  let deps: StateDeps
  let userId = ''
  let workspaceId = ''
  const clock = new FakeClock(Date.UTC(2033, 0, 1))

  beforeAll(async () => {
    store = await backend.open()
    deps = {
      db: store.db,
      vault: createVault(Buffer.alloc(32, 4)),
      signer: createStateSigner(Buffer.alloc(32, 4)),
      now: () => clock.now(),
    }
    ;({ userId, workspaceId } = await createAccounts(store, clock).bootstrap({
      email: `state-${backend.name}@example.com`,
      password: 'password123',
      workspace: 'States',
    }))
  })
  afterAll(() => store.destroy())

  const issue = () =>
    issueState(deps, { workspaceId, userId, platform: 'twitter', redirectUri: 'http://127.0.0.1/cb' })

  it('gives the stored verifier back once, for the person who started it', async () => {
    const { state, codeChallenge } = await issue()
    const first = await consumeState(deps, { state, platform: 'twitter', userId })
    expect(first.ok).toBe(true)
    if (first.ok) expect(codeChallengeS256(first.codeVerifier)).toBe(codeChallenge)
    expect(await consumeState(deps, { state, platform: 'twitter', userId })).toEqual({
      ok: false,
      reason: 'replayed',
    })
  })

  it('lets exactly one of two simultaneous callbacks through', async () => {
    const { state } = await issue()
    const results = await Promise.all([
      consumeState(deps, { state, platform: 'twitter', userId }),
      consumeState(deps, { state, platform: 'twitter', userId }),
    ])
    expect(results.filter((r) => r.ok)).toHaveLength(1)
  })

  it('refuses an expired, a foreign-network and another person’s state', async () => {
    const expired = await issue()
    clock.advance(STATE_TTL_MS)
    expect(await consumeState(deps, { state: expired.state, platform: 'twitter', userId })).toEqual({
      ok: false,
      reason: 'expired',
    })
    const other = await issue()
    expect(await consumeState(deps, { state: other.state, platform: 'youtube', userId })).toEqual({
      ok: false,
      reason: 'forged',
    })
    expect(
      await consumeState(deps, { state: other.state, platform: 'twitter', userId: 'someone-else' }),
    ).toEqual({
      ok: false,
      reason: 'wrong_user',
    })
  })
})
