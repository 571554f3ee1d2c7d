import type { VNode } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { looksLikeVideoUrl } from '../../core/media-url.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { History } from './post-history.js'
import {
  avatar,
  errorInWords,
  firstLine,
  instant,
  type LocalMedia,
  networkLabel,
  type Pictures,
  profileName,
  profileState,
  slotOf,
} from './post-parts.js'
import { Icon } from './ui/parts.js'
import { StatusChip, shownState, statusChip } from './ui/status-chip.js'

/**
 * A post's page, rendered from JSX (every value escaped by the renderer): titled by its copy, its media as a
 * gallery (a player for video), one card per profile of its compose with the state, the live link and the
 * fix for a failure, the actions its state allows, each profile's history in words, and its analytics.
 * Only what Herald records is told.
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

export interface PostPageProps {
  /** This page's post. */
  post: PostView
  /** Every post of its compose (this one among them), each with its history, in the order they were made. */
  compose: PostView[]
  needsReconnect: NeedsReconnect
  /** The profiles' kept pictures. */
  pictures?: Pictures
  csrf: string
  local: LocalMedia
  message?: { notice?: string | undefined; problem?: string | undefined } | undefined
  analytics?: PostAnalytics | undefined
  /** The approval part of the page (approval-views.tsx), when the post has one. */
  approval: VNode | null
}

/** Trusted markup from the dashboard's own string builders (a chip, an avatar, the approval part). */
const Html = ({ html }: { html: string }) =>
  html ? <span class="html-part" dangerouslySetInnerHTML={{ __html: html }} /> : null

const Csrf = ({ token }: { token: string }) => <input type="hidden" name="csrf" value={token} />

function Head({ post }: { post: PostView }) {
  return (
    <>
      <p>
        <a href="/posts">All posts</a>
      </p>
      <div class="page-head post-head">
        <h1>{postTitle(post)}</h1>
        <StatusChip state={shownState(post)} />
      </div>
      <p class="muted">
        {slotOf(post)}
        {post.queued ? ' (from the posting queue)' : ''}
      </p>
    </>
  )
}

function Messages({ message }: { message: PostPageProps['message'] }) {
  return (
    <>
      {message?.notice ? (
        <div class="notice" role="status">
          <p>{message.notice}</p>
        </div>
      ) : null}
      {message?.problem ? (
        <div class="problem" role="alert">
          <p>{message.problem}</p>
        </div>
      ) : null}
    </>
  )
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/** The media as a gallery: Herald's own files shown (a player for video), others as a link to the file. */
export function Gallery({ post, local }: { post: PostView; local: LocalMedia }) {
  if (post.mediaUrls.length === 0) return null
  return (
    <section aria-labelledby="media-head">
      <h2 id="media-head">Media</h2>
      <ul class="gallery">
        {post.mediaUrls.map((url, i) => {
          const path = local(url)
          const label = `Media ${i + 1} of ${post.mediaUrls.length}`
          const video = looksLikeVideoUrl(url)
          if (path && video)
            return (
              <li>
                {/* biome-ignore lint/a11y/useMediaCaption: Herald holds no captions of a file the manager uploaded; the networks take none from it either. */}
                <video controls preload="metadata" src={path} aria-label={label} />
              </li>
            )
          if (path)
            return (
              <li>
                <a href={path}>
                  <img src={path} alt={label} loading="lazy" />
                </a>
              </li>
            )
          return (
            <li class="remote">
              <Icon name={video ? 'film' : 'image'} />
              <a href={url} rel="noopener noreferrer">
                {label}, on {hostOf(url)}
              </a>
            </li>
          )
        })}
      </ul>
    </section>
  )
}

/** The fix a failed profile offers: reconnect its channel when the connection is lost, and a retry. */
function Fixes({
  post,
  csrf,
  needsReconnect,
}: {
  post: PostView
  csrf: string
  needsReconnect: NeedsReconnect
}) {
  const target = post.targets[0]
  if (target?.status !== 'failed') return null
  const reconnect = needsReconnect(target)
  const retry = post.status === 'failed' || post.status === 'published'
  if (!reconnect && !retry) return null
  return (
    <div class="fixes">
      {reconnect ? (
        <a class="button primary" href="/channels">
          <Icon name="plug-zap" />
          Reconnect {profileName(target)}
        </a>
      ) : null}
      {retry ? (
        <form method="post" action={`/posts/${post.id}/retry`} class="inline">
          <Csrf token={csrf} />
          <button type="submit" class={reconnect ? undefined : 'primary'}>
            <Icon name="refresh-cw" />
            Retry
          </button>
        </form>
      ) : null}
    </div>
  )
}

/** The thread items and first comment of a profile's post, each with its state and live link. */
function Items({ target }: { target: PostView['targets'][number] }) {
  const items = target.items ?? []
  if (items.length === 0) return null
  let threadPost = 1
  return (
    <ul class="items">
      {items.map((item) => {
        const what = item.kind === 'firstComment' ? 'First comment' : `Thread post ${++threadPost}`
        const state =
          item.status === 'published' ? 'published' : item.status === 'failed' ? 'failed' : 'scheduled'
        return (
          <li>
            {what} <StatusChip state={state} />
            {item.url ? (
              <>
                {' '}
                <a href={item.url} rel="noopener noreferrer">
                  See it live
                </a>
              </>
            ) : null}
            {item.error ? <p class="problem-text">{errorInWords(item.error)}</p> : null}
          </li>
        )
      })}
    </ul>
  )
}

function ProfileCard({ post, current, view }: { post: PostView; current: string; view: PostPageProps }) {
  const target = post.targets[0]
  if (!target) return null
  const errors = ([target.error, target.uploadError].filter(Boolean) as string[]).map(errorInWords)
  return (
    <li class={`card profile-card${post.id === current ? ' current' : ''}`}>
      <div class="profile-head">
        <span class="profile-line">
          <Html html={avatar(target, '', view.pictures)} />
          <span class="handle">
            <strong>{profileName(target)}</strong>
          </span>
        </span>
        <StatusChip state={profileState(post)} />
      </div>
      <p class="muted">{slotOf(post)}</p>
      {target.url ? (
        <p>
          <a class="live" href={target.url} rel="noopener noreferrer">
            <Icon name="external-link" />
            See it on {networkLabel(target.platform)}
          </a>
        </p>
      ) : null}
      {errors.map((error) => (
        <p class="problem-text">{error}</p>
      ))}
      <Fixes post={post} csrf={view.csrf} needsReconnect={view.needsReconnect} />
      <Items target={target} />
      {post.id === current ? (
        <p class="muted">This page’s post</p>
      ) : (
        <p>
          <a href={`/posts/${post.id}`}>Open this profile’s post</a>
        </p>
      )}
    </li>
  )
}

function ProfileCards({ view }: { view: PostPageProps }) {
  return (
    <section aria-labelledby="profiles-head">
      <h2 id="profiles-head">Profiles</h2>
      <ul class="profile-cards">
        {view.compose.map((post) => (
          <ProfileCard post={post} current={view.post.id} view={view} />
        ))}
      </ul>
    </section>
  )
}

/** One action on the post: a form posting to its route, which calls one tool through the form guard. */
function ActionForm({
  post,
  csrf,
  action,
  text,
}: {
  post: PostView
  csrf: string
  action: string
  text: string
}) {
  return (
    <form method="post" action={`/posts/${post.id}/${action}`} class="inline">
      <Csrf token={csrf} />
      {/* Deleting cannot be undone, so it looks unlike the rest. */}
      <button type="submit" class={action === 'delete' ? 'danger' : undefined}>
        {text}
      </button>
    </form>
  )
}

/** The actions this profile's post allows in its state; the tools still decide, and refuse in their words. */
function Actions({ post, csrf }: { post: PostView; csrf: string }) {
  const target = post.targets[0]
  const pending = post.approval?.state === 'pending'
  const { status } = post
  const form = (action: string, text: string) => (
    <ActionForm post={post} csrf={csrf} action={action} text={text} />
  )
  const actions = [
    status === 'scheduled' || status === 'draft' || status === 'failed' ? (
      <a class="button" href={`/posts/${post.id}/edit`}>
        Edit
      </a>
    ) : null,
    // Nothing publishes a post waiting for approval but its approval (src/core/approval.ts).
    (status === 'scheduled' || status === 'draft') && !pending ? form('publish', 'Publish now') : null,
    // A failed profile's retry sits on its card, beside the network's words.
    status === 'processing' ? form('reset', 'Reset stuck sending') : null,
    status === 'scheduled' || status === 'failed' ? form('draft', 'Move to drafts') : null,
    pending ? form('draft', 'Withdraw the request (keep as a draft)') : null,
    status === 'scheduled' || status === 'draft' ? form('delete', 'Delete') : null,
  ].filter(Boolean)
  // A published post has nothing left to do here: no heading over an empty row.
  if (actions.length === 0) return null
  return (
    <section aria-labelledby="actions-head">
      <h2 id="actions-head">{target ? `Actions for ${profileName(target)}` : 'Actions'}</h2>
      <div class="post-actions">{actions}</div>
    </section>
  )
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
function Analytics({
  post,
  analytics,
  csrf,
}: {
  post: PostView
  analytics?: PostAnalytics | undefined
  csrf: string
}) {
  if (!post.targets.some((t) => t.status === 'published')) return null
  const figures = Object.entries(analytics?.totals ?? {}).filter(([, value]) => value !== null)
  return (
    <section aria-labelledby="analytics-head" class="panel">
      <h2 id="analytics-head">Analytics</h2>
      <p class="muted">
        {analytics?.fetchedAt ? `Read ${instant(analytics.fetchedAt)}` : 'Not read yet'};{' '}
        {analytics?.measured ?? 0} of {analytics?.measurable ?? 0} profiles with numbers. Readings already
        made are free to look at.
      </p>
      {figures.length > 0 ? (
        <dl class="figures">
          {figures.map(([key, value]) => (
            <div>
              <dt>{figureName(key)}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {(analytics?.notes ?? []).map((note) => (
        <p class="muted">{noteInWords(note)}</p>
      ))}
      <form method="post" action={`/posts/${post.id}/analytics`}>
        <Csrf token={csrf} />
        <button type="submit">
          <Icon name="refresh-cw" />
          Read now (1 credit)
        </button>
      </form>
    </section>
  )
}

function PostPage(view: PostPageProps) {
  const { post, csrf } = view
  return (
    <>
      <Head post={post} />
      <Messages message={view.message} />
      {view.approval}
      <blockquote class="post-copy">{post.content}</blockquote>
      <Gallery post={post} local={view.local} />
      <ProfileCards view={view} />
      <Actions post={post} csrf={csrf} />
      <History compose={view.compose} />
      <Analytics post={post} analytics={view.analytics} csrf={csrf} />
    </>
  )
}

/** The body of a post's page, for the dashboard's frame. */
export function renderPostPage(view: PostPageProps): string {
  return renderToString(<PostPage {...view} />)
}

/** The chip of a post's state, for pages that still build strings. */
export const postChip = (post: PostView) => statusChip(shownState(post))
