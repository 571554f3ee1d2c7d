import { urlExtension } from '../../core/media-url.js'
import { looksLikeVideo } from '../../core/network-rules.js'
import type { LookupAnswer, LookupRequest } from '../adapter.js'
import { isDistinctive, lookUpRecent, normaliseCopy, toLookupAnswer } from '../lookup-scan.js'
import { type PinterestBody, type PinterestContext, pinterestCall, str } from './client.js'
import { boardOf, pinFields } from './publish.js'
import { pinUrl } from './settings.js'

/**
 * Whether an unanswered `POST /pins` made its pin (reference B.10). Pinterest takes no idempotency key
 * and does not show a pin's media id, so the board's pins are read (`GET /boards/{id}/pins`, newest first,
 * page after page by `bookmark`) back to the attempt, and a pin is the attempt's when it was made since
 * then (less a clock margin) and carries exactly what Herald sent: the title, the description (the copy,
 * compared as lookups compare copy), the link, and media of the same kind and count (one image, one video,
 * or a carousel of as many images). One such pin is found; several, or copy that tells nothing apart, are
 * ambiguous; none on a board read to before the attempt is absent.
 *
 * Pinterest documents no order for the listing; it lists newest first in practice, and a page whose last pin
 * is older than the attempt ends the read (a pin out of order earlier on a page does not).
 */

const PAGE_SIZE = 100
const IMAGE_EXTENSIONS = new Set([
  '.jpg',
  '.jpeg',
  '.png',
  '.gif',
  '.webp',
  '.heic',
  '.heif',
  '.avif',
  '.tif',
  '.tiff',
  '.bmp',
])
/** How far Pinterest's clock may be behind Herald's. */
const CLOCK_SLACK_MS = 2 * 60_000

/** `created_at` in epoch ms: Pinterest writes UTC without a zone (`2026-08-03T09:00:00`). */
export function createdAt(pin: PinterestBody): number {
  const text = str(pin.created_at)
  if (!text) return Number.NaN
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`)
}

/** What kind of media the attempt sent, as a pin shows it (`media.media_type`, and a carousel's count). */
function expectedMedia(request: LookupRequest): { types: string[]; count?: number } {
  const count = request.mediaUrls.length
  if (count > 1) return { types: ['multiple_images'], count }
  const [url] = request.mediaUrls
  if (request.progress?.mediaId || (url && looksLikeVideo(url))) return { types: ['video'] }
  if (url && IMAGE_EXTENSIONS.has(urlExtension(url))) return { types: ['image'] }
  // An address without a telling extension could be either until it is fetched; copy and time still decide.
  return { types: ['image', 'video'] }
}

function sameMedia(pin: PinterestBody, wanted: { types: string[]; count?: number }): boolean {
  const media = (pin.media ?? {}) as PinterestBody
  const type = str(media.media_type)
  if (!type || !wanted.types.includes(type)) return false
  if (wanted.count === undefined) return true
  return Array.isArray(media.items) && media.items.length === wanted.count
}

const sameText = (a: unknown, b: string | undefined) =>
  normaliseCopy(typeof a === 'string' ? a : '') === normaliseCopy(b ?? '')

export async function findPin(ctx: PinterestContext, request: LookupRequest): Promise<LookupAnswer> {
  const board = boardOf(request)
  const sent = pinFields(request)
  const media = expectedMedia(request)
  const from = request.since - CLOCK_SLACK_MS
  const isOld = (pin: PinterestBody) => createdAt(pin) < from
  const answer = await lookUpRecent<PinterestBody>({
    where: `the pins of the board "${request.profile.name}" of @${request.profile.username} on Pinterest`,
    readPage: async (cursor) => {
      const body = await pinterestCall(ctx, {
        method: 'GET',
        path: `/boards/${board}/pins`,
        query: { page_size: String(PAGE_SIZE), ...(cursor ? { bookmark: cursor } : {}) },
        token: request.credentials.accessToken,
        what: "the board's pins",
        signal: request.signal,
      })
      const rows = Array.isArray(body.items) ? (body.items as PinterestBody[]) : []
      const last = rows.at(-1)
      const next = str(body.bookmark)
      return { rows, ...(next && !(last && isOld(last)) ? { next } : {}) }
    },
    idOf: (pin) => str(pin.id),
    urlOf: (pin) => pinUrl(ctx.settings, String(pin.id)),
    isMatch: (pin) =>
      !isOld(pin) &&
      sameText(pin.title, sent.title) &&
      sameText(pin.description, sent.description) &&
      (str(pin.link) ?? '') === (sent.link ?? '') &&
      sameMedia(pin, media),
    distinctive: isDistinctive(`${sent.title ?? ''} ${sent.description ?? ''}`),
    exclude: request.excludeRemoteIds,
    isOlder: () => false,
  })
  return toLookupAnswer(answer, (pin) => ({
    remoteId: String(pin.id),
    url: pinUrl(ctx.settings, String(pin.id)),
  }))
}
