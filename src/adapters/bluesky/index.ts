import type { LookupFn } from '../../platform/egress/safe-fetch.js'
import type { AdapterDeps, Credentials, NetworkAdapter, Profile } from '../adapter.js'
import { readPostMetrics, readProfileMetrics } from './metrics.js'
import { findPost, findReply, type PostContext, publishPost, publishReply } from './post.js'
import { createSession, refreshSession, resolveProfile, type SessionContext } from './session.js'
import { createXrpc } from './xrpc.js'

export interface BlueskySettings {
  /** Where handles are resolved and e-mail sign-ins go (`config.networks.bluesky.serviceUrl`). */
  serviceUrl: string
  /** The PLC directory holding `did:plc` documents. Default https://plc.directory. */
  plcUrl?: string
  /** Timeout of one ordinary call in ms (blob uploads get longer). Default 30000. */
  timeoutMs?: number
  /**
   * Accept PDS endpoints over plain http or on loopback and private addresses, as a PDS on the same
   * machine has (tests, local demos). Default false: a DID document may name any address.
   */
  allowLocalPds?: boolean
  /** DNS resolution for the public-address check of PDS and did:web hosts (tests inject answers). */
  lookup?: LookupFn
  /** Where people read posts: `${webUrl}/profile/<handle>/post/<rkey>`. Default {@link BLUESKY_WEB_URL}. */
  webUrl?: string
}

export const DEFAULT_PLC_URL = 'https://plc.directory'
/** bsky.app, whose post pages the URLs of published posts name unless the settings say otherwise. */
export const BLUESKY_WEB_URL = 'https://bsky.app'
const DEFAULT_TIMEOUT_MS = 30_000

export interface BlueskyAdapter extends NetworkAdapter {
  /**
   * Connects an account with its handle (or DID, or e-mail) and an app password: resolves the handle,
   * finds the account's PDS and opens a session there. Throws a PublishFailure: `auth_expired` for a
   * wrong password, `invalid_content` for a handle that does not resolve, `transient` when a server is
   * unreachable. The app password is not part of the result and is not kept.
   */
  login(input: {
    identifier: string
    appPassword: string
  }): Promise<{ credentials: Credentials; profile: Profile }>
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/** Bluesky over plain XRPC with app-password sessions (no OAuth flow: `oauth` is absent). */
export function createBlueskyAdapter(settings: BlueskySettings, deps: AdapterDeps): BlueskyAdapter {
  const logger = deps.logger.child({ network: 'bluesky' })
  const { xrpc, getJson } = createXrpc(
    { http: deps.http, logger, now: deps.now },
    { timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS },
  )
  const session: SessionContext = {
    xrpc,
    getJson,
    logger,
    serviceUrl: trimSlash(settings.serviceUrl),
    plcUrl: trimSlash(settings.plcUrl ?? DEFAULT_PLC_URL),
    allowLocalPds: settings.allowLocalPds ?? false,
    ...(settings.lookup ? { lookup: settings.lookup } : {}),
  }

  const posts: PostContext = {
    xrpc,
    media: deps.media,
    logger,
    now: deps.now,
    webUrl: trimSlash(settings.webUrl ?? BLUESKY_WEB_URL),
  }

  return {
    network: 'bluesky',
    // Writes cost rate-limit points per account (5,000 an hour); a handful of parallel sends per
    // worker stays far below that while keeping blob uploads from queueing behind each other.
    capabilities: { concurrency: 5 },
    async login(input) {
      const credentials = await createSession(session, input)
      const profile = await resolveProfile(session, credentials)
      return { credentials, profile }
    },
    refresh: (credentials) => refreshSession(session, credentials),
    resolveProfile: (credentials) => resolveProfile(session, credentials),
    publish: (request) => publishPost(posts, request),
    findPublished: (request) => findPost(posts, request),
    publishItem: (request) => publishReply(posts, request),
    findItem: (request) => findReply(posts, request),
    postMetrics: (input) => readPostMetrics(xrpc, input),
    profileMetrics: (input) => readProfileMetrics(xrpc, input),
  }
}
