import { readAltTexts } from '../../core/alt-text.js'
import { approvalVersion } from '../../core/approval.js'
import type { Network } from '../../core/networks.js'
import { STUCK_MESSAGE } from '../../core/post-status.js'
import type { HistoryKind, HistoryResult } from '../../core/target-history.js'
import { readItems, readPostItems } from '../../core/thread-items.js'
import type { TargetHistoryTable } from '../../platform/db/schema.js'
import type { PostRow, TargetRow } from '../../platform/db/statements/posts.js'
import type { PostView } from './schemas.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** A target whose lease ran out: its worker died mid-send, so the outcome is unknown. */
export const isStuck = (target: TargetRow, now: number) =>
  target.status === 'pending' &&
  target.lease_owner !== null &&
  (target.stuck_at !== null || (target.lease_expires_at ?? 0) < now)

/** A stored post and its targets as the API shows them. */
export function presentPost(post: PostRow, targets: TargetRow[], now: number): PostView {
  const mediaUrls = JSON.parse(post.media_urls) as string[]
  const variants = JSON.parse(post.variants) as Record<string, string>
  const altTexts = readAltTexts(post.media_alt_texts)
  const stuck = targets.some((t) => isStuck(t, now))
  const platforms = [...new Set(targets.map((t) => t.platform as Network))]
  return {
    id: post.id,
    content: post.content,
    platforms,
    targets: targets.map((t) => presentTarget(t, now)),
    status: post.status as PostView['status'],
    scheduleDate: post.schedule_date ?? '',
    scheduleTime: post.schedule_time ?? '',
    timezone: post.timezone,
    dueAt: post.due_at === null ? null : iso(post.due_at),
    ...(mediaUrls[0] ? { mediaUrl: mediaUrls[0] } : {}),
    mediaUrls,
    ...(Object.keys(altTexts).length > 0 ? { mediaAltTexts: altTexts } : {}),
    ...(post.youtube ? { youtube: JSON.parse(post.youtube) } : {}),
    ...(post.googlebusiness ? { googlebusiness: JSON.parse(post.googlebusiness) } : {}),
    ...(post.tiktok ? { tiktok: JSON.parse(post.tiktok) } : {}),
    ...(post.pinterest ? { pinterest: JSON.parse(post.pinterest) } : {}),
    ...(post.mastodon ? { mastodon: JSON.parse(post.mastodon) } : {}),
    ...(Object.keys(variants).length > 0 ? { variants } : {}),
    createdAt: iso(post.created_at),
    ...(post.published_at ? { publishedAt: iso(post.published_at) } : {}),
    attempts: post.attempts,
    lastError: post.last_error || (stuck ? STUCK_MESSAGE : ''),
    ...(post.approval
      ? {
          approval: {
            state: post.approval,
            ...(post.approval_note ? { note: post.approval_note } : {}),
            ...(post.approval_at ? { decidedAt: iso(Number(post.approval_at)) } : {}),
            ...(post.approval === 'pending' ? { version: approvalVersion(post, targets) } : {}),
          },
        }
      : {}),
    ...(readPostItems(post.items).thread ? { thread: readPostItems(post.items).thread } : {}),
    ...(readPostItems(post.items).firstComment !== undefined
      ? { firstComment: readPostItems(post.items).firstComment }
      : {}),
    ...(post.from_queue ? { queued: true } : {}),
    composeId: post.compose_id ?? post.id,
  }
}

/** One target of a post as the API shows it (also the `target` of target events). */
export function presentTarget(t: TargetRow, now: number): PostView['targets'][number] {
  return {
    platform: t.platform as Network,
    profileId: t.profile_id,
    username: t.username,
    status: t.status as 'pending' | 'published' | 'failed',
    ...(t.remote_id ? { postId: t.remote_id } : {}),
    ...(t.url ? { url: t.url } : {}),
    ...(t.error ? { error: t.error } : isStuck(t, now) ? { error: STUCK_MESSAGE } : {}),
    ...(t.upload_error ? { uploadError: t.upload_error } : {}),
    ...(t.published_at ? { publishedAt: iso(t.published_at) } : {}),
    ...(t.items ? { items: presentItems(t.items) } : {}),
  }
}

/** A target's thread items and first comment as the API shows them. */
function presentItems(raw: string) {
  return readItems(raw).map((item) => ({
    kind: item.role,
    content: item.content,
    status: item.status,
    ...(item.remoteId ? { postId: item.remoteId } : {}),
    ...(item.url ? { url: item.url } : {}),
    ...(item.error ? { error: item.error } : {}),
    ...(item.publishedAt ? { publishedAt: iso(item.publishedAt) } : {}),
  }))
}

type HistoryView = NonNullable<PostView['targets'][number]['history']>

/** Targets' history rows as the API shows them, by target id, in the rows' order. */
export function presentHistory(rows: readonly TargetHistoryTable[]): Map<string, HistoryView> {
  const byTarget = new Map<string, HistoryView>()
  for (const row of rows) {
    const list = byTarget.get(row.target_id) ?? []
    list.push({
      at: iso(Number(row.at)),
      kind: row.kind as HistoryKind,
      result: row.result as HistoryResult,
      ...(row.sent === null ? {} : { sent: Number(row.sent) === 1 }),
      ...(row.detail ? { detail: row.detail } : {}),
    })
    byTarget.set(row.target_id, list)
  }
  return byTarget
}

/** Groups targets by post id, keeping their order. */
export function groupTargets(targets: TargetRow[]): Map<string, TargetRow[]> {
  const byPost = new Map<string, TargetRow[]>()
  for (const target of targets) {
    const list = byPost.get(target.post_id)
    if (list) list.push(target)
    else byPost.set(target.post_id, [target])
  }
  return byPost
}
