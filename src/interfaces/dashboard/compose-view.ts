import { videoExtensions } from '../../core/media-url.js'
import { type Network, networkLabels } from '../../core/networks.js'
import { takesThreads, threadNetworks } from '../../core/thread-items.js'
import { type Checked, checkHtml, type FieldKey, fieldNotes, tabStates } from './compose-findings.js'
import {
  avatarHtml,
  handleOf,
  PRIVACY_LABELS,
  type PreviewTarget,
  previewHtml,
  profileName,
} from './compose-previews.js'
import { csrfField, escapeHtml, page } from './html.js'
import { account, type SignedIn } from './request.js'
import { assetUrl } from './ui/assets.js'
import { icon, networkName } from './ui/icons.js'

/**
 * Compose's page, in two panes: the editor (profiles, copy for all and per network, media, thread and first
 * comment, YouTube details, when) and the previews with the check. The form posts as it is without a script;
 * client/compose.ts adds the live check, the tabs, the media tray and the draft kept across reloads.
 */

export { PRIVACY_LABELS }

export const UPLOAD_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
]

export interface Account {
  platform: Network
  username: string
  name: string
  profileId: string
}

/** A profile in the picker: its account, the health of its connection and its queue's next free time. */
export interface PickerProfile extends Account {
  health: { tone: 'ok' | 'warn'; words: string }
  /** The queue's next free time ("2031-06-02 09:00 Europe/Berlin"); absent without posting times. */
  nextSlot?: string
}

export type When = 'now' | 'schedule' | 'queue'

export interface Draft {
  content: string
  profiles: string[]
  mediaUrls: string
  /** Copy keyed by network, or by `<platform>:<profileId>` for one profile. */
  variants: Record<string, string>
  youtubeTitle: string
  youtubeDescription: string
  youtubePrivacy: string
  youtubeConfirmed: boolean
  /** Mastodon: who sees the statuses, their content warning and language (empty: none given). */
  mastodonVisibility: string
  mastodonWarning: string
  mastodonLanguage: string
  when: When
  date: string
  time: string
  timezone: string
  /** Follow-up posts (X, Bluesky, Threads, Mastodon), each with its media URLs one per line. */
  thread: Array<{ content: string; mediaUrls: string }>
  /** The first comment (every network). */
  firstComment: string
}

export interface ComposeView {
  who: SignedIn
  profiles: PickerProfile[]
  draft: Draft
  /** A fresh form: the script fills the browser's time zone in. */
  fresh: boolean
  /** An empty form opened from the menu: the script puts back a draft kept in the browser. */
  restoreDraft?: boolean
  /** Where Herald's hosted media begin (`{PUBLIC_BASE_URL}/media/`): the tray shows those as pictures. */
  mediaPrefix: string
  checked?: Checked
  preview?: PreviewTarget[]
  problem?: string
}

const keyOf = (a: Account) => `${a.platform}:${a.profileId}`

function zoneOptions(selected: string): string {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')]
  if (!zones.includes(selected)) zones.unshift(selected)
  return zones.map((z) => `<option${z === selected ? ' selected' : ''}>${escapeHtml(z)}</option>`).join('')
}

/** A field's live note: its counts and the check's findings about it, refreshed by the script. */
const note = (key: FieldKey, checked: Checked | undefined) =>
  `<div class="field-note" data-field="${key}">${checked ? (fieldNotes(checked)[key] ?? '') : ''}</div>`

function pickerSection(view: ComposeView): string {
  const picked = new Set(view.draft.profiles)
  const networks = [...new Set(view.profiles.map((p) => p.platform))]
  const groups = networks
    .map((network) => {
      const chips = view.profiles
        .filter((p) => p.platform === network)
        .map((p) => {
          const key = keyOf(p)
          const id = `profile-${key.replace(/[^A-Za-z0-9_-]/g, '-')}`
          const slot = p.nextSlot ? ` data-next-slot="${escapeHtml(p.nextSlot)}"` : ''
          return `<label class="profile-chip"><input type="checkbox" name="profile" value="${escapeHtml(key)}" aria-label="${escapeHtml(profileName(p.platform, p.username))}" aria-describedby="${id}-health"${slot}${picked.has(key) ? ' checked' : ''}>
${avatarHtml(p.platform, p.name || p.username)}<span class="chip-text"><span class="chip-name">${escapeHtml(p.name || p.username)}</span><span class="chip-handle">${escapeHtml(handleOf(p.username))}</span></span><span class="chip ${p.health.tone}" id="${id}-health">${escapeHtml(p.health.words)}</span></label>`
        })
        .join('')
      return `<fieldset class="profile-group" data-network="${network}"><legend>${networkName(network)}</legend><div class="chips">${chips}</div></fieldset>`
    })
    .join('')
  return `<section class="panel compose-part" aria-labelledby="profiles-title"><h2 id="profiles-title">Profiles</h2>
${groups || '<p class="muted">No profile is connected yet: <a href="/channels">connect one</a>.</p>'}
${note('profiles', view.checked)}</section>`
}

function copySection(view: ComposeView): string {
  const { draft, checked } = view
  const networks = [...new Set(view.profiles.map((p) => p.platform))]
  const tabs = checked ? tabStates(checked) : {}
  const tab = (id: string, label: string, network?: Network) => {
    const state = network ? tabs[network] : undefined
    const count = state ? `${state.count} / ${state.limit}` : ''
    return `<button type="button" role="tab" id="tab-${id}" aria-controls="panel-${id}" aria-selected="${id === 'all'}"${network ? ` data-network="${network}"` : ''}${state && (state.blocked || state.count > state.limit) ? ' class="blocked"' : ''}>${network ? networkName(network) : escapeHtml(label)}<span class="tab-count">${count}</span></button>`
  }
  const variant = (key: string, label: string) =>
    `<label class="field">${escapeHtml(label)} <textarea name="variant_${escapeHtml(key)}" rows="3">${escapeHtml(draft.variants[key] ?? '')}</textarea></label>`
  const panels = networks
    .map((network) => {
      const own = view.profiles
        .filter((p) => p.platform === network)
        .map((p) =>
          variant(
            keyOf(p),
            `Copy for ${profileName(p.platform, p.username)} only (empty: the copy for ${networkLabels[network]})`,
          ),
        )
        .join('')
      return `<div role="tabpanel" class="copy-panel" id="panel-${network}" aria-labelledby="tab-${network}" data-network="${network}">
<h3 class="panel-title">${networkName(network)}</h3>
${variant(network, `Copy for ${networkLabels[network]} (empty: the copy for all)`)}
<details class="per-profile"${view.profiles.some((p) => p.platform === network && draft.variants[keyOf(p)]) ? ' open' : ''}><summary>Copy for one profile</summary>${own}</details>
${note(`copy:${network}`, checked)}</div>`
    })
    .join('')
  return `<section class="panel compose-part"><h2>Copy</h2>
<div role="tablist" class="copy-tabs" aria-label="Copy for" hidden>${tab('all', 'All')}${networks.map((n) => tab(n, networkLabels[n], n)).join('')}</div>
<div role="tabpanel" class="copy-panel" id="panel-all" aria-labelledby="tab-all">
<label class="field" for="content">Copy</label>
<textarea name="content" id="content" rows="6" required>${escapeHtml(draft.content)}</textarea>
${note('copy:all', checked)}</div>
${panels}</section>`
}

function mediaSection(view: ComposeView): string {
  const csrf = view.who.session.csrfToken
  return `<section class="panel compose-part" aria-labelledby="media-title"><h2 id="media-title">Media</h2>
<div class="tray" id="tray" data-hosted="${escapeHtml(view.mediaPrefix)}" data-video-endings="${[...videoExtensions].join(' ')}">
<ol class="thumbs" id="thumbs" aria-label="Media, in order"></ol>
<label class="drop" for="upload">${icon('plus')}<span>Add media</span><span class="muted drop-hint">Pick or drop images and videos</span></label>
<input type="file" id="upload" class="file-input" multiple accept="${UPLOAD_TYPES.join(',')}" data-csrf="${escapeHtml(csrf)}">
</div>
<p id="upload-status" class="muted" role="status"></p>
<noscript><p class="muted">Uploading needs JavaScript: without it, give each file's address under "Media by address".</p></noscript>
<details class="by-address"${view.draft.mediaUrls.trim() ? ' open' : ''}><summary>Media by address</summary>
<label class="field">Media URLs, one per line, in order <textarea name="mediaUrls" id="media-urls" rows="2">${escapeHtml(view.draft.mediaUrls)}</textarea></label></details>
${note('media', view.checked)}</section>`
}

function threadItem(item: { content: string; mediaUrls: string }, index: number): string {
  return `<li class="thread-item"><label class="field"><span class="item-name">Thread post ${index + 2}</span> <textarea name="threadContent" rows="2">${escapeHtml(item.content)}</textarea></label>
<label class="field">Its media URLs, one per line (optional) <textarea name="threadMedia" rows="1">${escapeHtml(item.mediaUrls)}</textarea></label>
<div class="item-tools" hidden><button type="button" data-move="-1">Move up</button><button type="button" data-move="1">Move down</button><button type="button" class="danger" data-remove>Remove</button></div></li>`
}

function extrasSection(view: ComposeView): string {
  const { draft, checked } = view
  const threadShown =
    draft.profiles.length === 0 || draft.profiles.some((p) => takesThreads(p.split(':')[0] as Network))
  return `<section class="panel compose-part" id="thread" data-networks="${threadNetworks.join(' ')}" aria-labelledby="thread-title"${threadShown ? '' : ' hidden'}><h2 id="thread-title">Thread</h2>
<p class="muted">On X, Bluesky, Threads and Mastodon each post replies to the one before; empty posts are left out.</p>
<ol class="thread-items" id="thread-items">${[...draft.thread, { content: '', mediaUrls: '' }].map(threadItem).join('')}</ol>
<button type="submit" name="intent" value="addItem" id="add-item">${icon('plus')}Add to thread</button>
${note('thread', checked)}</section>
<section class="panel compose-part" id="comment" aria-labelledby="comment-title"><h2 id="comment-title">First comment</h2>
<label class="field">First comment (optional: a comment on Facebook, Instagram, LinkedIn and YouTube, a reply on X, Bluesky, Threads and Mastodon) <textarea name="firstComment" rows="2">${escapeHtml(draft.firstComment)}</textarea></label>
${note('comment', checked)}</section>`
}

function youtubeSection(view: ComposeView): string {
  const { draft } = view
  if (!view.profiles.some((p) => p.platform === 'youtube')) return ''
  const privacy = PRIVACY_LABELS[draft.youtubePrivacy] ?? 'Private'
  const options = Object.entries(PRIVACY_LABELS)
    .map(
      ([value, label]) =>
        `<option value="${value}"${draft.youtubePrivacy === value ? ' selected' : ''}>${label}</option>`,
    )
    .join('')
  return `<section class="panel compose-part" id="youtube" aria-labelledby="youtube-title"${draft.profiles.some((p) => p.startsWith('youtube:')) ? '' : ' hidden'}><h2 id="youtube-title">${networkName('youtube')} details</h2>
<label class="field">Title <input type="text" name="youtubeTitle" maxlength="100" value="${escapeHtml(draft.youtubeTitle)}"></label>
<label class="field">Description (optional; the copy when empty) <textarea name="youtubeDescription" rows="2" maxlength="5000">${escapeHtml(draft.youtubeDescription)}</textarea></label>
<label class="field">Visibility <select name="youtubePrivacy" id="youtube-privacy">${options}</select></label>
<label class="check"><input type="checkbox" name="youtubeConfirm" id="youtube-confirm" value="${escapeHtml(draft.youtubePrivacy)}"${draft.youtubeConfirmed ? ' checked' : ''}> This video will be <strong id="youtube-visibility">${privacy}</strong> on YouTube</label>
<p class="muted">Creating a post to YouTube needs this confirmation: a public upload is seen by everyone at once.</p>
${note('youtube', view.checked)}</section>`
}

const VISIBILITY_LABELS: Record<string, string> = {
  public: 'Public',
  unlisted: 'Quiet public (not on public timelines)',
  private: 'Followers only',
  direct: 'Mentioned people only',
}

/** Mastodon's details: visibility, a content warning and the language, for every status of the post. */
function mastodonSection(view: ComposeView): string {
  const { draft } = view
  if (!view.profiles.some((p) => p.platform === 'mastodon')) return ''
  const options = Object.entries(VISIBILITY_LABELS)
    .map(
      ([value, label]) =>
        `<option value="${value}"${draft.mastodonVisibility === value ? ' selected' : ''}>${escapeHtml(label)}</option>`,
    )
    .join('')
  return `<section class="panel compose-part" id="mastodon" aria-labelledby="mastodon-title"${draft.profiles.some((p) => p.startsWith('mastodon:')) ? '' : ' hidden'}><h2 id="mastodon-title">${networkName('mastodon')} details</h2>
<label class="field">Visibility <select name="mastodonVisibility">${options}</select></label>
<label class="field">Content warning (optional: shown instead of the text and media until a reader opens them; it counts towards the instance's limit) <input type="text" name="mastodonWarning" maxlength="1000" value="${escapeHtml(draft.mastodonWarning)}"></label>
<label class="field">Language (optional: a code such as en) <input type="text" name="mastodonLanguage" maxlength="3" pattern="[a-z]{2,3}" autocapitalize="none" spellcheck="false" value="${escapeHtml(draft.mastodonLanguage)}"></label>
<p class="muted">They apply to the post and every post of its thread.</p>
${note('mastodon', view.checked)}</section>`
}

/** Where "Add to queue" puts the post: each chosen profile's next free time, or "next free slot". */
export function queueSlotText(profiles: PickerProfile[], chosen: string[]): string {
  const picked = profiles.filter((p) => chosen.includes(keyOf(p)))
  if (picked.length === 0 || picked.some((p) => !p.nextSlot)) return 'Goes to each profile’s next free slot.'
  if (picked.length === 1) return `Next free slot: ${picked[0]?.nextSlot}.`
  return `Next free slots: ${picked.map((p) => `${profileName(p.platform, p.username)} ${p.nextSlot}`).join('; ')}.`
}

function whenSection(view: ComposeView): string {
  const { draft, checked } = view
  return `<section class="panel compose-part" aria-labelledby="when-title"><h2 id="when-title">When</h2>
<div class="when-fields">
<label class="field">Date <input type="date" name="date" value="${escapeHtml(draft.date)}"></label>
<label class="field">Time <input type="time" name="time" value="${escapeHtml(draft.time)}"></label>
<label class="field zone">Time zone <select name="timezone" id="timezone"${view.fresh ? ' data-browser-default' : ''}>${zoneOptions(draft.timezone)}</select></label>
</div>
<p class="muted">Schedule uses the date and time; Publish now and Add to queue leave them aside.</p>
${note('when', checked)}</section>`
}

function actionBar(view: ComposeView): string {
  const { checked } = view
  return `<div class="compose-actions">
<div id="check" class="check" aria-live="polite">${checked ? checkHtml(checked) : '<p class="muted">The check runs as you write: each network’s count, what would stop the post, and its price against the balance.</p>'}</div>
<div class="action-buttons">
<noscript><button type="submit" name="intent" value="check">Check and preview</button></noscript>
<button type="submit" name="intent" value="now" data-when="now">${icon('send')}Publish now</button>
<button type="submit" name="intent" value="schedule" data-when="schedule">${icon('clock')}Schedule</button>
<button type="submit" name="intent" value="queue" data-when="queue" class="primary" aria-describedby="queue-slot">${icon('list-ordered')}Add to queue</button>
</div>
<p class="muted queue-slot" id="queue-slot">${escapeHtml(queueSlotText(view.profiles, view.draft.profiles))}</p>
<p class="muted to-preview"><a href="#preview-region">See the preview</a></p>
<p class="muted shortcut">Ctrl+Enter (⌘+Enter on a Mac) presses the highlighted button.</p>
</div>`
}

/** The price against the balance, beside the previews so it stays in view. */
export function priceLine(checked: Checked | undefined): string {
  if (!checked) return 'The price shows once the check has run.'
  const { cost, balance } = checked.credits
  return `${checked.ok ? 'Ready' : 'Not ready'} · costs ${cost} credit${cost === 1 ? '' : 's'} · balance ${balance}`
}

export function composePage(view: ComposeView) {
  const problem = view.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(view.problem)}</p></div>`
    : ''
  return page(
    'Compose',
    `<div class="page-head"><h1>Create post</h1></div>
${problem}
<div class="composer">
<form method="post" action="/compose" id="compose" class="compose-editor"${view.restoreDraft ? ' data-fresh' : ''} data-draft-key="herald:compose:${escapeHtml(view.who.workspace.id)}">${csrfField(view.who.session.csrfToken)}
<p id="draft-status" class="draft-status" role="status" hidden><span></span> <button type="button" id="discard-draft">Discard the kept draft</button></p>
${pickerSection(view)}
${copySection(view)}
${mediaSection(view)}
${extrasSection(view)}
${youtubeSection(view)}
${mastodonSection(view)}
${whenSection(view)}
${actionBar(view)}
</form>
<aside class="compose-previews" tabindex="0" aria-label="Previews">
<p id="price-line" class="price-line" aria-live="polite">${escapeHtml(priceLine(view.checked))}</p>
<section aria-labelledby="preview-title" id="preview-region"><h2 id="preview-title">Preview</h2>
<div id="preview" class="previews">${previewHtml(view.preview ?? [])}</div></section>
</aside>
</div>
<script type="module" src="${assetUrl('compose.js')}"></script>`,
    { signedIn: account(view.who) },
  )
}

export type { Checked, PreviewTarget }
