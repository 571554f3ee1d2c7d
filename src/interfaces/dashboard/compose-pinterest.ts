import type { PinterestDetails } from '../../core/pinterest-details.js'
import { PIN_LINK_LIMIT, PIN_TITLE_LIMIT } from '../../core/pinterest-details.js'
import type { FormBody } from '../../platform/form.js'
import { escapeHtml } from './html.js'
import { networkName } from './ui/icons.js'

/**
 * Compose's Pinterest part: a pin's title, the page it links to and a video pin's cover, shown while a board
 * is chosen. What the form gives becomes create_post's `pinterest` object; preflight_post holds the limits.
 */

export interface PinterestDraft {
  pinterestTitle: string
  pinterestLink: string
  pinterestCover: string
}

export const emptyPinterestDraft = (): PinterestDraft => ({
  pinterestTitle: '',
  pinterestLink: '',
  pinterestCover: '',
})

export function readPinterestDraft(
  one: (body: FormBody, name: string) => string,
  body: FormBody,
): PinterestDraft {
  return {
    pinterestTitle: one(body, 'pinterestTitle'),
    pinterestLink: one(body, 'pinterestLink'),
    pinterestCover: one(body, 'pinterestCover'),
  }
}

/** The `pinterest` object of the tools' arguments: only the fields filled in. */
export function pinterestDetails(draft: PinterestDraft): PinterestDetails {
  return {
    ...(draft.pinterestTitle.trim() ? { title: draft.pinterestTitle.trim() } : {}),
    ...(draft.pinterestLink.trim() ? { link: draft.pinterestLink.trim() } : {}),
    ...(draft.pinterestCover.trim() ? { coverImageUrl: draft.pinterestCover.trim() } : {}),
  }
}

export const targetsPinterest = (profiles: readonly string[]) =>
  profiles.some((p) => p.startsWith('pinterest:'))

/** The section, present when a board is connected, shown while one is chosen (the page's script follows). */
export function pinterestSection(
  draft: PinterestDraft & { profiles: string[] },
  hasBoards: boolean,
  note: string,
): string {
  if (!hasBoards) return ''
  return `<section class="panel compose-part" id="pinterest" aria-labelledby="pinterest-title"${targetsPinterest(draft.profiles) ? '' : ' hidden'}><h2 id="pinterest-title">${networkName('pinterest')} pin</h2>
<p class="muted">The copy is the pin’s description. A pin needs an image, a carousel of 2 to 5 images, or a video.</p>
<label class="field">Title (optional, up to ${PIN_TITLE_LIMIT} characters) <input type="text" name="pinterestTitle" value="${escapeHtml(draft.pinterestTitle)}"></label>
<label class="field">Link, the page the pin opens (optional) <input type="url" name="pinterestLink" maxlength="${PIN_LINK_LIMIT}" value="${escapeHtml(draft.pinterestLink)}" placeholder="https://"></label>
<label class="field">Cover image address for a video pin (optional; the video’s first frame when empty) <input type="url" name="pinterestCover" value="${escapeHtml(draft.pinterestCover)}" placeholder="https://"></label>
${note}</section>`
}
