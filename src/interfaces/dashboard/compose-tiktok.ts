import {
  type TikTokCreator,
  type TikTokDetailsInput,
  type TikTokPrivacyLevel,
  tiktokConsentSentence,
  tiktokPrivacyLabels,
  tiktokPrivacyLevels,
} from '../../core/tiktok-rules.js'
import { escapeHtml } from './ui/escape.js'
import { networkName } from './ui/icons.js'

/**
 * Compose's TikTok part, laid out where TikTok's content-sharing guidelines put each thing: the creator's
 * nickname at the top, then who can watch (a choice with no default, only the levels the creator's account
 * offers), the comment, duet and stitch switches (off until turned on, and greyed out where the creator
 * turned them off in the app), the commercial-content disclosure (a switch revealing "Your brand" and
 * "Branded content"), sending it as a draft instead, and the consent sentence by the post buttons. The
 * tools decide what may go out; this only asks the questions TikTok requires asked.
 */

export interface TikTokDraft {
  privacy: string
  comments: boolean
  duet: boolean
  stitch: boolean
  disclose: boolean
  yourBrand: boolean
  branded: boolean
  draft: boolean
}

export const emptyTikTokDraft = (): TikTokDraft => ({
  privacy: '',
  comments: false,
  duet: false,
  stitch: false,
  disclose: false,
  yourBrand: false,
  branded: false,
  draft: false,
})

const isLevel = (value: string): value is TikTokPrivacyLevel =>
  (tiktokPrivacyLevels as readonly string[]).includes(value)

/** The form's TikTok fields (`one` reads a field's first value). */
export function readTikTokDraft(one: (name: string) => string): TikTokDraft {
  const on = (name: string) => one(name) === 'on'
  return {
    privacy: isLevel(one('tiktokPrivacy')) ? one('tiktokPrivacy') : '',
    comments: on('tiktokComments'),
    duet: on('tiktokDuet'),
    stitch: on('tiktokStitch'),
    disclose: on('tiktokDisclose'),
    yourBrand: on('tiktokYourBrand'),
    branded: on('tiktokBranded'),
    draft: on('tiktokDraft'),
  }
}

/** The tools' `tiktok` object for the draft: only what was chosen (no privacy level is sent unchosen). */
export function tiktokArguments(draft: TikTokDraft): TikTokDetailsInput {
  return {
    ...(isLevel(draft.privacy) ? { privacyLevel: draft.privacy } : {}),
    ...(draft.comments ? { allowComments: true } : {}),
    ...(draft.duet ? { allowDuet: true } : {}),
    ...(draft.stitch ? { allowStitch: true } : {}),
    ...(draft.disclose && draft.yourBrand ? { yourBrand: true } : {}),
    ...(draft.disclose && draft.branded ? { brandedContent: true } : {}),
    ...(draft.draft ? { sendAsDraft: true } : {}),
  }
}

/** TikTok's guidelines: a disclosure turned on must say which kind of commercial content it is. */
export function disclosureProblem(draft: TikTokDraft): string | undefined {
  return draft.disclose && !draft.yourBrand && !draft.branded
    ? 'TikTok: the post is marked as commercial content; choose “Your brand”, “Branded content” or both, or turn the disclosure off.'
    : undefined
}

/** A TikTok profile in the picker, with its creator's options when TikTok answered them. */
export interface TikTokProfile {
  name: string
  username: string
  creator?: TikTokCreator | undefined
}

/** The levels offered: those every chosen creator may use when TikTok said, else TikTok's four. */
function offeredLevels(profiles: TikTokProfile[]): TikTokPrivacyLevel[] {
  const known = profiles.flatMap((p) => (p.creator ? [p.creator.privacyLevels] : []))
  if (known.length === 0) return [...tiktokPrivacyLevels]
  return tiktokPrivacyLevels.filter((level) => known.every((levels) => levels.includes(level)))
}

function switchBox(name: string, label: string, checked: boolean, offBy: string[]) {
  const off = offBy.length > 0
  const why = off
    ? ` <span class="muted">(turned off in the TikTok app by ${escapeHtml(offBy.join(', '))})</span>`
    : ''
  return `<label class="check"><input type="checkbox" name="${name}" value="on"${checked && !off ? ' checked' : ''}${off ? ' disabled' : ''}> ${label}${why}</label>`
}

/**
 * The TikTok part for the workspace's TikTok profiles (absent when it has none), shown while one of them is
 * chosen. `note` is the field note the live check fills.
 */
export function tiktokSection(input: {
  draft: TikTokDraft
  profiles: TikTokProfile[]
  chosen: boolean
  note: string
}): string {
  const { draft, profiles } = input
  if (profiles.length === 0) return ''
  const who = profiles
    .map(
      (p) =>
        `<strong>${escapeHtml(p.creator?.nickname || p.name || p.username)}</strong> (@${escapeHtml(p.username)})`,
    )
    .join(', ')
  const options = offeredLevels(profiles)
    .map(
      (level) =>
        `<option value="${level}"${draft.privacy === level ? ' selected' : ''}>${escapeHtml(tiktokPrivacyLabels[level])}</option>`,
    )
    .join('')
  const offBy = (flag: 'commentsOff' | 'duetOff' | 'stitchOff') =>
    profiles.filter((p) => p.creator?.[flag]).map((p) => `@${p.username}`)
  return `<section class="panel compose-part" id="tiktok" aria-labelledby="tiktok-title"${input.chosen ? '' : ' hidden'}><h2 id="tiktok-title">${networkName('tiktok')} details</h2>
<p class="muted">Posting to TikTok as ${who}.</p>
<label class="field">Who can watch this post <select name="tiktokPrivacy" id="tiktok-privacy"><option value=""${draft.privacy ? '' : ' selected'}>Choose who can watch</option>${options}</select></label>
<fieldset class="tiktok-switches"><legend>Allow viewers to</legend>
${switchBox('tiktokComments', 'Comment', draft.comments, offBy('commentsOff'))}
${switchBox('tiktokDuet', 'Duet (videos)', draft.duet, offBy('duetOff'))}
${switchBox('tiktokStitch', 'Stitch (videos)', draft.stitch, offBy('stitchOff'))}
</fieldset>
<fieldset class="tiktok-disclosure"><legend>Commercial content</legend>
<label class="check"><input type="checkbox" name="tiktokDisclose" id="tiktok-disclose" value="on"${draft.disclose ? ' checked' : ''}> Disclose that this post promotes a brand, a product or a service</label>
<div id="tiktok-kinds" class="tiktok-kinds"${draft.disclose ? '' : ' hidden'}>
<label class="check"><input type="checkbox" name="tiktokYourBrand" value="on"${draft.yourBrand ? ' checked' : ''}> Your brand: you are promoting yourself or your own business; TikTok labels the post “Promotional content”</label>
<label class="check"><input type="checkbox" name="tiktokBranded" id="tiktok-branded" value="on"${draft.branded ? ' checked' : ''}> Branded content: you are promoting another brand or a third party; TikTok labels the post “Paid partnership” (it cannot be “Only me”)</label>
</div></fieldset>
<label class="check"><input type="checkbox" name="tiktokDraft" id="tiktok-draft" value="on"${draft.draft ? ' checked' : ''}> Send to TikTok as a draft instead: the creator finishes and posts it in the TikTok app</label>
${input.note}</section>`
}

/** The consent sentence TikTok requires beside the post buttons, while a TikTok profile is chosen. */
export function tiktokConsent(input: {
  draft: TikTokDraft
  profiles: TikTokProfile[]
  chosen: boolean
}): string {
  if (input.profiles.length === 0) return ''
  const branded = input.draft.disclose && input.draft.branded
  return `<p class="muted tiktok-consent" id="tiktok-consent" data-plain="${escapeHtml(tiktokConsentSentence({}))}" data-branded="${escapeHtml(tiktokConsentSentence({ brandedContent: true }))}"${input.chosen ? '' : ' hidden'}>${escapeHtml(tiktokConsentSentence({ brandedContent: branded }))}</p>`
}
