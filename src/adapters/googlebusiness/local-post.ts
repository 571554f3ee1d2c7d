import {
  type LocalPostType,
  type LocalSchedule,
  type ResolvedGoogleBusiness,
  resolveGoogleBusiness,
} from '../../core/googlebusiness-details.js'
import type { PublishRequest } from '../adapter.js'

/**
 * A Herald post as Google's `LocalPost` (the v4 resource local posts are created with): the copy as its
 * summary, the photo by URL (Google fetches it; `sourceUrl` is the only field a post's media item takes),
 * the topic type, an event's or an offer's title and schedule (Google keeps both in `event`), an offer's
 * coupon, terms and link, and the button of an update or an event.
 */

export const TOPIC_TYPES: Record<LocalPostType, 'STANDARD' | 'EVENT' | 'OFFER'> = {
  update: 'STANDARD',
  event: 'EVENT',
  offer: 'OFFER',
}

const date = (value: string) => {
  const [year, month, day] = value.split('-').map(Number)
  return { year, month, day }
}
const time = (value: string) => {
  const [hours, minutes] = value.split(':').map(Number)
  return { hours, minutes, seconds: 0, nanos: 0 }
}

function schedule(event: LocalSchedule) {
  return {
    startDate: date(event.startDate),
    ...(event.startTime ? { startTime: time(event.startTime) } : {}),
    endDate: date(event.endDate),
    ...(event.endTime ? { endTime: time(event.endTime) } : {}),
  }
}

/** The details a request goes out with (an update when it names none). */
export const detailsOf = (request: Pick<PublishRequest, 'googlebusiness'>): ResolvedGoogleBusiness =>
  request.googlebusiness ?? resolveGoogleBusiness(undefined)

export function localPostBody(
  request: Pick<PublishRequest, 'content' | 'googlebusiness'>,
  photoUrl: string | undefined,
): Record<string, unknown> {
  const details = detailsOf(request)
  const body: Record<string, unknown> = { topicType: TOPIC_TYPES[details.type] }
  if (request.content.trim() !== '') body.summary = request.content
  if (photoUrl) body.media = [{ mediaFormat: 'PHOTO', sourceUrl: photoUrl }]
  if (details.type !== 'update' && details.event)
    body.event = { title: details.event.title, schedule: schedule(details.event) }
  if (details.type === 'offer' && details.offer) {
    const { couponCode, redeemOnlineUrl, termsConditions } = details.offer
    body.offer = {
      ...(couponCode ? { couponCode } : {}),
      ...(redeemOnlineUrl ? { redeemOnlineUrl } : {}),
      ...(termsConditions ? { termsConditions } : {}),
    }
  }
  if (details.type !== 'offer' && details.callToAction) {
    const { actionType, url } = details.callToAction
    body.callToAction = { actionType, ...(url && actionType !== 'CALL' ? { url } : {}) }
  }
  return body
}
