import { looksLikeVideoUrl } from '../../core/media-url.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import {
  avatar,
  errorInWords,
  firstLine,
  instant,
  type LocalMedia,
  networkLabel,
  type Pictures,
  profileChip,
  profileName,
  slotOf,
} from './post-parts.js'
import { escapeHtml } from './ui/escape.js'
import { icon } from './ui/icons.js'
import { shownState, statusChip } from './ui/status-chip.js'

/**
 * A post's page: titled by its copy, its media shown (a player for video), one card per profile of its
 * compose with the state, the live link and the fix for a failure, what happened to it in words, and its
 * analytics. Only what Herald records is told: when it was made, decided on and delivered, how many sends
 * it took, and each network's answer.
 */

export interface PostAnalytics {
  fetchedAt: string | null
  totals: Record<string, number | null>
  measured: number
  measurable: number
  notes: string[]
}

/** A profile whose connection must be reconnected before anything reaches it (from the account health). */
export type NeedsReconnect = (target: { platform: string; profileId: string }) => boolean

/** The title of a post's page: the first line of its copy, cut. */
export const postTitle = (post: PostView) => firstLine(post.content, 80) || 'Post without copy'

export function mediaGallery(post: PostView, local: LocalMedia): string {
  if (post.mediaUrls.length === 0) return ''
  const tiles = post.mediaUrls.map((url, i) => {
    const path = local(url)
    const label = `Media ${i + 1} of ${post.mediaUrls.length}`
    if (path && looksLikeVideoUrl(url))
      return `<li><video controls preload="metadata" src="${escapeHtml(path)}" aria-label="${label}"></video></li>`
    if (path)
      return `<li><a href="${escapeHtml(path)}"><img src="${escapeHtml(path)}" alt="${label}" loading="lazy"></a></li>`
    const host = (() => {
      try {
        return new URL(url).host
      } catch {
        return url
      }
    })()
    return `<li class="remote">${icon(looksLikeVideoUrl(url) ? 'film' : 'image')}<a href="${escapeHtml(url)}" rel="noopener noreferrer">${label}, on ${escapeHtml(host)}</a></li>`
  })
  return `<section aria-labelledby="media-head"><h2 id="media-head">Media</h2><ul class="gallery">${tiles.join('')}</ul></section>`
}

/** The fix a failed profile offers: reconnect its channel when the connection is lost, and a retry. */
function fixesOf(post: PostView, csrf: string, needsReconnect: NeedsReconnect): string {
  const target = post.targets[0]
  if (target?.status !== 'failed') return ''
  const fixes: string[] = []
  if (needsReconnect(target))
    fixes.push(
      `<a class="button primary" href="/channels">${icon('plug-zap')}Reconnect ${escapeHtml(profileName(target))}</a>`,
    )
  if (post.status === 'failed' || post.status === 'published')
    fixes.push(
      `<form method="post" action="/posts/${escapeHtml(post.id)}/publish" class="inline"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit">${icon('refresh-cw')}Retry</button></form>`,
    )
  return fixes.length ? `<div class="fixes">${fixes.join('')}</div>` : ''
}

function itemLines(target: PostView['targets'][number]): string {
  let threadPost = 1
  return (target.items ?? [])
    .map((item) => {
      const what = item.kind === 'firstComment' ? 'First comment' : `Thread post ${++threadPost}`
      const state =
        item.status === 'published' ? 'published' : item.status === 'failed' ? 'failed' : 'scheduled'
      return `<li>${escapeHtml(what)} ${statusChip(state)}${item.url ? ` <a href="${escapeHtml(item.url)}" rel="noopener noreferrer">See it live</a>` : ''}${item.error ? `<p class="problem-text">${escapeHtml(errorInWords(item.error))}</p>` : ''}</li>`
    })
    .join('')
}

/** One card per profile of the compose: who, the state, the live link, the network's words and the fix. */
export function profileCards(
  compose: PostView[],
  current: string,
  view: { csrf: string; needsReconnect: NeedsReconnect; pictures?: Pictures },
): string {
  const cards = compose.map((post) => {
    const target = post.targets[0]
    if (!target) return ''
    const errors = ([target.error, target.uploadError].filter(Boolean) as string[]).map(errorInWords)
    const items = itemLines(target)
    return `<li class="card profile-card${post.id === current ? ' current' : ''}">
<div class="profile-head"><span class="profile-line">${avatar(target, '', view.pictures)}<span class="handle"><strong>${escapeHtml(profileName(target))}</strong></span></span>${profileChip(post)}</div>
<p class="muted">${escapeHtml(slotOf(post))}</p>
${target.url ? `<p><a class="live" href="${escapeHtml(target.url)}" rel="noopener noreferrer">${icon('external-link')}See it on ${escapeHtml(networkLabel(target.platform))}</a></p>` : ''}
${errors.map((e) => `<p class="problem-text">${escapeHtml(e)}</p>`).join('')}
${fixesOf(post, view.csrf, view.needsReconnect)}
${items ? `<ul class="items">${items}</ul>` : ''}
${post.id === current ? '<p class="muted">This page’s post</p>' : `<p><a href="/posts/${escapeHtml(post.id)}">Open this profile’s post</a></p>`}
</li>`
  })
  return `<section aria-labelledby="profiles-head"><h2 id="profiles-head">Profiles</h2><ul class="profile-cards">${cards.join('')}</ul></section>`
}

/** What happened, in words and in order, from what Herald records of each post of the compose. */
export function history(compose: PostView[]): string {
  const lead = compose[0] as PostView
  const lines: Array<[string, string]> = [
    [lead.createdAt, `Created for ${compose.length} profile${compose.length === 1 ? '' : 's'}`],
  ]
  for (const post of compose) {
    const target = post.targets[0]
    const who = target ? profileName(target) : 'a profile'
    if (post.approval?.state === 'pending')
      lines.push([post.createdAt, `Waiting for an owner’s approval (${who})`])
    if (post.approval?.decidedAt)
      lines.push([
        post.approval.decidedAt,
        `${post.approval.state === 'rejected' ? 'Sent back by an owner' : 'Approved by an owner'} (${who})`,
      ])
    if (post.attempts > 0)
      lines.push([
        target?.publishedAt ?? post.publishedAt ?? '',
        `Sent to ${who}: ${post.attempts} attempt${post.attempts === 1 ? '' : 's'}`,
      ])
    if (target?.status === 'published') lines.push([target.publishedAt ?? '', `Published on ${who}`])
    if (target?.status === 'failed')
      lines.push(['', `Failed on ${who}: ${errorInWords(target.error ?? 'no reason given')}`])
    else if (post.lastError && target?.status === 'pending')
      lines.push(['', `Not settled on ${who}: ${errorInWords(post.lastError)}`])
  }
  const dated = lines.filter(([at]) => at).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const undated = lines.filter(([at]) => !at)
  const items = [...dated, ...undated].map(
    ([at, what]) =>
      `<li>${at ? `<time datetime="${escapeHtml(at)}">${escapeHtml(instant(at))}</time>` : '<span class="muted">Then</span>'}<span>${escapeHtml(what)}</span></li>`,
  )
  return `<section aria-labelledby="history-head"><h2 id="history-head">History</h2><ol class="history">${items.join('')}</ol></section>`
}

/** A figure's name as a person reads it: "video_views" and "videoViews" both as "Video views". */
const figureName = (key: string) => {
  const words = key
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A note of the analytics in a manager's words: the network's name, and the button to press for a reading. */
const noteInWords = (note: string) =>
  note
    .replace(/^(\w+) @+/, (_, platform: string) => `${networkLabel(platform)} @`)
    .replace(
      /never read; call with refresh: true to read it \((\d+) credits?\)\./,
      'not read yet; “Read now” reads it.',
    )

/** Stored readings (free) and the button that reads the networks now, which says its price first. */
export function analyticsSection(post: PostView, analytics: PostAnalytics | undefined, csrf: string): string {
  if (!post.targets.some((t) => t.status === 'published')) return ''
  const figures = Object.entries(analytics?.totals ?? {})
    .filter(([, value]) => value !== null)
    .map(([key, value]) => `<div><dt>${escapeHtml(figureName(key))}</dt><dd>${escapeHtml(value)}</dd></div>`)
    .join('')
  const when = analytics?.fetchedAt ? `Read ${instant(analytics.fetchedAt)}` : 'Not read yet'
  return `<section aria-labelledby="analytics-head" class="panel"><h2 id="analytics-head">Analytics</h2>
<p class="muted">${escapeHtml(when)}; ${analytics?.measured ?? 0} of ${analytics?.measurable ?? 0} profiles with numbers. Readings already made are free to look at.</p>
${figures ? `<dl class="figures">${figures}</dl>` : ''}
${(analytics?.notes ?? []).map((n) => `<p class="muted">${escapeHtml(noteInWords(n))}</p>`).join('')}
<form method="post" action="/posts/${escapeHtml(post.id)}/analytics"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button type="submit">${icon('refresh-cw')}Read now (1 credit)</button></form></section>`
}

/** The head of the page: the title, the state of the compose's post on this page, and its slot. */
export function postHead(post: PostView): string {
  return `<p><a href="/posts">All posts</a></p>
<div class="page-head post-head"><h1>${escapeHtml(postTitle(post))}</h1>${statusChip(shownState(post))}</div>
<p class="muted">${escapeHtml(slotOf(post))}${post.queued ? ' (from the posting queue)' : ''}</p>`
}
