import { PIN_ALT_TEXT_LIMIT } from '../../core/pinterest-details.js'
import { altTextOf, PublishFailure, type PublishRequest, type PublishResult } from '../adapter.js'
import { type PinterestContext, pinterestCall, str } from './client.js'
import { disposeAll, imageSource, prepareAll } from './media-source.js'
import { pinUrl } from './settings.js'
import { videoSource } from './video.js'

/**
 * Publishing a pin to a board (reference B.5): the board is the profile, the copy is the description, the
 * `pinterest` object gives the title and the link, each media item's alt text becomes the pin's (a
 * carousel's first one: Pinterest takes one alt text per pin). An image or a carousel of 2 to 5 images goes
 * by URL or inline; a video through the media upload first ({@link videoSource}). `POST /pins` answers 201
 * with the pin; a failure after it was sent is an unknown outcome, resolved by the board's pins
 * (`./lookup.ts`), since Pinterest takes no idempotency key.
 */

export const MAX_CAROUSEL = 5

/** The board a target pins to: the connection's board id (its profile id). */
export const boardOf = (request: Pick<PublishRequest, 'profile' | 'credentials'>) =>
  request.credentials.extra?.boardId || request.profile.profileId

/** The pin's own fields, as Herald sends them and as a lookup compares them. */
export function pinFields(request: Pick<PublishRequest, 'content' | 'pinterest'>) {
  const description = request.content.trim() === '' ? undefined : request.content
  return {
    ...(request.pinterest?.title ? { title: request.pinterest.title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(request.pinterest?.link ? { link: request.pinterest.link } : {}),
  }
}

function checkRequest(request: PublishRequest, altText: string | undefined) {
  if (request.mediaUrls.length === 0)
    throw new PublishFailure('invalid_content', 'A pin needs an image or a video')
  if (request.mediaUrls.length > MAX_CAROUSEL)
    throw new PublishFailure('invalid_content', `A Pinterest carousel takes at most ${MAX_CAROUSEL} images`)
  if (altText && [...altText].length > PIN_ALT_TEXT_LIMIT)
    throw new PublishFailure(
      'invalid_content',
      `Pinterest takes alt text up to ${PIN_ALT_TEXT_LIMIT} characters; this one is ${[...altText].length}`,
    )
}

export async function publishPin(ctx: PinterestContext, request: PublishRequest): Promise<PublishResult> {
  // A pin carries one alt text: the first image's (a carousel's other images take none through the API).
  const first = request.mediaUrls[0]
  const altText = first ? altTextOf(request, first)?.trim() || undefined : undefined
  checkRequest(request, altText)
  const files = await prepareAll(ctx, request)
  try {
    const videos = files.filter((file) => file.kind === 'video')
    if (videos.length > 0 && files.length > 1)
      throw new PublishFailure('invalid_content', 'Pinterest takes one video per pin, never in a carousel')
    const mediaSource = videos[0] ? await videoSource(ctx, request, videos[0]) : await imageSource(files)
    const pin = await pinterestCall(ctx, {
      method: 'POST',
      path: '/pins',
      json: {
        board_id: boardOf(request),
        ...pinFields(request),
        ...(altText ? { alt_text: altText } : {}),
        media_source: mediaSource,
      },
      token: request.credentials.accessToken,
      what: 'the pin',
      signal: request.signal,
      sentIsCreate: true,
    })
    const id = str(pin.id)
    if (!id)
      throw new PublishFailure('unknown_outcome', 'Pinterest answered the pin without its id; it may exist')
    return { remoteId: id, url: pinUrl(ctx.settings, id) }
  } finally {
    await disposeAll(files)
  }
}
