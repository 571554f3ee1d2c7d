import type { MediaPort, PreparedMedia } from '../../core/media-port.js'
import type { Logger } from '../../platform/logger.js'
import {
  altTextOf,
  type ItemLookupRequest,
  type ItemRequest,
  type LookupAnswer,
  type LookupRequest,
  PublishFailure,
  type PublishRequest,
  type PublishResult,
} from '../adapter.js'
import { foundByKey } from '../lookup-scan.js'
import { buildFacets, type Detected, detectRichText, mentionedHandles, textLimitProblem } from './facets.js'
import { disposeAll, type Embed, mediaCountProblem, mediaProblem, prepareAll, uploadEmbed } from './media.js'
import { recordKeyFor } from './record-key.js'
import { type SessionInfo, sessionOf } from './session.js'
import type { Xrpc } from './xrpc.js'

export interface PostContext {
  xrpc: Xrpc
  media: MediaPort
  logger: Logger
  now(): number
  /** Where people read posts (bsky.app; the simulator's pages in sandbox mode), without a trailing slash. */
  webUrl: string
}

/** `at://<did>/app.bsky.feed.post/<rkey>` split into its parts, or undefined for any other URI. */
export function parsePostUri(uri: string): { did: string; rkey: string } | undefined {
  const match =
    /^at:\/\/(did:[a-z]+:[A-Za-z0-9._:%-]+)\/app\.bsky\.feed\.post\/([A-Za-z0-9._:~-]{1,512})$/.exec(uri)
  return match ? { did: match[1]!, rkey: match[2]! } : undefined
}

/** The bsky.app address of a post; the handle form reads better, the DID form when there is no handle. */
export function postUrl(ctx: Pick<PostContext, 'webUrl'>, handleOrDid: string, rkey: string): string {
  return `${ctx.webUrl}/profile/${handleOrDid}/post/${rkey}`
}

/**
 * Resolves mentioned handles to DIDs on the account's PDS. A handle that does not resolve stays plain
 * text, as in Bluesky's own app; only a cancelled publish stops here.
 */
async function resolveMentions(
  ctx: PostContext,
  session: SessionInfo,
  detected: readonly Detected[],
  signal: AbortSignal,
): Promise<Map<string, string>> {
  const handles = mentionedHandles(detected)
  const resolved = await Promise.all(
    handles.map(async (handle) => {
      try {
        const { did } = await ctx.xrpc<{ did: string }>({
          service: session.pdsUrl,
          nsid: 'com.atproto.identity.resolveHandle',
          params: { handle },
          signal,
        })
        return [handle, did] as const
      } catch (error) {
        ctx.logger.debug({ handle, err: (error as Error).message }, 'bluesky mention left unlinked')
        return undefined
      }
    }),
  )
  if (signal.aborted) {
    throw new PublishFailure('transient', 'Publishing to Bluesky was cancelled before the post was sent', {
      code: 'aborted',
    })
  }
  return new Map(resolved.filter((entry) => entry !== undefined))
}

/** Checks the copy and media count against the lexicon before any call is made. */
function checkRequest(request: Pick<PublishRequest, 'content' | 'mediaUrls'>): void {
  const textProblem = textLimitProblem(request.content)
  if (textProblem) throw new PublishFailure('invalid_content', textProblem, { code: 'TextTooLong' })
  const countProblem = mediaCountProblem(request.mediaUrls.length)
  if (countProblem) throw new PublishFailure('invalid_content', countProblem, { code: 'TooManyMedia' })
  if (request.content.trim() === '' && request.mediaUrls.length === 0) {
    throw new PublishFailure('invalid_content', 'A Bluesky post needs text or media', { code: 'EmptyPost' })
  }
}

type PostRequest = Pick<PublishRequest, 'targetId' | 'credentials' | 'content' | 'mediaUrls' | 'signal'> &
  Partial<Pick<PublishRequest, 'media'>>
type StrongRef = { uri: string; cid: string }

export async function publishPost(
  ctx: PostContext,
  request: PostRequest,
  /** A reply's record key seed (`<target id>:<item index>`) and its root and parent refs. */
  reply?: { keySeed: string; root: StrongRef; parent: StrongRef },
): Promise<PublishResult> {
  checkRequest(request)
  const session = sessionOf(request.credentials)
  const { signal } = request
  const detected = detectRichText(request.content)
  const didsByHandle = await resolveMentions(ctx, session, detected, signal)
  const facets = buildFacets(detected, didsByHandle)

  let embed: Embed | undefined
  let prepared: PreparedMedia[] = []
  try {
    if (request.mediaUrls.length > 0) {
      prepared = await prepareAll(ctx.media, request.mediaUrls, signal)
      const problem = mediaProblem(prepared)
      if (problem) throw new PublishFailure('invalid_content', problem, { code: 'InvalidMedia' })
      const alts = request.mediaUrls.map((url) => altTextOf(request, url))
      embed = await uploadEmbed(ctx.xrpc, session, prepared, signal, alts)
    }
  } finally {
    await disposeAll(prepared)
  }

  const record = {
    $type: 'app.bsky.feed.post',
    text: request.content,
    createdAt: new Date(ctx.now()).toISOString(),
    ...(facets.length > 0 ? { facets } : {}),
    ...(embed ? { embed } : {}),
    ...(reply ? { reply: { root: reply.root, parent: reply.parent } } : {}),
  }
  const rkey = recordKeyFor(reply?.keySeed ?? request.targetId)
  let created: { uri: string; cid: string }
  try {
    created = await ctx.xrpc<{ uri: string; cid: string }>({
      service: session.pdsUrl,
      nsid: 'com.atproto.repo.createRecord',
      json: { repo: session.did, collection: 'app.bsky.feed.post', rkey, record },
      token: session.accessJwt,
      signal,
      effectful: true,
    })
  } catch (error) {
    // A refusal may mean an earlier attempt (whose answer was lost) already wrote this target's record.
    if (!(error instanceof PublishFailure)) throw error
    if (error.kind !== 'invalid_content' && error.kind !== 'unknown_outcome') throw error
    const existing = await existingRecord(ctx, session, rkey, signal)
    if (!existing) throw error
    ctx.logger.info(
      { uri: existing.uri, targetId: request.targetId },
      'bluesky post found from an earlier attempt',
    )
    created = existing
  }
  const parsed = parsePostUri(created?.uri ?? '')
  if (!parsed) {
    // The PDS accepted the write but answered something unexpected: the post most likely exists.
    throw new PublishFailure('unknown_outcome', 'Bluesky createRecord answered without a post URI', {
      code: 'MissingUri',
    })
  }
  const handle = session.handle && session.handle !== 'handle.invalid' ? session.handle : session.did
  ctx.logger.info({ uri: created.uri, targetId: request.targetId }, 'bluesky post created')
  return { remoteId: created.uri, url: postUrl(ctx, handle, parsed.rkey) }
}

/** The target's record when it exists already (an earlier attempt wrote it), else undefined. */
async function existingRecord(
  ctx: PostContext,
  session: SessionInfo,
  rkey: string,
  signal: AbortSignal,
): Promise<{ uri: string; cid: string } | undefined> {
  try {
    return await ctx.xrpc<{ uri: string; cid: string }>({
      service: session.pdsUrl,
      nsid: 'com.atproto.repo.getRecord',
      params: { repo: session.did, collection: 'app.bsky.feed.post', rkey },
      token: session.accessJwt,
      signal,
    })
  } catch {
    return undefined
  }
}

/**
 * Resolves an unknown outcome by the record key every attempt of the target writes (derived from the
 * target id): the record is there (found) or the PDS says `RecordNotFound` (absent, with certainty). Any
 * other failure means the PDS could not be asked, and is thrown.
 */
export async function findPost(ctx: PostContext, request: LookupRequest): Promise<LookupAnswer> {
  const session = sessionOf(request.credentials)
  const rkey = recordKeyFor(request.targetId)
  let record: { uri: string; cid: string }
  try {
    record = await ctx.xrpc<{ uri: string; cid: string }>({
      service: session.pdsUrl,
      nsid: 'com.atproto.repo.getRecord',
      params: { repo: session.did, collection: 'app.bsky.feed.post', rkey },
      token: session.accessJwt,
      signal: request.signal,
    })
  } catch (error) {
    if (error instanceof PublishFailure && error.options.code === 'RecordNotFound') return { kind: 'absent' }
    throw error
  }
  const parsed = parsePostUri(record.uri)
  if (!parsed) throw new PublishFailure('unknown_outcome', 'Bluesky getRecord answered without a post URI')
  const handle = session.handle && session.handle !== 'handle.invalid' ? session.handle : session.did
  return foundByKey(
    { remoteId: record.uri, url: postUrl(ctx, handle, parsed.rkey) },
    request.excludeRemoteIds,
  )
}

/** The record key seed of a target's item: every attempt of the item writes the same key. */
export const itemKeySeed = (request: Pick<ItemRequest, 'targetId' | 'index'>) =>
  `${request.targetId}:item:${request.index}`

/** A post's strong ref (`uri` and the `cid` its record has now), read from the PDS. */
async function strongRef(ctx: PostContext, request: ItemRequest, uri: string): Promise<StrongRef> {
  const session = sessionOf(request.credentials)
  const parsed = parsePostUri(uri)
  if (!parsed) throw new PublishFailure('invalid_content', `${uri} is not a Bluesky post`)
  return ctx.xrpc<StrongRef>({
    service: session.pdsUrl,
    nsid: 'com.atproto.repo.getRecord',
    params: { repo: parsed.did, collection: 'app.bsky.feed.post', rkey: parsed.rkey },
    token: session.accessJwt,
    signal: request.signal,
  })
}

/**
 * A thread item or first comment is a post whose `reply` names the thread's first post (`root`)
 * and the post it answers (`parent`), with their cids; its facets are detected on its own text, and its
 * record key is derived from the target id and the item's position, so a repeated write cannot make it twice.
 */
export async function publishReply(ctx: PostContext, request: ItemRequest): Promise<PublishResult> {
  const root = await strongRef(ctx, request, request.root.remoteId)
  const parent =
    request.parent.remoteId === request.root.remoteId
      ? root
      : await strongRef(ctx, request, request.parent.remoteId)
  return publishPost(ctx, request, {
    keySeed: itemKeySeed(request),
    root: { uri: root.uri, cid: root.cid },
    parent: { uri: parent.uri, cid: parent.cid },
  })
}

/** An unanswered reply is looked up by the record key its item always writes. */
export function findReply(ctx: PostContext, request: ItemLookupRequest): Promise<LookupAnswer> {
  return findPost(ctx, {
    targetId: itemKeySeed(request),
    profile: request.profile,
    credentials: request.credentials,
    content: request.content,
    mediaUrls: request.mediaUrls,
    since: request.since,
    excludeRemoteIds: request.excludeRemoteIds,
    signal: request.signal,
  })
}
