/**
 * Approvals: with the workspace setting on, what an editor asks to send out waits for an owner.
 * The approval state is an addition to the post record; the spec's statuses are unchanged (a post waiting
 * for approval, or rejected, is a `draft`: out of the queue, kept; one part of which is live keeps its own
 * status, since such a post never goes back to `draft`).
 *
 * The rules, in one place (docs/adr/0021-approvals.md states them per tool):
 * - An editor's request that would put a post into the publishing queue (create_post; update_post to
 *   `scheduled`; reschedule_post or publish_post_now of a draft or failed post) makes it `pending` instead,
 *   keeping the slot it asked for (or "now"). Nothing is charged until an owner approves.
 * - An editor's change of what goes out (copy, media, profiles, YouTube details, thread, first comment) on
 *   a post that is in the queue sends it back to `pending`. Moving its slot or sending it now does not:
 *   what goes out is what the owner approved (or what an owner scheduled).
 * - A pending post leaves `pending` only by approve, reject, withdrawal (update_post to `draft` or
 *   `failed`) or delete_post; publish_post_now refuses it (409) whoever calls; reschedule_post and
 *   update_post change what it asks for and it stays pending.
 * - An owner's own requests never wait.
 */

import { createHash } from 'node:crypto'
import { readItems } from './thread-items.js'

export const approvalStates = ['pending', 'approved', 'rejected'] as const
export type ApprovalState = (typeof approvalStates)[number]

export type Role = 'owner' | 'editor'

/** The longest note an owner may leave on a rejection. */
export const APPROVAL_NOTE_MAX = 2_000

/** True when this person's request to send a post out must wait for an owner. */
export const mustAskApproval = (role: Role, requiresApproval: boolean): boolean =>
  requiresApproval && role === 'editor'

export const isPending = (post: { approval?: string | null | undefined }) => post.approval === 'pending'

/** The message a refused publish_post_now of a pending post carries. */
export const PENDING_PUBLISH_MESSAGE =
  "This post is waiting for an owner's approval and cannot be published before it is approved. An owner approves it on its page in the dashboard, or with POST /api/approvals/<id>/approve (publishNow: true sends it at once)."

/** What the tools answer when a request was turned into a request for approval. */
export const WAITING_MESSAGE = "Waiting for an owner's approval; nothing is charged until it is approved"

/**
 * What an owner approves, as a short fingerprint of everything that goes out and everything its price is
 * made of: the post's copy, media, YouTube and TikTok details, variants, thread and first comment as given, the slot
 * it asks for (or "now"), and for each profile (the target set) its network, copy, media, YouTube
 * details, thread items and first comment with their delivery state, and whether it is paid, failed or
 * live (what approving charges). A post waiting for approval shows it (`approval.version`); an approval
 * that names the version reviewed is refused when any of these changed since (its author may edit it
 * while it waits), so an owner never approves, or pays for, what they did not see.
 */
export function approvalVersion(
  post: {
    content: string
    media_urls: string
    youtube: string | null
    pinterest?: string | null | undefined
    variants: string
    schedule_date: string | null
    schedule_time: string | null
    timezone: string
    publish_immediately: number
    items?: string | null | undefined
    googlebusiness?: string | null | undefined
    media_alt_texts?: string | null | undefined
    tiktok?: string | null | undefined
  },
  targets: ReadonlyArray<{
    connection_id: string
    platform: string
    content: string
    media_urls: string
    youtube: string | null
    googlebusiness?: string | null | undefined
    tiktok?: string | null | undefined
    pinterest?: string | null | undefined
    items?: string | null | undefined
    status: string
    paid?: number | undefined
    remote_id: string | null
  }>,
): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        post.content,
        post.media_urls,
        post.youtube,
        // Absent (not null) for posts of other networks, so their fingerprints stay what they were.
        ...(post.pinterest ? [post.pinterest] : []),
        post.variants,
        post.items ?? null,
        post.publish_immediately === 1 ? 'now' : [post.schedule_date, post.schedule_time, post.timezone],
        // Only where there are some, so every other post keeps the version it always had.
        ...(post.googlebusiness ? [post.googlebusiness] : []),
        // Alt texts join the fingerprint only when there are some, so a post without any keeps its version.
        ...(post.media_alt_texts ? [post.media_alt_texts] : []),
        [...targets]
          .map((t) => [
            t.connection_id,
            t.platform,
            t.content,
            t.media_urls,
            t.youtube,
            ...(t.pinterest ? [t.pinterest] : []),
            readItems(t.items).map((i) => [i.role, i.content, i.mediaUrls, i.status]),
            t.status,
            t.paid ?? 1,
            t.remote_id !== null,
            ...(t.googlebusiness ? [t.googlebusiness] : []),
            // Only where there are TikTok settings, so every other post keeps the version it had.
            ...(t.tiktok ? [t.tiktok] : []),
          ])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        ...(post.tiktok ? [post.tiktok] : []),
      ]),
    )
    .digest('hex')
    .slice(0, 16)
}
