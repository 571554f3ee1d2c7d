import { networks } from '../../core/networks.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { emptyState } from './first-run/empty-state.js'
import {
  avatar,
  firstLine,
  handleOf,
  type LocalMedia,
  networkLabel,
  profileChip,
  profileName,
  slotOf,
  thumbnail,
} from './post-parts.js'
import { escapeHtml } from './ui/escape.js'
import { networkName } from './ui/icons.js'

/**
 * The Posts list: one row per compose (the posts one create_post made together), each with a thumbnail,
 * the first line of its copy and an avatar chip per profile carrying that profile's state, expandable to
 * the profiles. Filters are a GET form, so the list narrows without JavaScript and a filtered page can be
 * bookmarked; the pager keeps them.
 */

export interface ListFilters {
  /** all, a post status, or approval:pending / approval:rejected. */
  status: string
  network: string
  profile: string
  from: string
  to: string
  q: string
}

export interface ComposeList {
  posts: PostView[]
  pagination: { page: number; totalPages: number; totalPosts: number; totalComposes?: number }
  counts: Record<string, number>
}

export interface ProfileOption {
  platform: string
  username: string
  profileId: string
}

const STATUS_OPTIONS: Array<[string, string]> = [
  ['all', 'Any status'],
  ['scheduled', 'Scheduled'],
  ['processing', 'Publishing'],
  ['published', 'Published'],
  ['failed', 'Failed'],
  ['draft', 'Draft'],
  ['approval:pending', 'Waiting for approval'],
  ['approval:rejected', 'Rejected'],
]

/** The posts of each compose, in the order the list gave them (newest compose first). */
export function composesOf(posts: PostView[]): PostView[][] {
  const groups = new Map<string, PostView[]>()
  for (const post of posts) {
    const key = post.composeId ?? post.id
    const group = groups.get(key)
    if (group) group.push(post)
    else groups.set(key, [post])
  }
  return [...groups.values()]
}

/** The query string of these filters (empty ones left out), for the pager and links. */
export function filterQuery(filters: ListFilters, page?: number): string {
  const pairs = Object.entries(filters).filter(
    ([key, value]) => value && !(key === 'status' && value === 'all'),
  )
  if (page && page > 1) pairs.push(['page', String(page)])
  return pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')
}

const option = (value: string, text: string, selected: string) =>
  `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(text)}</option>`

function filterForm(filters: ListFilters, profiles: ProfileOption[]) {
  const select = (name: string, label: string, options: Array<[string, string]>) =>
    `<label>${label}<select name="${name}">${options.map(([v, t]) => option(v, t, filters[name as keyof ListFilters])).join('')}</select></label>`
  return `<form method="get" action="/posts" class="post-filters" role="search" aria-label="Filter posts">
<label class="grow">Search the copy<input type="search" name="q" value="${escapeHtml(filters.q)}"></label>
${select('status', 'Status', STATUS_OPTIONS)}
${select('network', 'Network', [['', 'Any network'], ...networks.map((n): [string, string] => [n, networkLabel(n)])])}
${select('profile', 'Profile', [['', 'Any profile'], ...profiles.map((p): [string, string] => [p.profileId, profileName(p)])])}
<label>From<input type="date" name="from" value="${escapeHtml(filters.from)}"></label>
<label>To<input type="date" name="to" value="${escapeHtml(filters.to)}"></label>
<div class="filter-actions"><button type="submit" class="primary">Filter</button>${filterQuery(filters) ? '<a href="/posts">Clear</a>' : ''}</div>
</form>`
}

/** One compose: its thumbnail, first line, an avatar chip per profile, and the profiles one by one. */
function composeRow(group: PostView[], local: LocalMedia): string {
  const lead = group[0] as PostView
  const title = firstLine(lead.content) || 'Post without copy'
  const chips = group
    .map((post) => {
      const target = post.targets[0]
      if (!target) return ''
      return `<li class="profile-chip">${avatar(target, 'small')}<span class="visually-hidden">${escapeHtml(profileName(target))}:</span>${profileChip(post)}</li>`
    })
    .join('')
  const profiles = group
    .map((post) => {
      const target = post.targets[0]
      if (!target) return ''
      return `<li><span class="profile-line">${avatar(target, 'small')}<span class="handle">${networkName(target.platform)} ${escapeHtml(handleOf(target.username))}</span></span>
${profileChip(post)}<span class="muted">${escapeHtml(slotOf(post))}</span><a href="/posts/${escapeHtml(post.id)}">Open</a></li>`
    })
    .join('')
  const count = group.length
  return `<li class="compose">${thumbnail(lead.mediaUrls, local)}
<div class="compose-body">
<h2 class="compose-title"><a href="/posts/${escapeHtml(lead.id)}">${escapeHtml(title)}</a></h2>
<p class="compose-slot muted">${escapeHtml(slotOf(lead))}${lead.mediaUrls.length ? ` · ${lead.mediaUrls.length} media` : ''}</p>
<ul class="profile-chips" aria-label="Profiles">${chips}</ul>
<details class="compose-profiles"><summary>${count} profile${count === 1 ? '' : 's'}</summary><ul>${profiles}</ul></details>
</div></li>`
}

function pager(filters: ListFilters, page: number, totalPages: number) {
  const link = (n: number, text: string, rel: string) =>
    `<a href="/posts?${escapeHtml(filterQuery(filters, n))}" rel="${rel}">${text}</a>`
  return `<nav class="pager" aria-label="Pages">${[
    page > 1 ? link(page - 1, 'Newer', 'prev') : '',
    `<span>Page ${page} of ${Math.max(1, totalPages)}</span>`,
    page < totalPages ? link(page + 1, 'Older', 'next') : '',
  ].join('')}</nav>`
}

/** What an empty list says: that no post matches, or what this page will show and the button that fills it. */
function emptyList(list: ComposeList) {
  if ((list.counts.all ?? 0) > 0 || list.pagination.page > 1)
    return '<p class="empty">No posts match these filters. <a href="/posts">Show all posts</a></p>'
  return emptyState('No posts yet. Every post you write appears here, with how it went on each network.', {
    href: '/compose',
    label: 'Compose a post',
  })
}

export function postsListBody(
  workspace: string,
  list: ComposeList,
  view: { filters: ListFilters; profiles: ProfileOption[]; local: LocalMedia; onboarding: string },
): string {
  const groups = composesOf(list.posts)
  const { page, totalPages } = list.pagination
  const composes = list.pagination.totalComposes ?? groups.length
  // Posts as composed; how many profiles they reach is on each row (a filter counts only the matching ones).
  const summary = `${composes} post${composes === 1 ? '' : 's'}`
  const exported = (format: string) =>
    `/posts/export?${[`format=${format}`, filterQuery(view.filters)].filter(Boolean).join('&')}`
  return `<div class="page-head"><h1>Posts of ${escapeHtml(workspace)}</h1><span class="head-actions"><a class="button" href="${escapeHtml(exported('csv'))}" download>Export CSV</a><a class="button" href="${escapeHtml(exported('json'))}" download>Export JSON</a></span></div>
${view.onboarding}${filterForm(view.filters, view.profiles)}
${
  groups.length
    ? `<p class="muted">${escapeHtml(summary)}</p>
<ul class="compose-list">${groups.map((g) => composeRow(g, view.local)).join('\n')}</ul>
${pager(view.filters, page, totalPages)}`
    : emptyList(list)
}`
}
