import { badRequest } from './google-errors.js'

/**
 * What Google's localPosts.create refuses, as its reference states it: an unknown field; no or an
 * unusable topic type (ALERT posts "are not always available for authoring"; products cannot be made
 * through the API); a summary over 1,500 characters; an event or offer without its event (title and
 * schedule), an offer's fields on another type; a button without its URL (or a Call button with one);
 * media other than one photo by `sourceUrl`. Answers the refusal (message and BadRequest detail) or the
 * post's fields as Google keeps them.
 */

export type Checked =
  | { ok: true; post: Record<string, unknown>; photoUrl: string | undefined }
  | { ok: false; message: string; details: unknown[] }

const FIELDS = new Set([
  'languageCode',
  'summary',
  'callToAction',
  'event',
  'topicType',
  'alertType',
  'offer',
  'media',
  // Output-only fields are ignored on create, as Google ignores them.
  'name',
  'createTime',
  'updateTime',
  'state',
  'searchUrl',
])
const OUTPUT_ONLY = new Set(['name', 'createTime', 'updateTime', 'state', 'searchUrl'])
const ACTIONS = new Set(['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'GET_OFFER', 'CALL'])
const SUMMARY_MAX = 1500

const refuse = (field: string, description: string): Checked => ({
  ok: false,
  message: 'Request contains an invalid argument.',
  details: [badRequest(field, description)],
})

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function checkLocalPost(body: unknown): Checked {
  if (!isRecord(body)) return refuse('local_post', 'The request body must be a LocalPost object.')
  for (const key of Object.keys(body))
    if (!FIELDS.has(key))
      return {
        ok: false,
        message: `Invalid JSON payload received. Unknown name "${key}" at 'local_post': Cannot find field.`,
        details: [badRequest('local_post', `Unknown name "${key}"`)],
      }
  const topic = body.topicType
  if (topic !== 'STANDARD' && topic !== 'EVENT' && topic !== 'OFFER')
    return refuse(
      'topic_type',
      topic === 'ALERT'
        ? 'Alert posts are not available for authoring.'
        : 'topic_type must be STANDARD, EVENT or OFFER.',
    )
  const summary = body.summary
  if (summary !== undefined && typeof summary !== 'string')
    return refuse('summary', 'summary must be a string.')
  if (typeof summary === 'string' && [...summary].length > SUMMARY_MAX)
    return refuse('summary', `The summary is longer than ${SUMMARY_MAX} characters.`)
  const problem =
    eventProblem(body.event, topic) ??
    offerProblem(body.offer, topic) ??
    actionProblem(body.callToAction, topic)
  if (problem) return refuse(problem[0], problem[1])
  const media = mediaOf(body.media)
  if (typeof media === 'object' && 'field' in media) return refuse(media.field, media.description)
  if (topic === 'STANDARD' && !summary?.trim() && !media)
    return refuse('summary', 'A standard post needs a summary or a photo.')
  const post: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body))
    if (!OUTPUT_ONLY.has(key) && key !== 'media') post[key] = value
  return { ok: true, post, photoUrl: media || undefined }
}

function eventProblem(event: unknown, topic: string): [string, string] | undefined {
  if (event === undefined)
    return topic === 'STANDARD'
      ? undefined
      : ['event', 'Event information is required for event and offer posts.']
  if (topic === 'STANDARD') return ['event', 'Event information is only for event and offer posts.']
  if (!isRecord(event) || typeof event.title !== 'string' || event.title.trim() === '')
    return ['event.title', 'The event needs a title.']
  const schedule = event.schedule
  if (!isRecord(schedule) || !isDate(schedule.startDate) || !isDate(schedule.endDate))
    return ['event.schedule', 'The event needs a start date and an end date.']
  for (const key of ['startTime', 'endTime'])
    if (schedule[key] !== undefined && !isTime(schedule[key]))
      return [`event.schedule.${key}`, 'Not a time of day.']
  if (
    instant(schedule.endDate, schedule.endTime, 23 * 60 + 59) <
    instant(schedule.startDate, schedule.startTime, 0)
  )
    return ['event.schedule', 'The event ends before it starts.']
  return undefined
}

function offerProblem(offer: unknown, topic: string): [string, string] | undefined {
  if (offer === undefined) return undefined
  if (topic !== 'OFFER') return ['offer', 'Offer data should only be set when the topic type is OFFER.']
  if (!isRecord(offer)) return ['offer', 'offer must be an object.']
  for (const key of Object.keys(offer))
    if (!['couponCode', 'redeemOnlineUrl', 'termsConditions'].includes(key))
      return [`offer.${key}`, 'Unknown field.']
  if (offer.redeemOnlineUrl !== undefined && !isUrl(offer.redeemOnlineUrl))
    return ['offer.redeem_online_url', 'Not a valid URL.']
  return undefined
}

function actionProblem(action: unknown, topic: string): [string, string] | undefined {
  // Ignored for offers, as Google documents: nothing to refuse there.
  if (action === undefined || topic === 'OFFER') return undefined
  if (!isRecord(action) || typeof action.actionType !== 'string' || !ACTIONS.has(action.actionType))
    return ['call_to_action.action_type', 'Not a known action type.']
  if (action.actionType === 'CALL')
    return action.url === undefined
      ? undefined
      : ['call_to_action.url', 'The URL should be left unset for a call.']
  if (!isUrl(action.url)) return ['call_to_action.url', 'The call to action needs a valid URL.']
  return undefined
}

/** The one photo's URL, none, or what is wrong with the media. */
function mediaOf(media: unknown): string | undefined | { field: string; description: string } {
  if (media === undefined) return undefined
  if (!Array.isArray(media)) return { field: 'media', description: 'media must be a list.' }
  if (media.length === 0) return undefined
  if (media.length > 1) return { field: 'media', description: 'A post takes one photo.' }
  const [item] = media as unknown[]
  if (!isRecord(item) || !isUrl(item.sourceUrl))
    return {
      field: 'media.source_url',
      description: 'source_url is the only supported data field for a LocalPost MediaItem.',
    }
  if (item.mediaFormat !== undefined && item.mediaFormat !== 'PHOTO')
    return { field: 'media.media_format', description: 'Only photos are supported on posts.' }
  return item.sourceUrl as string
}

const isDate = (value: unknown): value is { year: number; month: number; day: number } =>
  isRecord(value) &&
  Number.isInteger(value.year) &&
  Number.isInteger(value.month) &&
  Number.isInteger(value.day) &&
  (value.month as number) >= 1 &&
  (value.month as number) <= 12 &&
  (value.day as number) >= 1 &&
  (value.day as number) <= new Date(Date.UTC(value.year as number, value.month as number, 0)).getUTCDate()

const isTime = (value: unknown) =>
  isRecord(value) &&
  Number.isInteger(value.hours ?? 0) &&
  ((value.hours as number | undefined) ?? 0) >= 0 &&
  ((value.hours as number | undefined) ?? 0) <= 23 &&
  Number.isInteger(value.minutes ?? 0) &&
  ((value.minutes as number | undefined) ?? 0) >= 0 &&
  ((value.minutes as number | undefined) ?? 0) <= 59

/** Minutes since 1970 of a date and an optional time (`fallback` minutes into the day without one). */
function instant(
  date: { year: number; month: number; day: number },
  time: unknown,
  fallback: number,
): number {
  const minutes = isRecord(time) ? Number(time.hours ?? 0) * 60 + Number(time.minutes ?? 0) : fallback
  return Date.UTC(date.year, date.month - 1, date.day) / 60_000 + minutes
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
