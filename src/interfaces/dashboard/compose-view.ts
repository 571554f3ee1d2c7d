import type { Network } from '../../core/networks.js'
import type { ResolvedYouTubeDetails } from '../../core/youtube-details.js'
import { csrfField, escapeHtml, networkLabels, page } from './html.js'
import { cropAspect, cutCopy, previewRules } from './preview-rules.js'
import { account, type SignedIn } from './request.js'

/** Compose's HTML: the form, the preflight's findings and the preview per profile (escaped throughout). */

export const UPLOAD_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
]

export const PRIVACY_LABELS: Record<string, string> = {
  private: 'Private',
  unlisted: 'Unlisted',
  public: 'Public',
}

export interface Account {
  platform: Network
  username: string
  name: string
  profileId: string
}

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
  when: 'now' | 'schedule' | 'queue'
  date: string
  time: string
  timezone: string
  /** Follow-up posts (X, Bluesky, Threads), each with its media URLs one per line. */
  thread: Array<{ content: string; mediaUrls: string }>
  /** The first comment (every network). */
  firstComment: string
}

/** One target's length as Herald counts it on its network, against the limit preflight reports. */
export interface TargetCount {
  platform: Network
  profileId: string
  username: string
  count: number
  limit: number
  /** What is counted when it is not the post itself: "thread post 2", "first comment". */
  what?: string
}

export interface Checked {
  ok: boolean
  counts: TargetCount[]
  blockers: string[]
  warnings: string[]
  credits: { cost: number; balance: number; remainingAfter: number }
}

/** What one profile's preview shows: its copy and media as they will go out. */
export interface PreviewTarget {
  platform: Network
  username: string
  copy: string
  media: Array<{ url: string; src?: string; video: boolean }>
  youtube: ResolvedYouTubeDetails | null
  /** The thread posts and first comment shown under the post, in order. */
  items?: Array<{ label: string; copy: string; media: Array<{ url: string; src?: string; video: boolean }> }>
}

const handle = (username: string) => `@${username.replace(/^@+/, '')}`
const who = (platform: Network, username: string) => `${networkLabels[platform]} ${handle(username)}`
const fileName = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

/** The live check: counts per profile, blockers, warnings and the cost against the balance. */
export function checkHtml(checked: Checked): string {
  const counts = checked.counts
    .map(
      (c) =>
        `<li${c.count > c.limit ? ' class="over"' : ''}>${escapeHtml(who(c.platform, c.username))}${c.what ? `, ${escapeHtml(c.what)}` : ''}: <strong>${c.count}</strong> / ${c.limit} characters${c.count > c.limit ? ' (over)' : ''}</li>`,
    )
    .join('')
  const { cost, balance } = checked.credits
  return `<p class="${checked.ok ? 'notice' : 'problem'}">${checked.ok ? 'Ready to create.' : 'Not ready: fix the blockers below.'} It costs <strong>${cost}</strong> credits of ${balance}.</p>
${counts ? `<ul class="counts">${counts}</ul>` : ''}
${checked.blockers.length ? `<h3>Blockers</h3><ul>${checked.blockers.map((b) => `<li>${escapeHtml(b)}</li>`).join('')}</ul>` : ''}
${checked.warnings.length ? `<h3>Warnings</h3><ul>${checked.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''}`
}

/** A problem that stopped the check itself (the arguments were refused). */
export const problemHtml = (message: string) => `<p class="problem">Not ready: ${escapeHtml(message)}</p>`

function mediaHtml(target: PreviewTarget): string {
  const { platform, media } = target
  if (media.length === 0) return ''
  const rule = previewRules[platform]
  const layout = media.length > 1 ? rule.several.layout : 'single'
  const items = media
    .map((item, index) => {
      const aspect = cropAspect(platform, media.length)
      const bounds = media.length === 1 ? ` data-min="${rule.single.min}" data-max="${rule.single.max}"` : ''
      // The frame's starting crop is a class (the CSP allows no inline style); the page's script then sets the
      // image's own ratio, within the network's bounds, once it has loaded.
      const crop = `ratio-${Math.round(aspect * 10_000)}`
      const body =
        item.src && !item.video
          ? `<img src="${escapeHtml(item.src)}" alt="${escapeHtml(fileName(item.url))}" class="${crop}"${bounds}>`
          : `<span class="frame ${crop}">${item.video ? 'Video' : 'Image'}: ${escapeHtml(fileName(item.url))}</span>`
      return `<li><figure>${body}<figcaption>${index + 1} of ${media.length}</figcaption></figure></li>`
    })
    .join('')
  const label =
    layout === 'carousel'
      ? `Carousel of ${media.length}, in this order`
      : layout === 'grid'
        ? `Grid of ${media.length}`
        : 'One item'
  return `<ol class="media ${layout}" aria-label="${label}">${items}</ol>`
}

/** The thread posts and first comment under a post's preview, each with its own copy and media. */
function itemsHtml(target: PreviewTarget): string {
  if (!target.items?.length) return ''
  const items = target.items
    .map(
      (item) =>
        `<li><p class="muted">${escapeHtml(item.label)}</p><p class="copy">${escapeHtml(item.copy)}</p>${mediaHtml({ ...target, media: item.media })}</li>`,
    )
    .join('')
  return `<ol class="items" aria-label="After the post">${items}</ol>`
}

function previewCard(target: PreviewTarget): string {
  const name = who(target.platform, target.username)
  const rule = previewRules[target.platform]
  if (target.youtube) {
    const description = cutCopy('youtube', target.youtube.description)
    return `<article class="card shorts" aria-label="Preview on ${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>
${mediaHtml(target)}
<p><strong>${escapeHtml(target.youtube.title)}</strong></p>
<p class="copy">${escapeHtml(description.shown)}${description.cut ? ` <span class="more">${escapeHtml(rule.cut.more)}</span>` : ''}</p>
<p>Visibility: <strong>${escapeHtml(PRIVACY_LABELS[target.youtube.privacyStatus] ?? target.youtube.privacyStatus)}</strong></p>
${itemsHtml(target)}</article>`
  }
  const copy = cutCopy(target.platform, target.copy)
  return `<article class="card" aria-label="Preview on ${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>
<p class="copy">${escapeHtml(copy.shown)}${copy.cut ? ` <span class="more">${escapeHtml(rule.cut.more)}</span>` : ''}</p>
${copy.cut ? `<p class="muted">The feed cuts the copy after ${rule.cut.at} characters.</p>` : ''}
${mediaHtml(target)}
${itemsHtml(target)}</article>`
}

export const previewHtml = (targets: PreviewTarget[]) =>
  targets.length
    ? targets.map(previewCard).join('\n')
    : '<p class="muted">Tick a profile to see how the post will look there.</p>'

function zoneOptions(selected: string): string {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')]
  if (!zones.includes(selected)) zones.unshift(selected)
  return zones.map((z) => `<option${z === selected ? ' selected' : ''}>${escapeHtml(z)}</option>`).join('')
}

export interface ComposeView {
  who: SignedIn
  accounts: Account[]
  draft: Draft
  /** A fresh form: the script fills the browser's time zone in. */
  fresh: boolean
  checked?: Checked
  preview?: PreviewTarget[]
  problem?: string
}

export function composePage(view: ComposeView) {
  const { who: signedIn, accounts, draft, checked } = view
  const csrf = signedIn.session.csrfToken
  const picked = new Set(draft.profiles)
  const boxes = accounts
    .map((a) => {
      const key = `${a.platform}:${a.profileId}`
      return `<label><input type="checkbox" name="profile" value="${escapeHtml(key)}"${picked.has(key) ? ' checked' : ''}> ${escapeHtml(networkLabels[a.platform])}: ${escapeHtml(handle(a.username))} (${escapeHtml(a.name)})</label>`
    })
    .join('\n')
  const networks = [...new Set(accounts.map((a) => a.platform))]
  const variantField = (key: string, label: string) =>
    `<label>Copy for ${escapeHtml(label)} only (optional) <textarea name="variant_${escapeHtml(key)}" rows="2">${escapeHtml(draft.variants[key] ?? '')}</textarea></label>`
  const variantFields = [
    ...networks.map((n) => variantField(n, networkLabels[n])),
    ...accounts.map((a) => variantField(`${a.platform}:${a.profileId}`, who(a.platform, a.username))),
  ].join('\n')
  const privacy = PRIVACY_LABELS[draft.youtubePrivacy] ?? 'Private'
  const youtube = networks.includes('youtube')
    ? `<fieldset id="youtube"${draft.profiles.some((p) => p.startsWith('youtube:')) ? '' : ' hidden'}><legend>YouTube</legend>
<label>Title <input type="text" name="youtubeTitle" maxlength="100" value="${escapeHtml(draft.youtubeTitle)}"></label>
<label>Description (optional; the copy when empty) <textarea name="youtubeDescription" rows="2" maxlength="5000">${escapeHtml(draft.youtubeDescription)}</textarea></label>
<label>Visibility <select name="youtubePrivacy" id="youtube-privacy">${Object.entries(PRIVACY_LABELS)
        .map(
          ([value, label]) =>
            `<option value="${value}"${draft.youtubePrivacy === value ? ' selected' : ''}>${label}</option>`,
        )
        .join('')}</select></label>
<label><input type="checkbox" name="youtubeConfirm" id="youtube-confirm" value="${escapeHtml(draft.youtubePrivacy)}"${draft.youtubeConfirmed ? ' checked' : ''}> This video will be <strong id="youtube-visibility">${privacy}</strong> on YouTube</label>
<p class="muted">Creating a post to YouTube needs this confirmation: a public upload is seen by everyone at once.</p></fieldset>`
    : ''
  const problem = view.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(view.problem)}</p></div>`
    : ''
  return page(
    'Compose',
    `<h1>Compose</h1>
${problem}
<form method="post" action="/compose" id="compose">${csrfField(csrf)}
<label>Copy <textarea name="content" rows="5" required>${escapeHtml(draft.content)}</textarea></label>
<fieldset><legend>Profiles</legend>
${boxes || '<p class="muted">No profile is connected yet: <a href="/channels">connect one</a>.</p>'}</fieldset>
<label>Media URLs, one per line, in order (optional) <textarea name="mediaUrls" id="media-urls" rows="2">${escapeHtml(draft.mediaUrls)}</textarea></label>
<label>Or upload a file (Herald hosts it and adds its URL above) <input type="file" id="upload" accept="${UPLOAD_TYPES.join(',')}" data-csrf="${escapeHtml(csrf)}"></label>
<p id="upload-status" class="muted" role="status"></p>
<fieldset id="thread"><legend>Thread (X, Bluesky and Threads: each post replies to the one before)</legend>
${[...draft.thread, { content: '', mediaUrls: '' }]
  .map(
    (
      item,
      i,
    ) => `<div class="thread-item"><label>Post ${i + 2} of the thread <textarea name="threadContent" rows="2">${escapeHtml(item.content)}</textarea></label>
<label>Its media URLs, one per line (optional) <textarea name="threadMedia" rows="1">${escapeHtml(item.mediaUrls)}</textarea></label></div>`,
  )
  .join('\n')}
<button type="submit" name="intent" value="addItem" id="add-item">Add to thread</button>
<p class="muted">Empty posts at the end are left out. Each post costs what a post costs on its network.</p></fieldset>
<label>First comment (optional; a comment on Facebook, Instagram, LinkedIn and YouTube, a reply on X, Bluesky and Threads) <textarea name="firstComment" rows="2">${escapeHtml(draft.firstComment)}</textarea></label>
<details${Object.keys(draft.variants).length ? ' open' : ''}><summary>Copy for one network or one profile</summary>
${variantFields}
</details>
${youtube}
<fieldset><legend>When</legend>
<label><input type="radio" name="when" value="now"${draft.when === 'now' ? ' checked' : ''}> Publish now</label>
<label><input type="radio" name="when" value="schedule"${draft.when === 'schedule' ? ' checked' : ''}> Schedule</label>
<label><input type="radio" name="when" value="queue"${draft.when === 'queue' ? ' checked' : ''}> Add to queue (each profile's next free posting time)</label>
<div id="slot"${draft.when !== 'schedule' ? ' hidden' : ''}>
<label>Date <input type="date" name="date" value="${escapeHtml(draft.date)}"></label>
<label>Time <input type="time" name="time" value="${escapeHtml(draft.time)}"></label>
<label>Time zone <select name="timezone" id="timezone"${view.fresh ? ' data-browser-default' : ''}>${zoneOptions(draft.timezone)}</select></label>
</div>
</fieldset>
<section aria-labelledby="check-title"><h2 id="check-title">Check</h2>
<div id="check" aria-live="polite">${checked ? checkHtml(checked) : '<p class="muted">The check runs as you type: the count per profile as each network counts it, blockers, warnings and the cost.</p>'}</div>
</section>
<noscript><button type="submit" name="intent" value="check">Check</button></noscript>
<button type="submit" id="create" name="intent" value="create"${checked?.ok ? '' : ' disabled'}>Create post</button>
<p class="muted">Create is enabled once the check passes for exactly what is in the form.</p>
</form>
<section aria-labelledby="preview-title"><h2 id="preview-title">Preview</h2>
<div id="preview" class="cards">${previewHtml(view.preview ?? [])}</div></section>
<script src="/dashboard/compose.js"></script>`,
    { signedIn: account(signedIn) },
  )
}
