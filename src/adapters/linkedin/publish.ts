import {
  LINKEDIN_TEXT_LIMIT,
  linkedinLength,
  littleEscape,
  littleVisible,
} from '../../core/linkedin-little.js'
import type { PreparedMedia } from '../../core/media-port.js'
import type {
  ItemLookupRequest,
  ItemRequest,
  LookupAnswer,
  LookupRequest,
  PublishRequest,
  PublishResult,
} from '../adapter.js'
import { altTextOf, PublishFailure } from '../adapter.js'
import {
  findAmongReplies,
  isDistinctive,
  lookUpRecent,
  normaliseCopy,
  toLookupAnswer,
} from '../lookup-scan.js'
import { enc, type LinkedInContext, linkedinCall } from './client.js'
import { uploadImage, uploadVideo, waitForImages } from './media.js'
import { authorOf } from './oauth.js'
import { LINKEDIN_WEB_URL } from './settings.js'

/**
 * A LinkedIn post through `POST /rest/posts` (reference A.4): the copy as little-format commentary, then
 * one image (`content.media`), 2-20 images (`content.multiImage`), one video, or, for text-only copy with a
 * link, an article card (LinkedIn does not unfurl links of API posts). The id comes from `x-restli-id`.
 */

export const postUrl = (ctx: LinkedInContext, urn: string) =>
  `${ctx.settings.webUrl ?? LINKEDIN_WEB_URL}/feed/update/${urn}`
const URL_IN_TEXT = /https?:\/\/[^\s<>]+[^\s<>.,;:!?'")\]]/

export interface PublishOptions {
  personalImageGraceMs: number
}

export async function publishPost(
  ctx: LinkedInContext,
  options: PublishOptions,
  request: PublishRequest,
): Promise<PublishResult> {
  const { profile, credentials, signal } = request
  const length = linkedinLength(request.content)
  if (length > LINKEDIN_TEXT_LIMIT)
    throw new PublishFailure(
      'invalid_content',
      `The copy is ${length} characters; LinkedIn allows ${LINKEDIN_TEXT_LIMIT}`,
    )
  if (request.mediaUrls.length > 20)
    throw new PublishFailure('invalid_content', 'LinkedIn takes at most 20 images in one post')
  const author = authorOf(profile)
  const upload = {
    token: credentials.accessToken,
    owner: author,
    signal,
    personalGraceMs: options.personalImageGraceMs,
  }

  let content: Record<string, unknown> | undefined
  const saved = request.progress?.media
  if (saved) {
    // An earlier attempt uploaded the media and recorded it before the create: reuse it.
    content = JSON.parse(saved) as Record<string, unknown>
  } else if (request.mediaUrls.length > 0) {
    const files: PreparedMedia[] = []
    try {
      for (const url of request.mediaUrls)
        files.push(await ctx.deps.media.prepare(url, { network: 'linkedin', signal }))
      const videos = files.filter((f) => f.kind === 'video')
      if (videos.length > 0 && files.length > 1)
        throw new PublishFailure(
          'invalid_content',
          'LinkedIn takes one video alone, never mixed with images or another video',
        )
      if (videos.length === 1) {
        content = { media: { id: await uploadVideo(ctx, files[0] as PreparedMedia, upload) } }
      } else {
        const images: string[] = []
        for (const file of files) images.push(await uploadImage(ctx, file, upload))
        await waitForImages(ctx, images, upload)
        // Each image with its alt text (`altText`, at most 4,086 characters), where one was given.
        const described = images.map((id, i) => {
          const altText = altTextOf(request, request.mediaUrls[i] ?? '')
          return altText ? { id, altText } : { id }
        })
        content = described.length === 1 ? { media: described[0] } : { multiImage: { images: described } }
      }
    } finally {
      for (const file of files) await file.dispose()
    }
    await request.saveProgress?.({ media: JSON.stringify(content) })
  } else {
    const link = URL_IN_TEXT.exec(request.content)?.[0]
    if (link) {
      content = { article: await articleCard(ctx, link, upload) }
      await request.saveProgress?.({ media: JSON.stringify(content) })
    }
  }

  const { headers } = await linkedinCall(ctx, {
    method: 'POST',
    path: '/rest/posts',
    json: {
      author,
      commentary: littleEscape(request.content),
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
      ...(content ? { content } : {}),
    },
    token: credentials.accessToken,
    what: 'the post',
    signal,
    sentIsCreate: true,
  })
  const id = headers.get('x-restli-id')
  if (!id) throw new PublishFailure('unknown_outcome', 'LinkedIn accepted the post without naming it')
  return { remoteId: id, url: postUrl(ctx, id) }
}

/**
 * The article card for a link: the page's title and description read through Herald's guarded client
 * (the media port's `linkPreview`), and its image uploaded as the thumbnail. LinkedIn requires a title,
 * so a page that cannot be read gets its host name.
 */
async function articleCard(
  ctx: LinkedInContext,
  link: string,
  upload: Parameters<typeof uploadImage>[2],
): Promise<Record<string, unknown>> {
  const preview = await ctx.deps.media.linkPreview?.(link, { signal: upload.signal }).catch(() => undefined)
  const card: Record<string, unknown> = {
    source: link,
    title: preview?.title?.slice(0, 400) || new URL(link).hostname,
  }
  if (preview?.description) card.description = preview.description.slice(0, 4086)
  if (preview?.imageUrl) {
    const file = await ctx.deps.media
      .prepare(preview.imageUrl, { network: 'linkedin', signal: upload.signal })
      .catch(() => undefined)
    if (file && file.kind !== 'video') {
      try {
        const image = await uploadImage(ctx, file, upload)
        await waitForImages(ctx, [image], upload)
        card.thumbnail = image
      } finally {
        await file.dispose()
      }
    } else await file?.dispose()
  }
  return card
}

/** Posts read per page of the author's posts (LinkedIn serves at most 100). */
const LOOKUP_PAGE_SIZE = 100
/** Slack for the difference between Herald's clock and LinkedIn's. */
const CLOCK_SLACK_MS = 60_000

/**
 * Resolves an unknown outcome among the author's posts since the attempt, read newest change first
 * (`sortBy=LAST_MODIFIED`), page after page (`start`, `count`), until one last changed before the attempt.
 * The strongest key decides: the media the attempt uploaded (the image and video URNs recorded as progress
 * `media` before the create) in the post's `content`; otherwise the copy a reader sees, NFC-normalised with
 * spacing collapsed, and an article card's link. Empty or links-only copy, several matches or an author too
 * busy to read back is ambiguous; posts other targets hold never match.
 */
export async function findPost(ctx: LinkedInContext, request: LookupRequest): Promise<LookupAnswer> {
  const author = authorOf(request.profile)
  const from = request.since - CLOCK_SLACK_MS
  const saved = request.progress?.media
    ? (JSON.parse(request.progress.media) as Record<string, unknown>)
    : undefined
  const keys = saved ? assetUrns(saved) : []
  const article = (saved?.article as { source?: unknown } | undefined)?.source
  const wanted = normaliseCopy(request.content)
  const answer = await lookUpRecent<Record<string, unknown>>({
    where: `${request.profile.name}'s posts on LinkedIn`,
    readPage: async (cursor) => {
      const start = Number(cursor ?? 0)
      const { body } = await linkedinCall(ctx, {
        method: 'GET',
        path: '/rest/posts',
        query: [
          ['q', 'author'],
          ['author', encodeURIComponent(author)],
          ['start', String(start)],
          ['count', String(LOOKUP_PAGE_SIZE)],
          ['sortBy', 'LAST_MODIFIED'],
        ],
        token: request.credentials.accessToken,
        what: 'your recent posts',
        signal: request.signal,
      })
      const rows = Array.isArray(body.elements) ? (body.elements as Record<string, unknown>[]) : []
      return { rows, next: nextStart(body.paging, start, rows.length) }
    },
    idOf: (post) => (typeof post.id === 'string' ? post.id : undefined),
    urlOf: (post) => postUrl(ctx, String(post.id)),
    isMatch: (post) => {
      if (typeof post.createdAt === 'number' && post.createdAt < from) return false
      const content = (post.content ?? {}) as Record<string, unknown>
      if (keys.length > 0) {
        const held = assetUrns(content)
        return keys.every((urn) => held.includes(urn))
      }
      const visible = typeof post.commentary === 'string' ? littleVisible(post.commentary).text : ''
      if (normaliseCopy(visible) !== wanted) return false
      return (
        article === undefined || (content.article as { source?: unknown } | undefined)?.source === article
      )
    },
    distinctive: keys.length > 0 || isDistinctive(request.content),
    exclude: request.excludeRemoteIds,
    // Newest change first: once a post last changed before the attempt, so did every post after it.
    isOlder: (post) => {
      const changed = typeof post.lastModifiedAt === 'number' ? post.lastModifiedAt : post.createdAt
      return typeof changed === 'number' && changed < from
    },
  })
  return toLookupAnswer(answer, (post) => ({ remoteId: String(post.id), url: postUrl(ctx, String(post.id)) }))
}

/**
 * Where the page after this one starts, or undefined on the last page. A page may come back short, even
 * empty, while more follow, so the rows served never end the list on their own: Rest.li's `next` link says
 * where the rest starts; without one, a `total` past the rows read says more follow; with neither, a page
 * that held rows may have more after it.
 */
function nextStart(paging: unknown, start: number, served: number): string | undefined {
  const { links, total } = (paging ?? {}) as { links?: unknown; total?: unknown }
  const href = Array.isArray(links)
    ? (links as Array<{ rel?: unknown; href?: unknown }>).find((link) => link.rel === 'next')?.href
    : undefined
  const linked =
    typeof href === 'string'
      ? Number(new URL(href, 'https://api.linkedin.com').searchParams.get('start'))
      : NaN
  if (Number.isInteger(linked) && linked >= start) return String(linked)
  if (typeof total === 'number') return start + served < total ? String(start + served) : undefined
  return served > 0 ? String(start + served) : undefined
}

/** The image and video URNs a post's `content` names (one media, a multi-image set, an article thumbnail). */
function assetUrns(content: Record<string, unknown>): string[] {
  return [...JSON.stringify(content).matchAll(/urn:li:(?:image|video):[A-Za-z0-9_-]+/g)].map((m) => m[0])
}

/** Comments read per page when an unanswered comment is looked up. */
const COMMENTS_PAGE = 100

/**
 * A first comment on a LinkedIn post, `POST /rest/socialActions/{post URN}/comments` as the
 * member or the page that posted it (`actor`), plain text; the comment's URN comes back in the body
 * (`commentUrn`) or the `x-restli-id` header.
 */
export async function publishComment(ctx: LinkedInContext, request: ItemRequest): Promise<PublishResult> {
  if (request.content.trim() === '')
    throw new PublishFailure('invalid_content', 'A LinkedIn comment needs text')
  if (request.mediaUrls.length > 0)
    throw new PublishFailure('invalid_content', 'Herald posts LinkedIn first comments as text only')
  const postUrn = request.root.remoteId
  const answer = await linkedinCall(ctx, {
    method: 'POST',
    path: `/rest/socialActions/${enc(postUrn)}/comments`,
    token: request.credentials.accessToken,
    json: { actor: authorOf(request.profile), object: postUrn, message: { text: request.content } },
    what: 'the first comment',
    signal: request.signal,
    sentIsCreate: true,
  })
  const urn =
    (typeof answer.body.commentUrn === 'string' ? answer.body.commentUrn : undefined) ??
    answer.headers.get('x-restli-id') ??
    undefined
  if (!urn)
    throw new PublishFailure('unknown_outcome', 'LinkedIn accepted the comment but answered no comment URN')
  return { remoteId: urn, url: commentUrl(request.root.url, urn) }
}

const commentUrl = (postUrl: string, urn: string) => `${postUrl}?commentUrn=${enc(urn)}`

/**
 * An unanswered comment is looked for among its post's comments, by its actor and copy, every
 * page of them (`start`, `count`, until `paging.total`), relying on no order of LinkedIn's.
 */
export async function findComment(ctx: LinkedInContext, request: ItemLookupRequest): Promise<LookupAnswer> {
  const actor = authorOf(request.profile)
  type CommentRow = {
    commentUrn?: unknown
    actor?: unknown
    message?: { text?: unknown }
    created?: { time?: unknown }
  }
  return findAmongReplies<CommentRow>({
    readPage: async (cursor) => {
      const start = Number(cursor ?? 0)
      const { body } = await linkedinCall(ctx, {
        method: 'GET',
        path: `/rest/socialActions/${enc(request.root.remoteId)}/comments`,
        query: [
          ['start', String(start)],
          ['count', String(COMMENTS_PAGE)],
        ],
        token: request.credentials.accessToken,
        what: 'the comments',
        signal: request.signal,
      })
      const rows = (Array.isArray(body.elements) ? body.elements : []) as CommentRow[]
      return { rows, next: nextStart(body.paging, start, rows.length) }
    },
    isCandidate: (row) => row.actor === actor,
    where: `the comments on ${request.root.url}`,
    content: request.content,
    since: request.since,
    exclude: request.excludeRemoteIds,
    idOf: (row) => (typeof row.commentUrn === 'string' ? row.commentUrn : undefined),
    textOf: (row) => String(row.message?.text ?? ''),
    timeOf: (row) => (typeof row.created?.time === 'number' ? row.created.time : Number.NaN),
    result: (row) => ({
      remoteId: String(row.commentUrn),
      url: commentUrl(request.root.url, String(row.commentUrn)),
    }),
  })
}
