import { type Network, networkLabels } from '../../core/networks.js'
import type { ResolvedYouTubeDetails } from '../../core/youtube-details.js'
import { cropAspect, cutCopy, previewRules } from './preview-rules.js'
import { escapeHtml } from './ui/escape.js'
import { networkIcon } from './ui/icons.js'

/**
 * Each profile's preview as its network's feed shows the post: the profile's head, the copy cut where the
 * feed folds it, the media in the network's layout and crop, a card for a link when there is no media, and
 * the thread and first comment under it. Compose and an owner's approval review show the same cards.
 */

export const PRIVACY_LABELS: Record<string, string> = {
  private: 'Private',
  unlisted: 'Unlisted',
  public: 'Public',
}

export interface PreviewMedia {
  url: string
  /** The path Herald serves the file at, when Herald hosts it (the CSP shows images from Herald only). */
  src?: string
  video: boolean
}

/** A link's card as the networks draw one: its site, and the page's title and description when read. */
export interface LinkCard {
  url: string
  host: string
  title?: string
  description?: string
}

/** What one profile's preview shows: its copy and media as they will go out. */
export interface PreviewTarget {
  platform: Network
  username: string
  /** The profile's display name, when known. */
  name?: string
  copy: string
  media: PreviewMedia[]
  youtube: ResolvedYouTubeDetails | null
  /** A Mastodon status's content warning: the text and media show behind it. */
  contentWarning?: string
  link?: LinkCard
  /** The thread posts and first comment shown under the post, in order. */
  items?: Array<{ label: string; copy: string; media: PreviewMedia[] }>
}

export const handleOf = (username: string) => `@${username.replace(/^@+/, '')}`
/** A profile as people name it: the network's name and the handle ("X @acme"). */
export const profileName = (platform: Network, username: string) =>
  `${networkLabels[platform]} ${handleOf(username)}`

const fileName = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

const initials = (name: string) =>
  name
    .split(/[\s._-]+/)
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0] ?? '')
    .filter(Boolean)
    .slice(0, 2)
    .join('')

/** A profile's avatar: its initials, with the network's mark on the corner. */
export const avatarHtml = (platform: Network, name: string) =>
  `<span class="avatar" aria-hidden="true">${escapeHtml(initials(name) || '?')}${networkIcon(platform)}</span>`

function mediaHtml(platform: Network, media: PreviewMedia[]): string {
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
  // A carousel scrolls sideways, so a keyboard must be able to reach it.
  return `<ol class="media ${layout}" aria-label="${label}"${layout === 'carousel' ? ' tabindex="0"' : ''}>${items}</ol>`
}

function copyHtml(platform: Network, copy: string): string {
  const cut = cutCopy(platform, copy)
  const more = cut.cut ? ` <span class="more">${escapeHtml(previewRules[platform].cut.more)}</span>` : ''
  return `<p class="copy">${escapeHtml(cut.shown)}${more}</p>`
}

function linkHtml(link: LinkCard | undefined): string {
  if (!link) return ''
  return `<p class="link-card"><span class="link-host">${escapeHtml(link.host)}</span>${link.title ? `<strong>${escapeHtml(link.title)}</strong>` : ''}${link.description ? `<span class="link-text">${escapeHtml(link.description)}</span>` : ''}</p>`
}

/** The thread posts and first comment under a post's preview, each with its own copy and media. */
function itemsHtml(target: PreviewTarget): string {
  if (!target.items?.length) return ''
  const items = target.items
    .map(
      (item) =>
        `<li><p class="item-label">${escapeHtml(item.label)}</p>${behindWarning(target, `${copyHtml(target.platform, item.copy)}${mediaHtml(target.platform, item.media)}`)}</li>`,
    )
    .join('')
  return `<ol class="items" aria-label="After the post">${items}</ol>`
}

function headHtml(target: PreviewTarget): string {
  const shown = target.name?.trim() || target.username
  return `<header class="pv-head">${avatarHtml(target.platform, shown)}<span class="pv-who"><strong>${escapeHtml(shown)}</strong><span class="pv-handle">${escapeHtml(handleOf(target.username))}</span></span><span class="pv-net">${escapeHtml(networkLabels[target.platform])}</span></header>`
}

/** YouTube Shorts: the vertical frame with the title over it, the description folded under. */
function shortsBody(target: PreviewTarget, youtube: ResolvedYouTubeDetails): string {
  const frame = target.media[0]
  const picture = frame?.src && !frame.video ? `<img src="${escapeHtml(frame.src)}" alt="">` : ''
  return `<div class="short-frame">${picture}<span class="short-kind">${frame ? (frame.video ? 'Video' : 'Image') : 'No video yet'}${frame ? `: ${escapeHtml(fileName(frame.url))}` : ''}</span><strong class="short-title">${escapeHtml(youtube.title)}</strong></div>
${copyHtml('youtube', youtube.description)}
<p class="pv-meta">Visibility: <strong>${escapeHtml(PRIVACY_LABELS[youtube.privacyStatus] ?? youtube.privacyStatus)}</strong></p>`
}

/**
 * A toot behind its content warning, as Mastodon shows it: the warning, and "Show more" that opens the text
 * and media (a details element: it opens without a script, and the keyboard reaches it).
 */
function behindWarning(target: Pick<PreviewTarget, 'contentWarning'>, body: string): string {
  if (!target.contentWarning) return body
  return `<details class="pv-cw"><summary><span class="pv-cw-text">${escapeHtml(target.contentWarning)}</span><span class="pv-cw-toggle" aria-hidden="true"></span></summary>${body}</details>`
}

function previewCard(target: PreviewTarget): string {
  const name = profileName(target.platform, target.username)
  const cut = cutCopy(target.platform, target.copy).cut
  const fold = cut
    ? `<p class="pv-meta">The feed folds the copy after ${previewRules[target.platform].cut.at} characters.</p>`
    : ''
  const link = target.media.length === 0 ? linkHtml(target.link) : ''
  // Instagram leads with the picture and puts the caption under it; the others lead with the copy.
  const body = target.youtube
    ? shortsBody(target, target.youtube)
    : target.platform === 'instagram'
      ? `${mediaHtml(target.platform, target.media)}${copyHtml(target.platform, target.copy)}${fold}`
      : `${copyHtml(target.platform, target.copy)}${fold}${mediaHtml(target.platform, target.media)}${link}`
  return `<article class="pv pv-${target.platform}" aria-label="${escapeHtml(name)}">${headHtml(target)}<div class="pv-body">${behindWarning(target, body)}</div>${itemsHtml(target)}</article>`
}

export const previewHtml = (targets: PreviewTarget[]) =>
  targets.length
    ? targets.map(previewCard).join('\n')
    : '<p class="muted pv-empty">Choose a profile to see how the post will look there.</p>'
