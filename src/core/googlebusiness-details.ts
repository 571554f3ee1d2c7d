import { isCivilDate } from './civil-date.js'

/**
 * What a Google Business Profile post is besides its copy (the summary) and its photo: a standard update,
 * an event or an offer, and the button under it. As a request gives it (`googlebusiness` on create_post,
 * update_post and preflight_post, ignored for other networks), and the rules it must keep, which Google's
 * local posts reference states: an event and an offer both carry a title and a schedule (Google keeps an
 * offer's in its `event`), an offer shows Google's own "Get offer" button (a call to action is ignored
 * there), and a call button takes no URL (it calls the profile's phone number) while every other takes one.
 */

export const localPostTypes = ['update', 'event', 'offer'] as const
export type LocalPostType = (typeof localPostTypes)[number]

/** The buttons a post may carry (Google's `ActionType`; `GET_OFFER` is deprecated: an offer has its own). */
export const callToActionTypes = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const
export type CallToActionType = (typeof callToActionTypes)[number]

/** How each button reads on the post, as Google labels it. */
export const callToActionLabels: Record<CallToActionType, string> = {
  BOOK: 'Book',
  ORDER: 'Order online',
  SHOP: 'Buy',
  LEARN_MORE: 'Learn more',
  SIGN_UP: 'Sign up',
  CALL: 'Call now',
}

/** The local date (and time) an event or offer starts and ends, at the business, as Google takes them. */
export interface LocalSchedule {
  title: string
  /** YYYY-MM-DD. */
  startDate: string
  /** HH:MM, 24-hour; absent: all day. */
  startTime?: string | undefined
  endDate: string
  endTime?: string | undefined
}

export interface GoogleBusinessInput {
  type?: LocalPostType | undefined
  event?: LocalSchedule | undefined
  offer?:
    | {
        couponCode?: string | undefined
        redeemOnlineUrl?: string | undefined
        termsConditions?: string | undefined
      }
    | undefined
  callToAction?: { actionType: CallToActionType; url?: string | undefined } | undefined
}

/** A Google Business Profile target's details as they go out: the type always set. */
export interface ResolvedGoogleBusiness extends GoogleBusinessInput {
  type: LocalPostType
}

/** What a post to a location goes out as: the details given, an update when none were. */
export const resolveGoogleBusiness = (given: GoogleBusinessInput | undefined): ResolvedGoogleBusiness => {
  const resolved: ResolvedGoogleBusiness = { type: given?.type ?? 'update' }
  if (given?.event) resolved.event = given.event
  if (given?.offer) resolved.offer = given.offer
  if (given?.callToAction) resolved.callToAction = given.callToAction
  return resolved
}

/** An event or an offer says something by its title alone: its copy (the summary) may be empty. */
export const titleAlone = (details: ResolvedGoogleBusiness | null): boolean =>
  details !== null && details.type !== 'update' && (details.event?.title.trim() ?? '') !== ''

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/

/** Why the details cannot go out, as blocker messages naming the field; `who` names the profile. */
export function googleBusinessBlockers(details: ResolvedGoogleBusiness, who: string): string[] {
  const blockers: string[] = []
  const say = (field: string, message: string) => blockers.push(`googlebusiness.${field}: ${who}: ${message}`)
  const { type, event, offer, callToAction } = details
  if (type === 'update' && event)
    say('event', 'an update has no title or dates; set type to event or offer, or leave event out')
  if (type !== 'update' && !event)
    say('event', `an ${type} needs its title and dates (event.title, event.startDate, event.endDate)`)
  if (type !== 'offer' && offer) say('offer', 'coupon, terms and redemption link belong to an offer')
  if (event) blockers.push(...scheduleBlockers(event, type, who))
  if (type === 'offer' && callToAction)
    say(
      'callToAction',
      'an offer shows Google’s own “Get offer” button; leave callToAction out (the redemption link is offer.redeemOnlineUrl)',
    )
  else if (callToAction?.actionType === 'CALL' && callToAction.url)
    say('callToAction.url', 'a Call now button calls the profile’s phone number and takes no URL')
  else if (callToAction && callToAction.actionType !== 'CALL' && !callToAction.url)
    say('callToAction.url', `a ${callToActionLabels[callToAction.actionType]} button needs the URL it opens`)
  return blockers
}

function scheduleBlockers(event: LocalSchedule, type: LocalPostType, who: string): string[] {
  const blockers: string[] = []
  const say = (field: string, message: string) =>
    blockers.push(`googlebusiness.event.${field}: ${who}: ${message}`)
  if (event.title.trim() === '') say('title', `the ${type} needs a title`)
  for (const field of ['startDate', 'endDate'] as const)
    if (!isCivilDate(event[field])) say(field, `${event[field]} is not a date (YYYY-MM-DD)`)
  for (const field of ['startTime', 'endTime'] as const) {
    const value = event[field]
    if (value !== undefined && !TIME.test(value)) say(field, `${value} is not a time (HH:MM, 24-hour)`)
  }
  if ((event.startTime === undefined) !== (event.endTime === undefined))
    say('endTime', 'give both startTime and endTime, or neither for whole days')
  if (blockers.length > 0) return blockers
  const start = `${event.startDate}T${event.startTime ?? '00:00'}`
  const end = `${event.endDate}T${event.endTime ?? '23:59'}`
  if (end < start) say('endDate', `the ${type} ends (${end.replace('T', ' ')}) before it starts`)
  return blockers
}
