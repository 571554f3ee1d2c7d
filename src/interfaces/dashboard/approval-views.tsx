import { looksLikeVideo } from '../../core/network-rules.js'
import { type ConnectionInfo, resolveCopy } from '../../core/post-plan.js'
import { resolveYouTubeDetails } from '../../core/youtube-details.js'
import type { AppContext } from '../../modules/app-context.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { type PreviewTarget, previewHtml } from './compose-previews.js'
import { CsrfField } from './ui/parts.js'
import { trusted } from './ui/trusted.js'

/**
 * The approval parts of a post's page: what state it is in, the owner's note, and for an owner the
 * preview of every profile as Compose shows it, the price approving takes, and the approve and reject
 * forms. The decisions themselves are src/modules/publishing/approvals.ts.
 */

const slotText = (post: PostView) =>
  post.queued
    ? `the queue slot ${post.scheduleDate} ${post.scheduleTime} ${post.timezone}`
    : `${post.scheduleDate} ${post.scheduleTime} ${post.timezone}`

/** What a post waiting for approval asks for: its slot, or to go out as soon as it is approved. */
export function asksFor(post: PostView & { publishImmediately?: boolean }, immediate: boolean) {
  return immediate ? 'to be published as soon as it is approved' : `to go out at ${slotText(post)}`
}

/** Each profile's preview of a stored post, with the copy and media the domain's rules give it. */
export function previewOf(app: AppContext, post: PostView): PreviewTarget[] {
  const media = post.mediaUrls.map((url) => ({
    url,
    video: looksLikeVideo(url),
    ...(app.media.isHostedUrl(url) ? { src: new URL(url).pathname } : {}),
  }))
  return post.targets.map((t) => {
    const connection: ConnectionInfo = {
      id: '',
      status: 'active',
      platform: t.platform,
      profileId: t.profileId,
      username: t.username,
    }
    const copy = resolveCopy(connection, undefined, post.variants ?? {}, post.content)
    return {
      platform: t.platform,
      username: t.username,
      copy,
      media,
      youtube: t.platform === 'youtube' ? resolveYouTubeDetails(copy, post.youtube) : null,
      ...(t.platform === 'tiktok' && post.tiktok ? { tiktok: post.tiktok } : {}),
    }
  })
}

const credits = (price: number) => `${price} credit${price === 1 ? '' : 's'}`

/** An owner's review of a post waiting for them: what it asks, the previews, and approve or reject. */
function Review(props: { app: AppContext; post: PostView; csrf: string; price: number; immediate: boolean }) {
  const { post, csrf, price } = props
  const approval = post.approval
  // The version shown here is the one approved: a post its author changes meanwhile is refused (409).
  const reviewed = <input type="hidden" name="version" value={approval?.version ?? ''} />
  return (
    <section aria-labelledby="review-title" class="review">
      <h2 id="review-title">Waiting for your approval</h2>
      <p>
        It asks {asksFor(post, props.immediate)}. Approving charges <strong>{price}</strong> credit
        {price === 1 ? '' : 's'}.
      </p>
      <Earlier note={approval?.note} />
      <h3>Preview</h3>
      {/* The previews are Compose's, built as HTML there. */}
      <div class="previews">{trusted(previewHtml(previewOf(props.app, post)))}</div>
      <form method="post" action={`/posts/${post.id}/approve`} class="inline">
        <CsrfField token={csrf} />
        {reviewed}
        <button type="submit">Approve ({credits(price)})</button>
      </form>
      {props.immediate ? null : (
        <form method="post" action={`/posts/${post.id}/approve-now`} class="inline">
          <CsrfField token={csrf} />
          {reviewed}
          <button type="submit">Approve and publish now</button>
        </form>
      )}
      <form method="post" action={`/posts/${post.id}/reject`}>
        <CsrfField token={csrf} />
        <label>
          Note for its author (why it goes back) <textarea name="note" rows={3} required maxlength={2000} />
        </label>
        <button type="submit">Reject with this note</button>
      </form>
    </section>
  )
}

const Earlier = ({ note }: { note: string | null | undefined }) =>
  note ? <p class="muted">Sent back before with the note: “{note}”</p> : null

export function ApprovalSection(props: {
  app: AppContext
  post: PostView
  owner: boolean
  csrf: string
  price: number | undefined
  immediate: boolean
}) {
  const { post } = props
  const approval = post.approval
  if (!approval) return null
  if (approval.state === 'rejected')
    return (
      <div class="problem" role="alert">
        <p>
          <strong>Rejected by an owner.</strong> Their note:
        </p>
        <blockquote class="note">{approval.note ?? ''}</blockquote>
        <p>
          <a href={`/posts/${post.id}/edit`}>Edit and resubmit it</a>
        </p>
      </div>
    )
  if (approval.state === 'approved')
    return (
      <p class="muted">
        Approved by an owner
        {approval.decidedAt ? ` at ${approval.decidedAt.slice(0, 16).replace('T', ' ')} UTC` : ''}.
      </p>
    )
  if (!props.owner)
    return (
      <div class="notice" role="status">
        <p>
          <strong>Waiting for an owner's approval</strong>; it asks {asksFor(post, props.immediate)}. Nothing
          is charged until it is approved.
        </p>
        <Earlier note={approval.note} />
      </div>
    )
  return (
    <Review
      app={props.app}
      post={post}
      csrf={props.csrf}
      price={props.price ?? 0}
      immediate={props.immediate}
    />
  )
}
