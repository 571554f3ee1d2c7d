import {
  type CallToActionType,
  callToActionLabels,
  callToActionTypes,
  type GoogleBusinessInput,
  type LocalPostType,
  localPostTypes,
} from '../../core/googlebusiness-details.js'
import { escapeHtml } from './html.js'
import { networkName } from './ui/icons.js'

/**
 * Compose's Google Business Profile part: what the post is (an update, an event or an offer), an event's or
 * an offer's title and dates, an offer's code, terms and link, and the button under an update or an event.
 * Read from the form into the `googlebusiness` object the tools take; every rule about it is preflight's.
 * Without a script every field shows; the page's script shows only those of the type chosen.
 */

export interface GoogleBusinessDraft {
  type: LocalPostType
  title: string
  startDate: string
  startTime: string
  endDate: string
  endTime: string
  couponCode: string
  termsConditions: string
  redeemOnlineUrl: string
  /** A button's type, or '' for none. */
  action: CallToActionType | ''
  actionUrl: string
}

export const emptyGoogleBusinessDraft = (): GoogleBusinessDraft => ({
  type: 'update',
  title: '',
  startDate: '',
  startTime: '',
  endDate: '',
  endTime: '',
  couponCode: '',
  termsConditions: '',
  redeemOnlineUrl: '',
  action: '',
  actionUrl: '',
})

const TYPE_LABELS: Record<LocalPostType, string> = { update: 'Update', event: 'Event', offer: 'Offer' }

export function readGoogleBusinessDraft(one: (name: string) => string): GoogleBusinessDraft {
  const type = one('gbpType')
  const action = one('gbpAction')
  return {
    type: (localPostTypes as readonly string[]).includes(type) ? (type as LocalPostType) : 'update',
    title: one('gbpTitle'),
    startDate: one('gbpStartDate'),
    startTime: one('gbpStartTime'),
    endDate: one('gbpEndDate'),
    endTime: one('gbpEndTime'),
    couponCode: one('gbpCouponCode'),
    termsConditions: one('gbpTerms'),
    redeemOnlineUrl: one('gbpRedeemUrl'),
    action: (callToActionTypes as readonly string[]).includes(action) ? (action as CallToActionType) : '',
    actionUrl: one('gbpActionUrl'),
  }
}

const given = (value: string) => (value.trim() === '' ? undefined : value.trim())

/**
 * The tools' `googlebusiness` object for a draft: only what its type takes (an update's button, an
 * event's title, dates and button, an offer's title, dates, code, terms and link), left to preflight to
 * judge; empty fields are left out.
 */
export function googleBusinessArguments(draft: GoogleBusinessDraft): GoogleBusinessInput {
  const event =
    draft.type === 'update'
      ? undefined
      : {
          title: draft.title,
          startDate: draft.startDate,
          endDate: draft.endDate,
          ...(given(draft.startTime) ? { startTime: draft.startTime } : {}),
          ...(given(draft.endTime) ? { endTime: draft.endTime } : {}),
        }
  const offer = {
    ...(given(draft.couponCode) ? { couponCode: draft.couponCode.trim() } : {}),
    ...(given(draft.termsConditions) ? { termsConditions: draft.termsConditions.trim() } : {}),
    ...(given(draft.redeemOnlineUrl) ? { redeemOnlineUrl: draft.redeemOnlineUrl.trim() } : {}),
  }
  const action =
    draft.type !== 'offer' && draft.action
      ? { actionType: draft.action, ...(given(draft.actionUrl) ? { url: draft.actionUrl.trim() } : {}) }
      : undefined
  return {
    type: draft.type,
    ...(event ? { event } : {}),
    ...(draft.type === 'offer' && Object.keys(offer).length > 0 ? { offer } : {}),
    ...(action ? { callToAction: action } : {}),
  }
}

const input = (label: string, name: string, value: string, type = 'text', extra = '') =>
  `<label class="field">${label} <input type="${type}" name="${name}" value="${escapeHtml(value)}"${extra}></label>`

/** The part itself, hidden until a location is chosen (the script shows it then); `note` is its live note. */
export function googleBusinessSection(
  draft: GoogleBusinessDraft,
  options: { shown: boolean; note: string },
): string {
  const types = localPostTypes
    .map(
      (type) =>
        `<label class="check"><input type="radio" name="gbpType" value="${type}"${draft.type === type ? ' checked' : ''}> ${TYPE_LABELS[type]}</label>`,
    )
    .join('')
  const actions = [
    ['', 'No button'] as const,
    ...callToActionTypes.map((t) => [t, callToActionLabels[t]] as const),
  ]
    .map(
      ([value, label]) =>
        `<option value="${value}"${draft.action === value ? ' selected' : ''}>${escapeHtml(label)}</option>`,
    )
    .join('')
  return `<section class="panel compose-part" id="googlebusiness" aria-labelledby="googlebusiness-title"${options.shown ? '' : ' hidden'}><h2 id="googlebusiness-title">${networkName('googlebusiness')} details</h2>
<fieldset class="gbp-types"><legend>Post type</legend>${types}</fieldset>
<fieldset class="gbp-part" data-gbp-for="event offer"><legend>Title and dates (events and offers)</legend>
${input('Title', 'gbpTitle', draft.title, 'text', ' maxlength="200"')}
<div class="when-fields">${input('Starts', 'gbpStartDate', draft.startDate, 'date')}${input('at (optional)', 'gbpStartTime', draft.startTime, 'time')}</div>
<div class="when-fields">${input('Ends', 'gbpEndDate', draft.endDate, 'date')}${input('at (optional)', 'gbpEndTime', draft.endTime, 'time')}</div>
<p class="muted">Dates and times are the business’s own; leave both times out for whole days.</p></fieldset>
<fieldset class="gbp-part" data-gbp-for="offer"><legend>Offer</legend>
${input('Coupon code (optional)', 'gbpCouponCode', draft.couponCode, 'text', ' maxlength="200"')}
${input('Where to redeem it online (optional)', 'gbpRedeemUrl', draft.redeemOnlineUrl, 'url')}
<label class="field">Terms and conditions (optional) <textarea name="gbpTerms" rows="2" maxlength="5000">${escapeHtml(draft.termsConditions)}</textarea></label>
<p class="muted">An offer shows Google’s own “Get offer” button, leading to the redemption link.</p></fieldset>
<fieldset class="gbp-part" data-gbp-for="update event"><legend>Button (updates and events)</legend>
<label class="field">Button <select name="gbpAction">${actions}</select></label>
${input('Where it leads (every button but Call now)', 'gbpActionUrl', draft.actionUrl, 'url')}</fieldset>
<p class="muted">The copy is the post’s text, up to 1,500 characters, with one photo at most.</p>
${options.note}</section>`
}
