import { looksLikeVideoUrl } from '../../core/media-url.js'
import { networkErrorInWords } from '../../core/network-error-words.js'
import { isNetwork, type Network, networkLabels } from '../../core/networks.js'
import { RESET_MESSAGE, STUCK_MESSAGE } from '../../core/post-status.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { escapeHtml } from './ui/escape.js'
import { icon, networkIcon } from './ui/icons.js'
import { type ShownState, shownState, statusChip, targetState } from './ui/status-chip.js'

/** The pieces the Posts list and a post's page share: a post's title, a profile's avatar, a media tile. */

/** The first line of the copy, cut to `max` characters; what a post is called on the pages. */
export function firstLine(content: string, max = 90): string {
  const line = content.trim().split(/\r?\n/, 1)[0]?.trim() ?? ''
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line
}

/** A handle as a person writes it: one "@" (handles are stored with or without it), or a page's name as is. */
export function handleOf(username: string): string {
  const bare = username.replace(/^@+/, '')
  return /\s/.test(bare) ? bare : `@${bare}`
}

/** Up to two letters for an avatar: the handle's first, and the first of its second word when it has one. */
export function initialsOf(username: string): string {
  const words = username
    .replace(/^@+/, '')
    .split(/[\s._-]+/)
    .filter(Boolean)
  return ((words[0]?.[0] ?? '?') + (words[1]?.[0] ?? '')).toUpperCase()
}

export const networkLabel = (platform: string) => (isNetwork(platform) ? networkLabels[platform] : platform)

/** "X @acme": the words a profile is named by on a page. */
export const profileName = (target: { platform: string; username: string }) =>
  `${networkLabel(target.platform)} ${handleOf(target.username)}`

/** Herald's paths of the profiles' kept pictures, by `<platform>:<profileId>`. */
export type Pictures = ReadonlyMap<string, string>

/**
 * A profile's avatar: its picture as Herald keeps it, else its initials, with the network's mark on the
 * corner; the name is said beside it.
 */
export function avatar(
  target: { platform: string; username: string; profileId?: string },
  size: 'small' | '' = '',
  pictures?: Pictures,
): string {
  const mark = isNetwork(target.platform) ? networkIcon(target.platform as Network) : ''
  const picture = pictures?.get(`${target.platform}:${target.profileId ?? ''}`)
  const face = picture
    ? `<img src="${escapeHtml(picture)}" alt="" loading="lazy" decoding="async">`
    : escapeHtml(initialsOf(target.username))
  return `<span class="avatar${size ? ` ${size}` : ''}" aria-hidden="true">${face}${mark}</span>`
}

/** The state one profile's post is shown in: waiting for approval (or sent back) first, then its delivery. */
export function profileState(post: PostView): ShownState {
  const state = shownState(post)
  if (state === 'pending approval' || state === 'rejected') return state
  const target = post.targets[0]
  return target ? targetState(target.status, post) : state
}

export const profileChip = (post: PostView) => statusChip(profileState(post))

/** A slot as a manager reads it: "2031-05-01 09:00 Europe/Paris", or that it has none. */
export function slotOf(post: Pick<PostView, 'scheduleDate' | 'scheduleTime' | 'timezone'>): string {
  return post.scheduleDate ? `${post.scheduleDate} ${post.scheduleTime} ${post.timezone}` : 'No time set'
}

/** An ISO instant as "2031-05-01 09:00 UTC". */
export const instant = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

/**
 * The page's CSP lets images and video come from Herald alone: media Herald hosts is shown by its path,
 * anything else by a placeholder with a link to the file.
 */
export type LocalMedia = (url: string) => string | undefined

export function localMediaOf(publicBaseUrl: string): LocalMedia {
  const origin = new URL(publicBaseUrl).origin
  return (url) => {
    try {
      const parsed = new URL(url)
      return parsed.origin === origin ? `${parsed.pathname}${parsed.search}` : undefined
    } catch {
      return undefined
    }
  }
}

/** The list's thumbnail: the first image Herald hosts, or a placeholder naming what the media is. */
export function thumbnail(mediaUrls: string[], local: LocalMedia): string {
  const first = mediaUrls[0]
  if (!first) return `<span class="post-thumb none" aria-hidden="true">${icon('file-text')}</span>`
  const path = local(first)
  if (path && !looksLikeVideoUrl(first))
    return `<img class="post-thumb" src="${escapeHtml(path)}" alt="" loading="lazy">`
  return `<span class="post-thumb none" aria-hidden="true">${icon(looksLikeVideoUrl(first) ? 'film' : 'image')}</span>`
}

/** Herald's own messages that name tools, said with the page's buttons instead. */
const IN_WORDS: Record<string, string> = {
  [STUCK_MESSAGE]:
    'Publishing stopped mid-send (the worker holding it went away); the outcome is unknown. Check the profile, then press “Reset stuck sending” and publish again.',
  [RESET_MESSAGE]:
    'The outcome of the interrupted send is unknown: it may or may not have reached the network. Check the profile before you retry.',
}

/** Where Herald's words name a tool, the page's button that does the same. */
const TOOL_WORDS: Array<[RegExp, string]> = [
  [/\breset_stuck_post\b/g, '“Reset stuck sending”'],
  [/\bpublish_post_now\b/g, '“Retry”'],
  [/\bupdate_post\b/g, '“Edit”'],
  [/\breschedule_post\b/g, '“Reschedule”'],
  [/\bpreflight_post\b/g, 'Compose’s check'],
]

/** A delivery error as a manager reads it: the network's sentence without its API's names, Herald's without tool names. */
export const errorInWords = (error: string) =>
  IN_WORDS[error] ??
  TOOL_WORDS.reduce((text, [name, words]) => text.replace(name, words), networkErrorInWords(error))
