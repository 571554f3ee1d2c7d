import { renderToString } from 'preact-render-to-string'
import { looksLikeVideoUrl, videoExtensions } from '../../core/media-url.js'
import { networks as allNetworks, type Network, networkLabels } from '../../core/networks.js'
import { takesFirstComments, takesThreads, threadNetworks } from '../../core/thread-items.js'
import type { TikTokCreator } from '../../core/tiktok-rules.js'
import { type Checked, checkHtml, type FieldKey, fieldNotes, tabStates } from './compose-findings.js'
import { type GoogleBusinessDraft, googleBusinessSection } from './compose-googlebusiness.js'
import { type PinterestDraft, pinterestSection } from './compose-pinterest.js'
import { PRIVACY_LABELS, type PreviewTarget, previewHtml, profileName } from './compose-previews.js'
import { type TikTokDraft, tiktokConsent, tiktokSection } from './compose-tiktok.js'
import { page } from './html.js'
import { account, type SignedIn } from './request.js'
import { assetUrl } from './ui/assets.js'
import { handleOf, profileAvatar } from './ui/avatar.js'
import { icon, networkName, type UiIcon } from './ui/icons.js'

/**
 * Compose's page, in two panes: the editor (profiles, copy for all and per network, media with alt text per
 * image, thread and first comment, YouTube details, when) and the previews with the check, as tabs on a
 * phone. Rendered from JSX, so every value is escaped by the renderer. The form posts as it is without a
 * script; client/compose.ts adds the live check, the tabs, the media tray and the draft kept across reloads.
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

/** A profile in the picker: its account, its picture, the health of its connection and its next free time. */
export interface PickerProfile extends Account {
  health: { tone: 'ok' | 'warn'; words: string }
  /** The queue's next free time ("2031-06-02 09:00 Europe/Berlin"); absent without posting times. */
  nextSlot?: string
  /** Herald's path of the profile's picture, when it keeps one. */
  avatar?: string | undefined
  /** A TikTok creator's options (privacy levels, switches turned off), when TikTok answered them. */
  creator?: TikTokCreator
}

export type When = 'now' | 'schedule' | 'queue'

export interface Draft extends PinterestDraft {
  content: string
  profiles: string[]
  mediaUrls: string
  /** Alt text per image, by media URL (form fields `alt:<url>`). */
  altTexts: Record<string, string>
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
  /** What TikTok asks the poster to choose. */
  tiktok: TikTokDraft
  when: When
  date: string
  time: string
  timezone: string
  /** Follow-up posts (X, Bluesky, Threads, Mastodon), each with its media URLs one per line. */
  thread: Array<{ content: string; mediaUrls: string }>
  /** The first comment (every network). */
  firstComment: string
  /** What a Google Business Profile post is and its button. */
  googlebusiness: GoogleBusinessDraft
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

/** Trusted markup built by Herald's own helpers (bundled icons, an avatar, the check's notes). */
const Raw = ({ html, class: cls = 'raw' }: { html: string; class?: string }) => (
  <span class={cls} dangerouslySetInnerHTML={{ __html: html }} />
)
const Icon = ({ name }: { name: UiIcon }) => <Raw html={icon(name)} />
const NetworkName = ({ network }: { network: Network }) => <Raw html={networkName(network)} />

/** A field's live note: its counts and the check's findings about it, refreshed by the script. */
const Note = ({ field, checked }: { field: FieldKey; checked: Checked | undefined }) => (
  <div
    class="field-note"
    data-field={field}
    dangerouslySetInnerHTML={{ __html: checked ? (fieldNotes(checked)[field] ?? '') : '' }}
  />
)

function ProfileChip({
  profile,
  picked,
  shared,
}: {
  profile: PickerProfile
  picked: boolean
  shared: boolean
}) {
  const id = `profile-${keyOf(profile).replace(/[^A-Za-z0-9_-]/g, '-')}`
  const shown = profile.name || profile.username
  // Profiles sharing a handle (a Pinterest account's boards) are told apart by their names.
  const named = `${profileName(profile.platform, profile.username)}${shared && profile.name ? ` · ${profile.name}` : ''}`
  return (
    <label class="profile-chip">
      <input
        type="checkbox"
        name="profile"
        value={keyOf(profile)}
        aria-label={named}
        aria-describedby={`${id}-health`}
        data-next-slot={profile.nextSlot}
        checked={picked}
      />
      <Raw html={profileAvatar({ ...profile, name: shown })} />
      <span class="chip-text">
        <span class="chip-name">{shown}</span>
        <span class="chip-handle">{handleOf(profile.username)}</span>
      </span>
      <span class={`chip ${profile.health.tone}`} id={`${id}-health`}>
        {profile.health.words}
      </span>
    </label>
  )
}

function Picker({ view }: { view: ComposeView }) {
  const picked = new Set(view.draft.profiles)
  const networks = [...new Set(view.profiles.map((p) => p.platform))]
  return (
    <section class="panel compose-part" aria-labelledby="profiles-title">
      <h2 id="profiles-title">Profiles</h2>
      {networks.length === 0 ? (
        <p class="muted">
          No profile is connected yet: <a href="/channels">connect one</a>.
        </p>
      ) : (
        networks.map((network) => (
          <fieldset class="profile-group" data-network={network}>
            <legend>
              <NetworkName network={network} />
            </legend>
            <div class="chips">
              {view.profiles
                .filter((p) => p.platform === network)
                .map((p) => (
                  <ProfileChip
                    profile={p}
                    picked={picked.has(keyOf(p))}
                    shared={view.profiles.some(
                      (o) => o !== p && o.platform === p.platform && o.username === p.username,
                    )}
                  />
                ))}
            </div>
          </fieldset>
        ))
      )}
      <Note field="profiles" checked={view.checked} />
    </section>
  )
}

function CopyTab({
  id,
  label,
  network,
  view,
}: {
  id: string
  label: string
  network?: Network
  view: ComposeView
}) {
  const state = network && view.checked ? tabStates(view.checked)[network] : undefined
  const blocked = state && (state.blocked || state.count > state.limit)
  return (
    <button
      type="button"
      role="tab"
      id={`tab-${id}`}
      aria-controls={`panel-${id}`}
      aria-selected={id === 'all' ? 'true' : 'false'}
      data-network={network}
      class={blocked ? 'blocked' : undefined}
    >
      {network ? <NetworkName network={network} /> : label}
      <span class="tab-count">{state ? `${state.count} / ${state.limit}` : ''}</span>
    </button>
  )
}

const Variant = ({ name, label, value }: { name: string; label: string; value: string }) => (
  <label class="field">
    {label} <textarea name={`variant_${name}`} rows={3} value={value} />
  </label>
)

function NetworkPanel({ network, view }: { network: Network; view: ComposeView }) {
  const { draft } = view
  const own = view.profiles.filter((p) => p.platform === network)
  return (
    <div
      role="tabpanel"
      class="copy-panel"
      id={`panel-${network}`}
      aria-labelledby={`tab-${network}`}
      data-network={network}
    >
      <h3 class="panel-title">
        <NetworkName network={network} />
      </h3>
      <Variant
        name={network}
        label={`Copy for ${networkLabels[network]} (empty: the copy for all)`}
        value={draft.variants[network] ?? ''}
      />
      <details class="per-profile" open={own.some((p) => Boolean(draft.variants[keyOf(p)]))}>
        <summary>Copy for one profile</summary>
        {own.map((p) => (
          <Variant
            name={keyOf(p)}
            label={`Copy for ${profileName(p.platform, p.username)} only (empty: the copy for ${networkLabels[network]})`}
            value={draft.variants[keyOf(p)] ?? ''}
          />
        ))}
      </details>
      <Note field={`copy:${network}`} checked={view.checked} />
    </div>
  )
}

function CopySection({ view }: { view: ComposeView }) {
  const networks = [...new Set(view.profiles.map((p) => p.platform))]
  return (
    <section class="panel compose-part">
      <h2>Copy</h2>
      <div role="tablist" class="copy-tabs" aria-label="Copy for" hidden>
        <CopyTab id="all" label="All" view={view} />
        {networks.map((n) => (
          <CopyTab id={n} label={networkLabels[n]} network={n} view={view} />
        ))}
      </div>
      <div role="tabpanel" class="copy-panel" id="panel-all" aria-labelledby="tab-all">
        <label class="field" for="content">
          Copy
        </label>
        <textarea name="content" id="content" rows={6} required value={view.draft.content} />
        <Note field="copy:all" checked={view.checked} />
      </div>
      {networks.map((n) => (
        <NetworkPanel network={n} view={view} />
      ))}
    </section>
  )
}

const fileName = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

/** Herald's poster frame of a video it hosts (`/media/<id>/<name>` → `/compose/poster/<id>/<name>`). */
export const posterPath = (url: string, hostedPrefix: string) =>
  url.startsWith(hostedPrefix) ? `/compose/poster/${url.slice(hostedPrefix.length)}` : undefined

/**
 * One item of the media tray as the server draws it (the script redraws the same markup as the media
 * change): the picture, or a video's poster frame, its place and name, and for an image its alt text.
 */
function TrayItem({ url, index, view }: { url: string; index: number; view: ComposeView }) {
  const video = looksLikeVideoUrl(url)
  const hosted = url.startsWith(view.mediaPrefix)
  const poster = video ? posterPath(url, view.mediaPrefix) : undefined
  return (
    <li class="thumb" draggable>
      {hosted && !video ? (
        <img src={new URL(url).pathname} alt="" />
      ) : poster ? (
        <span class="thumb-frame video">
          <img src={poster} alt="" class="thumb-poster" />
          <span class="thumb-play" aria-hidden="true">
            ▶
          </span>
        </span>
      ) : (
        <span class="thumb-frame">{video ? '▶ Video' : 'Image'}</span>
      )}
      <span class="thumb-name">
        {index + 1}. {fileName(url)}
      </span>
      {video ? null : (
        <label class="thumb-alt">
          Alt text for image {index + 1}
          <textarea name={`alt:${url}`} rows={2} maxlength={5000} value={view.draft.altTexts[url] ?? ''} />
        </label>
      )}
    </li>
  )
}

function MediaSection({ view }: { view: ComposeView }) {
  const urls = view.draft.mediaUrls.split(/\s+/).filter(Boolean)
  return (
    <section class="panel compose-part" aria-labelledby="media-title">
      <h2 id="media-title">Media</h2>
      <div
        class="tray"
        id="tray"
        data-hosted={view.mediaPrefix}
        data-video-endings={[...videoExtensions].join(' ')}
      >
        <ol class="thumbs" id="thumbs" aria-label="Media, in order">
          {urls.map((url, index) => (
            <TrayItem url={url} index={index} view={view} />
          ))}
        </ol>
        <label class="drop" for="upload">
          <Icon name="plus" />
          <span>Add media</span>
          <span class="muted drop-hint">Pick or drop images and videos</span>
        </label>
        <input
          type="file"
          id="upload"
          class="file-input"
          multiple
          accept={UPLOAD_TYPES.join(',')}
          data-csrf={view.who.session.csrfToken}
        />
      </div>
      <p id="upload-status" class="muted" role="status" />
      <p class="muted">
        Alt text tells people who cannot see an image what it shows; each network that takes it gets it.
      </p>
      <noscript>
        <p class="muted">
          Uploading needs JavaScript: without it, give each file's address under "Media by address".
        </p>
      </noscript>
      <details class="by-address" open={view.draft.mediaUrls.trim() !== ''}>
        <summary>Media by address</summary>
        <label class="field">
          Media URLs, one per line, in order{' '}
          <textarea name="mediaUrls" id="media-urls" rows={2} value={view.draft.mediaUrls} />
        </label>
      </details>
      <Note field="media" checked={view.checked} />
    </section>
  )
}

function ThreadItem({ item, index }: { item: { content: string; mediaUrls: string }; index: number }) {
  return (
    <li class="thread-item">
      <label class="field">
        <span class="item-name">Thread post {index + 2}</span>{' '}
        <textarea name="threadContent" rows={2} value={item.content} />
      </label>
      <label class="field">
        Its media URLs, one per line (optional){' '}
        <textarea name="threadMedia" rows={1} value={item.mediaUrls} />
      </label>
      <div class="item-tools" hidden>
        <button type="button" data-move="-1">
          Move up
        </button>
        <button type="button" data-move="1">
          Move down
        </button>
        <button type="button" class="danger" data-remove>
          Remove
        </button>
      </div>
    </li>
  )
}

function Extras({ view }: { view: ComposeView }) {
  const { draft, checked } = view
  const threadShown =
    draft.profiles.length === 0 || draft.profiles.some((p) => takesThreads(p.split(':')[0] as Network))
  // TikTok and Google Business Profile take no first comment: the part shows while a chosen network takes one.
  const commenting = allNetworks.filter(takesFirstComments)
  const commentShown =
    draft.profiles.length === 0 || draft.profiles.some((p) => takesFirstComments(p.split(':')[0] as Network))
  return (
    <>
      <section
        class="panel compose-part"
        id="thread"
        data-networks={threadNetworks.join(' ')}
        aria-labelledby="thread-title"
        hidden={!threadShown}
      >
        <h2 id="thread-title">Thread</h2>
        <p class="muted">
          On X, Bluesky, Threads and Mastodon each post replies to the one before; empty posts are left out.
        </p>
        <ol class="thread-items" id="thread-items">
          {[...draft.thread, { content: '', mediaUrls: '' }].map((item, index) => (
            <ThreadItem item={item} index={index} />
          ))}
        </ol>
        <button type="submit" name="intent" value="addItem" id="add-item">
          <Icon name="plus" />
          Add to thread
        </button>
        <Note field="thread" checked={checked} />
      </section>
      <section
        class="panel compose-part"
        id="comment"
        data-networks={commenting.join(' ')}
        aria-labelledby="comment-title"
        hidden={!commentShown}
      >
        <h2 id="comment-title">First comment</h2>
        <label class="field">
          First comment (optional: a comment on Facebook, Instagram, LinkedIn and YouTube, a reply on X,
          Bluesky, Threads and Mastodon; TikTok, Pinterest and Google Business Profile posts take none){' '}
          <textarea name="firstComment" rows={2} value={draft.firstComment} />
        </label>
        <Note field="comment" checked={checked} />
      </section>
    </>
  )
}

const VISIBILITY_LABELS: Record<string, string> = {
  public: 'Public',
  unlisted: 'Quiet public (not on public timelines)',
  private: 'Followers only',
  direct: 'Mentioned people only',
}

/** Mastodon's details: visibility, a content warning and the language, for every status of the post. */
function MastodonSection({ view }: { view: ComposeView }) {
  const { draft } = view
  if (!view.profiles.some((p) => p.platform === 'mastodon')) return null
  return (
    <section
      class="panel compose-part"
      id="mastodon"
      aria-labelledby="mastodon-title"
      hidden={!draft.profiles.some((p) => p.startsWith('mastodon:'))}
    >
      <h2 id="mastodon-title">
        <NetworkName network="mastodon" /> details
      </h2>
      <label class="field">
        Visibility{' '}
        <select name="mastodonVisibility">
          {Object.entries(VISIBILITY_LABELS).map(([value, label]) => (
            <option value={value} selected={draft.mastodonVisibility === value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        Content warning (optional: shown instead of the text and media until a reader opens them; it counts
        towards the instance's limit){' '}
        <input type="text" name="mastodonWarning" maxlength={1000} value={draft.mastodonWarning} />
      </label>
      <label class="field">
        Language (optional: a code such as en){' '}
        <input
          type="text"
          name="mastodonLanguage"
          maxlength={3}
          pattern="[a-z]{2,3}"
          autocapitalize="none"
          spellcheck={false}
          value={draft.mastodonLanguage}
        />
      </label>
      <p class="muted">They apply to the post and every post of its thread.</p>
      <Note field="mastodon" checked={view.checked} />
    </section>
  )
}

function YouTubeSection({ view }: { view: ComposeView }) {
  const { draft } = view
  if (!view.profiles.some((p) => p.platform === 'youtube')) return null
  return (
    <section
      class="panel compose-part"
      id="youtube"
      aria-labelledby="youtube-title"
      hidden={!draft.profiles.some((p) => p.startsWith('youtube:'))}
    >
      <h2 id="youtube-title">
        <NetworkName network="youtube" /> details
      </h2>
      <label class="field">
        Title <input type="text" name="youtubeTitle" maxlength={100} value={draft.youtubeTitle} />
      </label>
      <label class="field">
        Description (optional; the copy when empty){' '}
        <textarea name="youtubeDescription" rows={2} maxlength={5000} value={draft.youtubeDescription} />
      </label>
      <label class="field">
        Visibility{' '}
        <select name="youtubePrivacy" id="youtube-privacy">
          {Object.entries(PRIVACY_LABELS).map(([value, label]) => (
            <option value={value} selected={draft.youtubePrivacy === value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="youtubeConfirm"
          id="youtube-confirm"
          value={draft.youtubePrivacy}
          checked={draft.youtubeConfirmed}
        />{' '}
        This video will be{' '}
        <strong id="youtube-visibility">{PRIVACY_LABELS[draft.youtubePrivacy] ?? 'Private'}</strong> on
        YouTube
      </label>
      <p class="muted">
        Creating a post to YouTube needs this confirmation: a public upload is seen by everyone at once.
      </p>
      <Note field="youtube" checked={view.checked} />
    </section>
  )
}

/** A block of markup Herald's own helpers built, in a box that lays out as if it were not there. */
const TrustedBlock = ({ html }: { html: string }) =>
  html ? <div class="raw" dangerouslySetInnerHTML={{ __html: html }} /> : null

const tiktokProfiles = (view: ComposeView) => view.profiles.filter((p) => p.platform === 'tiktok')
const tiktokChosen = (view: ComposeView) => view.draft.profiles.some((p) => p.startsWith('tiktok:'))

/** TikTok's part, where its content-sharing guidelines put the poster's choices. */
function TikTokPart({ view }: { view: ComposeView }) {
  const note = renderToString(<Note field="tiktok" checked={view.checked} />)
  return (
    <TrustedBlock
      html={tiktokSection({
        draft: view.draft.tiktok,
        profiles: tiktokProfiles(view),
        chosen: tiktokChosen(view),
        note,
      })}
    />
  )
}

function GoogleBusinessPart({ view }: { view: ComposeView }) {
  if (!view.profiles.some((p) => p.platform === 'googlebusiness')) return null
  const note = renderToString(<Note field="googlebusiness" checked={view.checked} />)
  const shown = view.draft.profiles.some((p) => p.startsWith('googlebusiness:'))
  // A section may not sit in a span: the part's markup goes in a box that lays out as if it were not there.
  return <TrustedBlock html={googleBusinessSection(view.draft.googlebusiness, { shown, note })} />
}

/** Where "Add to queue" puts the post: each chosen profile's next free time, or "next free slot". */
export function queueSlotText(profiles: PickerProfile[], chosen: string[]): string {
  const picked = profiles.filter((p) => chosen.includes(keyOf(p)))
  if (picked.length === 0 || picked.some((p) => !p.nextSlot)) return 'Goes to each profile’s next free slot.'
  if (picked.length === 1) return `Next free slot: ${picked[0]?.nextSlot}.`
  return `Next free slots: ${picked.map((p) => `${profileName(p.platform, p.username)} ${p.nextSlot}`).join('; ')}.`
}

function zones(selected: string): string[] {
  const all = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')]
  return all.includes(selected) ? all : [selected, ...all]
}

function WhenSection({ view }: { view: ComposeView }) {
  const { draft } = view
  return (
    <section class="panel compose-part" aria-labelledby="when-title">
      <h2 id="when-title">When</h2>
      <div class="when-fields">
        <label class="field">
          Date <input type="date" name="date" value={draft.date} />
        </label>
        <label class="field">
          Time <input type="time" name="time" value={draft.time} />
        </label>
        <label class="field zone">
          Time zone{' '}
          <select name="timezone" id="timezone" data-browser-default={view.fresh ? '' : undefined}>
            {zones(draft.timezone).map((z) => (
              <option selected={z === draft.timezone}>{z}</option>
            ))}
          </select>
        </label>
      </div>
      <p class="muted">Schedule uses the date and time; Publish now and Add to queue leave them aside.</p>
      <Note field="when" checked={view.checked} />
    </section>
  )
}

function Actions({ view }: { view: ComposeView }) {
  const { checked } = view
  return (
    <div class="compose-actions">
      <TrustedBlock
        html={tiktokConsent({
          draft: view.draft.tiktok,
          profiles: tiktokProfiles(view),
          chosen: tiktokChosen(view),
        })}
      />
      {checked ? (
        <div
          id="check"
          class="check"
          aria-live="polite"
          dangerouslySetInnerHTML={{ __html: checkHtml(checked) }}
        />
      ) : (
        <div id="check" class="check" aria-live="polite">
          <p class="muted">
            The check runs as you write: each network’s count, what would stop the post, and its price against
            the balance.
          </p>
        </div>
      )}
      <div class="action-buttons">
        <noscript>
          <button type="submit" name="intent" value="check">
            Check and preview
          </button>
        </noscript>
        <button type="submit" name="intent" value="now" data-when="now">
          <Icon name="send" />
          Publish now
        </button>
        <button type="submit" name="intent" value="schedule" data-when="schedule">
          <Icon name="clock" />
          Schedule
        </button>
        <button
          type="submit"
          name="intent"
          value="queue"
          data-when="queue"
          class="primary"
          aria-describedby="queue-slot"
        >
          <Icon name="list-ordered" />
          Add to queue
        </button>
      </div>
      <p class="muted queue-slot" id="queue-slot">
        {queueSlotText(view.profiles, view.draft.profiles)}
      </p>
      <p class="muted to-preview">
        <a href="#preview-region">See the preview</a>
      </p>
      <p class="muted shortcut">Ctrl+Enter (⌘+Enter on a Mac) presses the highlighted button.</p>
    </div>
  )
}

/** The price against the balance, beside the previews so it stays in view. */
export function priceLine(checked: Checked | undefined): string {
  if (!checked) return 'The price shows once the check has run.'
  const { cost, balance } = checked.credits
  return `${checked.ok ? 'Ready' : 'Not ready'} · costs ${cost} credit${cost === 1 ? '' : 's'} · balance ${balance}`
}

/** On a phone, the editor and the previews are two tabs (the script shows them and wires the keys). */
const PaneTabs = () => (
  <div role="tablist" class="pane-tabs" aria-label="Compose" hidden>
    <button type="button" role="tab" id="pane-tab-edit" aria-controls="compose" aria-selected="true">
      Edit
    </button>
    <button
      type="button"
      role="tab"
      id="pane-tab-preview"
      aria-controls="previews-pane"
      aria-selected="false"
    >
      Preview
    </button>
  </div>
)

function ComposeBody({ view }: { view: ComposeView }) {
  const csrf = view.who.session.csrfToken
  return (
    <>
      <div class="page-head">
        <h1>Create post</h1>
      </div>
      {view.problem ? (
        <div class="problem" role="alert">
          <p>{view.problem}</p>
        </div>
      ) : null}
      <PaneTabs />
      <div class="composer">
        <form
          method="post"
          action="/compose"
          id="compose"
          class="compose-editor"
          data-fresh={view.restoreDraft ? '' : undefined}
          data-draft-key={`herald:compose:${view.who.workspace.id}`}
        >
          <input type="hidden" name="csrf" value={csrf} />
          <p id="draft-status" class="draft-status" role="status" hidden>
            <span />{' '}
            <button type="button" id="discard-draft">
              Discard the kept draft
            </button>
          </p>
          <Picker view={view} />
          <CopySection view={view} />
          <MediaSection view={view} />
          <Extras view={view} />
          <YouTubeSection view={view} />
          <GoogleBusinessPart view={view} />
          <TikTokPart view={view} />
          <MastodonSection view={view} />
          <TrustedBlock
            html={pinterestSection(
              view.draft,
              view.profiles.some((p) => p.platform === 'pinterest'),
              renderToString(<Note field="pinterest" checked={view.checked} />),
            )}
          />
          <WhenSection view={view} />
          <Actions view={view} />
        </form>
        <aside class="compose-previews" id="previews-pane" tabindex={0} aria-label="Previews">
          <p id="price-line" class="price-line" aria-live="polite">
            {priceLine(view.checked)}
          </p>
          <section aria-labelledby="preview-title" id="preview-region">
            <h2 id="preview-title">Preview</h2>
            <div
              id="preview"
              class="previews"
              dangerouslySetInnerHTML={{ __html: previewHtml(view.preview ?? []) }}
            />
          </section>
        </aside>
      </div>
      <script type="module" src={assetUrl('compose.js')} />
    </>
  )
}

export function composePage(view: ComposeView) {
  return page('Compose', renderToString(<ComposeBody view={view} />), { signedIn: account(view.who) })
}

export type { Checked, PreviewTarget }
