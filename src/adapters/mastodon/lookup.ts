import type { Credentials, ItemLookupRequest, LookupAnswer, LookupRequest, Profile } from '../adapter.js'
import {
  isDistinctive,
  type LookupPage,
  lookUpRecent,
  normaliseCopy,
  toLookupAnswer,
} from '../lookup-scan.js'
import { type AccountSession, sessionOf } from './account.js'
import type { MastodonClient } from './client.js'
import { recordedMedia } from './media.js'

/**
 * An unknown outcome outside the instance's idempotency window (or on a server that keeps no keys) is
 * decided by the account's own statuses since the attempt (`GET /api/v1/accounts/:id/statuses`, newest
 * first, paged by the `Link` header's `max_id`): a status carrying an attachment the attempt uploaded is
 * the attempt's; otherwise one made since the attempt, replying to the same status (none for a post), with
 * the same content warning and the same text once Mastodon's HTML is read back as text, and posted by
 * Herald's app where the instance names the app. One match is found, several or copy that says nothing
 * are ambiguous, none after a complete read is absent.
 */

/** Statuses per page, the most Mastodon serves. */
const PAGE_SIZE = 40
/** How far the instance's clock may be behind Herald's when a status's `created_at` is compared. */
const CLOCK_SLACK_MS = 2 * 60_000

export interface LookupContext {
  client: MastodonClient
  /** The name Herald registers under: a status another app made is never the attempt's. */
  appName: string
}

interface ListedStatus {
  id?: unknown
  url?: unknown
  created_at?: unknown
  content?: unknown
  spoiler_text?: unknown
  in_reply_to_id?: unknown
  media_attachments?: unknown
  application?: { name?: unknown } | null
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Mastodon's HTML of a status as the text a person typed: paragraphs and line breaks kept, tags dropped. */
export function statusText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X'))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)))
      return ENTITIES[name.toLowerCase()] ?? whole
    })
}

/** Copy as a lookup compares it: a mention of a remote account reads `@user` in Mastodon's HTML. */
const comparable = (text: string) => normaliseCopy(text.replace(/(^|[^/\w])@(\w+)@[\w.-]+\w/g, '$1@$2'))

/** The `max_id` of the `Link` header's next page; only the id is taken, never the address it names. */
export function nextMaxId(link: string | null): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    if (!/rel="?next"?/.test(part)) continue
    const url = /<([^>]+)>/.exec(part)?.[1]
    if (!url) continue
    try {
      const id = new URL(url).searchParams.get('max_id')
      if (id && /^[A-Za-z0-9_-]{1,64}$/.test(id)) return id
    } catch {
      return undefined
    }
  }
  return undefined
}

function readPage(ctx: LookupContext, session: AccountSession, signal: AbortSignal) {
  return async (cursor: string | undefined): Promise<LookupPage<ListedStatus>> => {
    const { body, headers } = await ctx.client.call<unknown>({
      host: session.host,
      method: 'GET',
      path: `/api/v1/accounts/${session.accountId}/statuses`,
      query: { limit: String(PAGE_SIZE), exclude_reblogs: 'true', ...(cursor ? { max_id: cursor } : {}) },
      token: session.token,
      signal,
      what: "listing the account's statuses",
    })
    const rows = Array.isArray(body) ? (body as ListedStatus[]) : []
    const next = nextMaxId(headers.get('link'))
    return next ? { rows, next } : { rows }
  }
}

const mediaIdsOf = (status: ListedStatus): string[] =>
  Array.isArray(status.media_attachments)
    ? status.media_attachments.flatMap((m) => (typeof m?.id === 'string' ? [m.id] : []))
    : []

interface Wanted {
  content: string
  contentWarning: string
  inReplyTo: string | undefined
  media: string[]
  since: number
  exclude: readonly string[] | undefined
}

async function scan(
  ctx: LookupContext,
  credentials: Credentials,
  profile: Profile,
  wanted: Wanted,
  signal: AbortSignal,
): Promise<LookupAnswer> {
  const session = sessionOf(credentials, profile)
  const from = wanted.since - CLOCK_SLACK_MS
  const text = comparable(wanted.content)
  const timeOf = (status: ListedStatus) =>
    typeof status.created_at === 'string' ? Date.parse(status.created_at) : Number.NaN
  const answer = await lookUpRecent<ListedStatus>({
    where: `@${profile.username}'s statuses`,
    readPage: readPage(ctx, session, signal),
    isOlder: (status) => timeOf(status) < from,
    idOf: (status) => (typeof status.id === 'string' ? status.id : undefined),
    urlOf: (status) => (typeof status.url === 'string' ? status.url : String(status.id)),
    isMatch(status) {
      if (wanted.media.length > 0 && mediaIdsOf(status).some((id) => wanted.media.includes(id))) return true
      const app = status.application?.name
      if (typeof app === 'string' && app !== ctx.appName) return false
      const replyTo = typeof status.in_reply_to_id === 'string' ? status.in_reply_to_id : undefined
      return (
        replyTo === wanted.inReplyTo &&
        (typeof status.spoiler_text === 'string' ? status.spoiler_text : '') === wanted.contentWarning &&
        comparable(statusText(typeof status.content === 'string' ? status.content : '')) === text
      )
    },
    distinctive: wanted.media.length > 0 || isDistinctive(wanted.content),
    exclude: wanted.exclude,
  })
  return toLookupAnswer(answer, (status) => ({
    remoteId: String(status.id),
    url:
      typeof status.url === 'string'
        ? status.url
        : `${ctx.client.baseUrl(session.host)}/statuses/${String(status.id)}`,
  }))
}

const warningOf = (request: Pick<LookupRequest, 'mastodon'>) => request.mastodon?.contentWarning ?? ''

export function findStatus(ctx: LookupContext, request: LookupRequest): Promise<LookupAnswer> {
  return scan(
    ctx,
    request.credentials,
    request.profile,
    {
      content: request.content,
      contentWarning: warningOf(request),
      inReplyTo: undefined,
      media: recordedMedia(request.progress),
      since: request.since,
      exclude: request.excludeRemoteIds,
    },
    request.signal,
  )
}

/** An item is a reply of the account's own: looked for among its statuses, replying to the item's parent. */
export function findReply(ctx: LookupContext, request: ItemLookupRequest): Promise<LookupAnswer> {
  return scan(
    ctx,
    request.credentials,
    request.profile,
    {
      content: request.content,
      contentWarning: warningOf(request),
      inReplyTo: request.parent.remoteId,
      media: recordedMedia(request.progress),
      since: request.since,
      exclude: request.excludeRemoteIds,
    },
    request.signal,
  )
}
