import type { VNode } from 'preact'
import { approvalStates } from '../../core/approval.js'
import { isNetwork, networks } from '../../core/networks.js'
import { postStatuses } from '../../core/post-status.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import {
  avatar,
  firstLine,
  handleOf,
  type LocalMedia,
  networkLabel,
  type Pictures,
  profileName,
  profileState,
  slotOf,
  thumbnail,
} from './post-parts.js'
import { EmptyState, NetworkName } from './ui/parts.js'
import { StatusChip } from './ui/status-chip.js'
import { trusted } from './ui/trusted.js'

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

/** The list's filters from the query string; anything unknown is left out rather than refused. */
export function filtersOf(query: Record<string, string | undefined>): ListFilters {
  const text = (key: string, max = 200) => (query[key] ?? '').trim().slice(0, max)
  const day = (key: string) => (/^\d{4}-\d{2}-\d{2}$/.test(text(key)) ? text(key) : '')
  const legacyApproval = (approvalStates as readonly string[]).includes(query.approval ?? '')
    ? `approval:${query.approval}`
    : ''
  const statuses = ['all', ...postStatuses, ...approvalStates.map((a) => `approval:${a}`)]
  const status = legacyApproval || (statuses.includes(text('status')) ? text('status') : 'all')
  return {
    status,
    network: isNetwork(text('network')) ? text('network') : '',
    profile: text('profile'),
    from: day('from'),
    to: day('to'),
    q: text('q'),
  }
}

/** The query string of these filters (empty ones left out), for the pager and links. */
export function filterQuery(filters: ListFilters, page?: number): string {
  const pairs = Object.entries(filters).filter(
    ([key, value]) => value && !(key === 'status' && value === 'all'),
  )
  if (page && page > 1) pairs.push(['page', String(page)])
  return pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')
}

function Select({
  name,
  label,
  options,
  selected,
}: {
  name: string
  label: string
  options: Array<[string, string]>
  selected: string
}) {
  return (
    <label>
      {label}
      <select name={name}>
        {options.map(([value, text]) => (
          <option value={value} selected={value === selected}>
            {text}
          </option>
        ))}
      </select>
    </label>
  )
}

function FilterForm({ filters, profiles }: { filters: ListFilters; profiles: ProfileOption[] }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form with the search role, which browsers of every age announce.
    <form method="get" action="/posts" class="post-filters" role="search" aria-label="Filter posts">
      <label class="grow">
        Search the copy
        <input type="search" name="q" value={filters.q} />
      </label>
      <Select name="status" label="Status" options={STATUS_OPTIONS} selected={filters.status} />
      <Select
        name="network"
        label="Network"
        options={[['', 'Any network'], ...networks.map((n): [string, string] => [n, networkLabel(n)])]}
        selected={filters.network}
      />
      <Select
        name="profile"
        label="Profile"
        options={[
          ['', 'Any profile'],
          ...profiles.map((p): [string, string] => [p.profileId, profileName(p)]),
        ]}
        selected={filters.profile}
      />
      <label>
        From
        <input type="date" name="from" value={filters.from} />
      </label>
      <label>
        To
        <input type="date" name="to" value={filters.to} />
      </label>
      <div class="filter-actions">
        <button type="submit" class="primary">
          Filter
        </button>
        {filterQuery(filters) ? <a href="/posts">Clear</a> : null}
      </div>
    </form>
  )
}

/** The avatar of the post page's parts (a string built there), placed as it is. */
const TargetAvatar = ({ target, pictures }: { target: PostView['targets'][number]; pictures: Pictures }) =>
  trusted(avatar(target, 'small', pictures))

/** One compose: its thumbnail, first line, an avatar chip per profile, and the profiles one by one. */
function ComposeRow({
  group,
  local,
  pictures,
}: {
  group: PostView[]
  local: LocalMedia
  pictures: Pictures
}) {
  const lead = group[0] as PostView
  const title = firstLine(lead.content) || 'Post without copy'
  const count = group.length
  const withTarget = group.flatMap((post) => (post.targets[0] ? [{ post, target: post.targets[0] }] : []))
  return (
    <li class="compose">
      {trusted(thumbnail(lead.mediaUrls, local))}
      <div class="compose-body">
        <h2 class="compose-title">
          <a href={`/posts/${lead.id}`}>{title}</a>
        </h2>
        <p class="compose-slot muted">
          {slotOf(lead)}
          {lead.mediaUrls.length ? ` · ${lead.mediaUrls.length} media` : ''}
        </p>
        <ul class="profile-chips" aria-label="Profiles">
          {withTarget.map(({ post, target }) => (
            <li class="profile-chip">
              <TargetAvatar target={target} pictures={pictures} />
              <span class="visually-hidden">{profileName(target)}:</span>
              <StatusChip state={profileState(post)} />
            </li>
          ))}
        </ul>
        <details class="compose-profiles">
          <summary>
            {count} profile{count === 1 ? '' : 's'}
          </summary>
          <ul>
            {withTarget.map(({ post, target }) => (
              <li>
                <span class="profile-line">
                  <TargetAvatar target={target} pictures={pictures} />
                  <span class="handle">
                    <NetworkName network={target.platform} /> {handleOf(target.username)}
                  </span>
                </span>
                <StatusChip state={profileState(post)} />
                <span class="muted">{slotOf(post)}</span>
                <a href={`/posts/${post.id}`}>Open</a>
              </li>
            ))}
          </ul>
        </details>
      </div>
    </li>
  )
}

function Pager({ filters, page, totalPages }: { filters: ListFilters; page: number; totalPages: number }) {
  const link = (n: number, text: string, rel: string) => (
    <a href={`/posts?${filterQuery(filters, n)}`} rel={rel}>
      {text}
    </a>
  )
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? link(page - 1, 'Newer', 'prev') : null}
      <span>
        Page {page} of {Math.max(1, totalPages)}
      </span>
      {page < totalPages ? link(page + 1, 'Older', 'next') : null}
    </nav>
  )
}

/** What an empty list says: that no post matches, or what this page will show and the button that fills it. */
function EmptyList({ list }: { list: ComposeList }) {
  if ((list.counts.all ?? 0) > 0 || list.pagination.page > 1)
    return (
      <p class="empty">
        No posts match these filters. <a href="/posts">Show all posts</a>
      </p>
    )
  return (
    <EmptyState
      text="No posts yet. Every post you write appears here, with how it went on each network."
      action={{ href: '/compose', label: 'Compose a post' }}
    />
  )
}

export function postsListBody(
  workspace: string,
  list: ComposeList,
  view: {
    filters: ListFilters
    profiles: ProfileOption[]
    local: LocalMedia
    onboarding: VNode
    /** The profiles' kept pictures. */
    pictures?: Pictures
  },
): VNode {
  const groups = composesOf(list.posts)
  const { page, totalPages } = list.pagination
  const composes = list.pagination.totalComposes ?? groups.length
  // Posts as composed; how many profiles they reach is on each row (a filter counts only the matching ones).
  const summary = `${composes} post${composes === 1 ? '' : 's'}`
  const exported = (format: string) =>
    `/posts/export?${[`format=${format}`, filterQuery(view.filters)].filter(Boolean).join('&')}`
  return (
    <>
      <div class="page-head">
        <h1>Posts of {workspace}</h1>
        <span class="head-actions">
          <a class="button" href={exported('csv')} download>
            Export CSV
          </a>
          <a class="button" href={exported('json')} download>
            Export JSON
          </a>
        </span>
      </div>
      {view.onboarding}
      <FilterForm filters={view.filters} profiles={view.profiles} />
      {groups.length ? (
        <>
          <p class="muted">{summary}</p>
          <ul class="compose-list">
            {groups.map((g) => (
              <ComposeRow group={g} local={view.local} pictures={view.pictures ?? new Map()} />
            ))}
          </ul>
          <Pager filters={view.filters} page={page} totalPages={totalPages} />
        </>
      ) : (
        <EmptyList list={list} />
      )}
    </>
  )
}
