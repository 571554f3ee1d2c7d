import { looksLikeVideo } from '../../core/network-rules.js'
import { type ConnectionInfo, resolveCopy } from '../../core/post-plan.js'
import { resolveYouTubeDetails } from '../../core/youtube-details.js'
import type { AppContext } from '../../modules/app-context.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { type PreviewTarget, previewHtml } from './compose-previews.js'
import { csrfField, escapeHtml } from './html.js'

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

export function approvalSection(
  app: AppContext,
  post: PostView,
  options: { owner: boolean; csrf: string; price: number | undefined; immediate: boolean },
): string {
  const approval = post.approval
  if (!approval) return ''
  const id = escapeHtml(post.id)
  if (approval.state === 'rejected')
    return `<div class="problem" role="alert"><p><strong>Rejected by an owner.</strong> Their note:</p>
<blockquote class="note">${escapeHtml(approval.note ?? '')}</blockquote>
<p><a href="/posts/${id}/edit">Edit and resubmit it</a></p></div>`
  if (approval.state === 'approved')
    return `<p class="muted">Approved by an owner${approval.decidedAt ? ` at ${escapeHtml(approval.decidedAt.slice(0, 16).replace('T', ' '))} UTC` : ''}.</p>`
  const earlier = approval.note
    ? `<p class="muted">Sent back before with the note: “${escapeHtml(approval.note)}”</p>`
    : ''
  if (!options.owner)
    return `<div class="notice" role="status"><p><strong>Waiting for an owner's approval</strong>; it asks ${escapeHtml(asksFor(post, options.immediate))}. Nothing is charged until it is approved.</p>${earlier}</div>`
  const price = options.price ?? 0
  // The version shown here is the one approved: a post its author changes meanwhile is refused (409).
  const reviewed = `<input type="hidden" name="version" value="${escapeHtml(approval.version ?? '')}">`
  return `<section aria-labelledby="review-title" class="review"><h2 id="review-title">Waiting for your approval</h2>
<p>It asks ${escapeHtml(asksFor(post, options.immediate))}. Approving charges <strong>${price}</strong> credit${price === 1 ? '' : 's'}.</p>
${earlier}
<h3>Preview</h3>
<div class="previews">${previewHtml(previewOf(app, post))}</div>
<form method="post" action="/posts/${id}/approve" class="inline">${csrfField(options.csrf)}${reviewed}<button type="submit">Approve (${price} credit${price === 1 ? '' : 's'})</button></form>
${options.immediate ? '' : `<form method="post" action="/posts/${id}/approve-now" class="inline">${csrfField(options.csrf)}${reviewed}<button type="submit">Approve and publish now</button></form>`}
<form method="post" action="/posts/${id}/reject">${csrfField(options.csrf)}
<label>Note for its author (why it goes back) <textarea name="note" rows="3" required maxlength="2000"></textarea></label>
<button type="submit">Reject with this note</button></form></section>`
}
