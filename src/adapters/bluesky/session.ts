import { isIP } from 'node:net'
import { checkAddress } from '../../platform/egress/address-policy.js'
import { resolveStrictly } from '../../platform/egress/guarded-http.js'
import type { ResolvedAddress } from '../../platform/egress/pinned-request.js'
import type { LookupFn } from '../../platform/egress/safe-fetch.js'
import { defaultLookup } from '../../platform/egress/safe-fetch.js'
import type { Logger } from '../../platform/logger.js'
import { type Credentials, type Profile, PublishFailure } from '../adapter.js'
import { isValidHandle } from './facets.js'
import type { GetJson, Xrpc } from './xrpc.js'

/**
 * App-password sessions: handle → DID → the account's PDS → `com.atproto.server.createSession` there.
 * A PDS behind an entryway (bsky.social) passes createSession and refreshSession through to it, so
 * talking to the account's own PDS works for hosted and self-hosted accounts alike.
 */

export interface SessionContext {
  xrpc: Xrpc
  getJson: GetJson
  logger: Logger
  /** Where handles are resolved (`com.atproto.identity.resolveHandle`), e.g. https://bsky.social. */
  serviceUrl: string
  /** The PLC directory that holds `did:plc` documents, e.g. https://plc.directory. */
  plcUrl: string
  /** Accept PDS endpoints over plain http or on loopback and private addresses (tests, local demos). */
  allowLocalPds: boolean
  /** DNS resolution for the public-address check (tests inject answers). */
  lookup?: LookupFn
}

/**
 * Why Herald will not talk to the host of `url` (a did:web document or a PDS a DID document names), or
 * undefined: https only, and every address its name resolves to public (no loopback, private, link-local
 * or metadata answer). The answer itself is never put in the message.
 */
async function hostProblem(ctx: SessionContext, url: URL): Promise<string | undefined> {
  if (ctx.allowLocalPds) return undefined
  if (!isPublicPdsUrl(url)) return 'it is not on a public https address'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let answers: ResolvedAddress[]
  try {
    // A name that does not resolve, or not in time, is refused: "unknown" is never "allowed".
    answers = isIP(host)
      ? [{ address: host, family: isIP(host) as 4 | 6 }]
      : await resolveStrictly(host, ctx.lookup ?? defaultLookup)
  } catch {
    return `${url.hostname} could not be resolved`
  }
  const refused = answers.some((entry) => !checkAddress(entry.address, { allowPrivate: false }).allowed)
  return refused ? `${url.hostname} resolves to an address Herald does not connect to` : undefined
}

/** What Herald keeps about a session besides the tokens (`Credentials.extra`). */
export interface SessionInfo {
  pdsUrl: string
  did: string
  handle: string
  accessJwt: string
}

interface SessionOutput {
  accessJwt: string
  refreshJwt: string
  did: string
  handle: string
}

interface DidDocument {
  id?: unknown
  service?: unknown
}

/** The handle a session reports when the account's handle no longer verifies. */
const INVALID_HANDLE = 'handle.invalid'

/** Epoch ms of a JWT's `exp`, or undefined when the token carries none (it is not verified here). */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1]
  if (!payload) return undefined
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined
  } catch {
    return undefined
  }
}

/** The `#atproto_pds` endpoint of a DID document, or undefined when it names none. */
export function pdsEndpoint(doc: DidDocument, did: string): string | undefined {
  if (!Array.isArray(doc.service)) return undefined
  for (const entry of doc.service as Array<Record<string, unknown>>) {
    if (entry.id !== '#atproto_pds' && entry.id !== `${did}#atproto_pds`) continue
    if (entry.type !== 'AtprotoPersonalDataServer' || typeof entry.serviceEndpoint !== 'string') continue
    try {
      const url = new URL(entry.serviceEndpoint)
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
      return url.origin + url.pathname.replace(/\/+$/, '')
    } catch {
      return undefined
    }
  }
  return undefined
}

const PRIVATE_IPV4 = [
  /^0\./,
  /^10\./,
  /^127\./,
  /^169\.254\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^192\.168\./,
  /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
]

/**
 * True when Herald may send a session to this PDS endpoint. The endpoint comes from a DID document that
 * the account's owner controls, so without this check anyone could point Herald at an internal address.
 * It catches plain http and literal loopback or private hosts; a public name that resolves to a private
 * address needs the guarded HTTP client of the composition root.
 */
export function isPublicPdsUrl(url: URL): boolean {
  if (url.protocol !== 'https:') return false
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return false
  if (PRIVATE_IPV4.some((range) => range.test(host))) return false
  if (
    host.includes(':') &&
    (host === '::1' || /^(fc|fd|fe[89ab])/.test(host) || host.startsWith('::ffff:'))
  ) {
    return false
  }
  return true
}

/** Where the DID document of `did` is published (did:plc at the PLC directory, did:web on its host). */
export function didDocumentUrl(did: string, plcUrl: string): string | undefined {
  if (/^did:plc:[a-z2-7]{24}$/.test(did)) return `${plcUrl.replace(/\/+$/, '')}/${did}`
  const web = /^did:web:([A-Za-z0-9.-]+(?:%3[Aa]\d+)?)$/.exec(did)
  if (web) return `https://${decodeURIComponent(web[1]!)}/.well-known/did.json`
  return undefined
}

function normalizeIdentifier(identifier: string): string {
  const trimmed = identifier.trim().replace(/^@/, '')
  return trimmed.startsWith('did:') ? trimmed : trimmed.toLowerCase()
}

async function resolveHandle(ctx: SessionContext, handle: string, signal?: AbortSignal): Promise<string> {
  // Resolution goes through the configured service (bsky.social resolves any handle by DNS or
  // well-known on its side); Herald does not fetch https://<handle>/ itself, since a handle typed into
  // the connect form must not make the server request arbitrary hosts.
  try {
    const { did } = await ctx.xrpc<{ did: string }>({
      service: ctx.serviceUrl,
      nsid: 'com.atproto.identity.resolveHandle',
      params: { handle },
      signal,
    })
    if (typeof did !== 'string' || !did.startsWith('did:')) {
      throw new PublishFailure('transient', `Resolving ${handle} answered no DID`, { code: 'NoDid' })
    }
    return did
  } catch (error) {
    if (error instanceof PublishFailure && error.kind === 'invalid_content') {
      throw new PublishFailure('invalid_content', `The Bluesky handle ${handle} could not be resolved`, {
        code: 'HandleNotFound',
        status: error.options.status,
      })
    }
    throw error
  }
}

/** The PDS that hosts `did`, from its DID document. */
export async function findPds(ctx: SessionContext, did: string, signal?: AbortSignal): Promise<string> {
  const url = didDocumentUrl(did, ctx.plcUrl)
  if (!url) {
    throw new PublishFailure('invalid_content', `Unsupported DID method: ${did}`, { code: 'UnsupportedDid' })
  }
  // A did:web document lives on a host its owner chose: the same rule as for the PDS applies.
  const docProblem = did.startsWith('did:web:') ? await hostProblem(ctx, new URL(url)) : undefined
  if (docProblem) {
    throw new PublishFailure('invalid_content', `The DID document of ${did} was not fetched: ${docProblem}`, {
      code: 'PdsNotPublic',
    })
  }
  const doc = await ctx.getJson<DidDocument>(url, signal)
  const endpoint = doc && doc.id === did ? pdsEndpoint(doc, did) : undefined
  if (!endpoint) {
    throw new PublishFailure('invalid_content', `The DID document of ${did} names no Bluesky PDS`, {
      code: 'NoPds',
    })
  }
  const pdsProblem = await hostProblem(ctx, new URL(endpoint))
  if (pdsProblem) {
    throw new PublishFailure(
      'invalid_content',
      `Herald only connects to Bluesky PDSes on public https addresses, and the PDS of ${did} is not one: ${pdsProblem}`,
      { code: 'PdsNotPublic' },
    )
  }
  return endpoint
}

function toCredentials(session: SessionOutput, pdsUrl: string): Credentials {
  return {
    accessToken: session.accessJwt,
    refreshToken: session.refreshJwt,
    expiresAt: jwtExpiry(session.accessJwt),
    extra: { pdsUrl, did: session.did, handle: session.handle },
  }
}

/** The PDS, DID and handle stored with `credentials`; auth_expired when they are missing. */
export function sessionOf(credentials: Credentials): SessionInfo {
  const { pdsUrl, did, handle } = credentials.extra ?? {}
  if (!pdsUrl || !did || !credentials.accessToken) {
    throw new PublishFailure('auth_expired', 'The Bluesky connection lacks its PDS or DID; reconnect it', {
      code: 'MissingSession',
    })
  }
  return { pdsUrl, did, handle: handle ?? did, accessJwt: credentials.accessToken }
}

/**
 * Signs in with a handle (or DID, or e-mail) and an app password. The password is sent once, to the
 * account's PDS, and never kept.
 */
export async function createSession(
  ctx: SessionContext,
  input: { identifier: string; appPassword: string },
  signal?: AbortSignal,
): Promise<Credentials> {
  const identifier = normalizeIdentifier(input.identifier)
  let did: string | undefined
  if (identifier.startsWith('did:')) did = identifier
  else if (!identifier.includes('@')) {
    if (!isValidHandle(identifier)) {
      throw new PublishFailure('invalid_content', `${input.identifier} is not a Bluesky handle`, {
        code: 'InvalidHandle',
      })
    }
    did = await resolveHandle(ctx, identifier, signal)
  }
  // An e-mail address cannot be resolved: sign in at the configured service, then find the PDS.
  const loginAt = did ? await findPds(ctx, did, signal) : ctx.serviceUrl
  const session = await ctx.xrpc<SessionOutput>({
    service: loginAt,
    nsid: 'com.atproto.server.createSession',
    json: { identifier: did ? identifier : input.identifier.trim(), password: input.appPassword },
    signal,
  })
  if (did && session.did !== did) {
    throw new PublishFailure('auth_expired', `Signed in as ${session.did}, but ${identifier} is ${did}`, {
      code: 'DidMismatch',
    })
  }
  const pdsUrl = did ? loginAt : await findPds(ctx, session.did, signal)
  return toCredentials(session, pdsUrl)
}

/** A new access token from the refresh token (which the PDS rotates: keep the returned one). */
export async function refreshSession(ctx: SessionContext, credentials: Credentials): Promise<Credentials> {
  const { pdsUrl } = sessionOf(credentials)
  if (!credentials.refreshToken) {
    throw new PublishFailure('auth_expired', 'The Bluesky connection has no refresh token; reconnect it', {
      code: 'MissingRefreshToken',
    })
  }
  const session = await ctx.xrpc<SessionOutput>({
    service: pdsUrl,
    nsid: 'com.atproto.server.refreshSession',
    post: true,
    token: credentials.refreshToken,
  })
  return toCredentials(session, pdsUrl)
}

/** The profile the session acts as: DID, handle, and the display name and avatar when it set them. */
export async function resolveProfile(ctx: SessionContext, credentials: Credentials): Promise<Profile> {
  const { pdsUrl, accessJwt } = sessionOf(credentials)
  const session = await ctx.xrpc<{ did: string; handle: string }>({
    service: pdsUrl,
    nsid: 'com.atproto.server.getSession',
    token: accessJwt,
  })
  const username = session.handle && session.handle !== INVALID_HANDLE ? session.handle : session.did
  const profile: Profile = { profileId: session.did, username, name: username, isOrganization: false }
  try {
    const record = await ctx.xrpc<{
      value?: { displayName?: unknown; avatar?: { ref?: { $link?: unknown } } }
    }>({
      service: pdsUrl,
      nsid: 'com.atproto.repo.getRecord',
      params: { repo: session.did, collection: 'app.bsky.actor.profile', rkey: 'self' },
    })
    const displayName = record.value?.displayName
    if (typeof displayName === 'string' && displayName.trim()) profile.name = displayName.trim()
    const cid = record.value?.avatar?.ref?.$link
    if (typeof cid === 'string') {
      const avatar = new URL(`${pdsUrl}/xrpc/com.atproto.sync.getBlob`)
      avatar.searchParams.set('did', session.did)
      avatar.searchParams.set('cid', cid)
      profile.avatarUrl = avatar.toString()
    }
  } catch (error) {
    // No profile record (RecordNotFound) is common; any other failure only costs the display name.
    if (!(error instanceof PublishFailure && error.options.code === 'RecordNotFound')) {
      ctx.logger.warn(
        { err: (error as Error).message },
        'bluesky profile record unreadable; using the handle',
      )
    }
  }
  return profile
}
