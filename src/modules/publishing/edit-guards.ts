import { readAltTexts } from '../../core/alt-text.js'
import { type Network, networkLabels } from '../../core/networks.js'
import { isLive, outcomeUnknown } from '../../core/post-status.js'
import { type DeliveryItem, editItems, itemLabel, readItems, sameItems } from '../../core/thread-items.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { conflict } from '../../platform/errors.js'

/**
 * What a person's edit may change on a post that is partly out (DESIGN.md, "A person's edits around a post
 * that is partly out"), checked by update_post on the rows it has locked: nothing that is on the network,
 * or may be, changes or is forgotten.
 */

/** What an edit would make a kept target send. */
export interface TargetEdit {
  content: string
  mediaUrls: string[]
  /** The alt texts of the images it sends, by URL. */
  altTexts?: Record<string, string>
  youtube: unknown
  googlebusiness: unknown
  tiktok?: unknown
  pinterest: unknown
  mastodon?: unknown
  items: DeliveryItem[]
}

/** What a kept target holds after the edit, and whether the edit leaves it with nothing to send. */
export interface KeptTarget {
  items: DeliveryItem[]
  /** The target (not published yet) has its post live and none of its items left to send: it is published. */
  settles: boolean
}

/** A profile as a person names it ("X @acme"), and its network ("X"), for messages people read. */
export const who = (target: Pick<TargetRow, 'platform' | 'username'>) =>
  `${networkName(target)} @${target.username.replace(/^@/, '')}`
export const networkName = (target: Pick<TargetRow, 'platform'>) =>
  networkLabels[target.platform as Network] ?? target.platform

const sameAltTexts = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([url, text]) => b[url] === text)

/** The parts of what a target sends that an edit changes. */
function changedParts(target: TargetRow, edit: TargetEdit): string[] {
  const parts: string[] = []
  if (edit.content !== target.content) parts.push('copy')
  if (JSON.stringify(edit.mediaUrls) !== target.media_urls) parts.push('media')
  else if (!sameAltTexts(edit.altTexts ?? {}, readAltTexts(target.media_alt_texts))) parts.push('alt text')
  if ((edit.youtube ? JSON.stringify(edit.youtube) : null) !== target.youtube) parts.push('YouTube details')
  if ((edit.googlebusiness ? JSON.stringify(edit.googlebusiness) : null) !== (target.googlebusiness ?? null))
    parts.push('Google Business Profile details')
  if ((edit.tiktok ? JSON.stringify(edit.tiktok) : null) !== (target.tiktok ?? null))
    parts.push('TikTok settings')
  if ((edit.pinterest ? JSON.stringify(edit.pinterest) : null) !== (target.pinterest ?? null))
    parts.push('pin details')
  if ((edit.mastodon ? JSON.stringify(edit.mastodon) : null) !== (target.mastodon ?? null))
    parts.push('Mastodon details')
  return parts
}

/**
 * The items `target` keeps after `edit`, or a 409 when the edit would change what is, or may be, on its
 * network: the copy, media or YouTube details of a post that is live; anything it sends while its last
 * send's outcome is unknown (the lookup searches for what that send carried); an item that is live, or whose
 * send may have reached the network (it is looked up first, by the copy it went out with).
 */
export function keptTarget(target: TargetRow, edit: TargetEdit): KeptTarget {
  const current = readItems(target.items)
  const parts = changedParts(target, edit)
  if (isLive(target) && parts.length > 0)
    throw conflict(
      `${who(target)} has this post live on ${networkName(target)} already (${target.url ?? target.remote_id}), so its ${parts.join(', ')} cannot change; only its thread items and first comment that are not live may`,
      { platform: target.platform, profileId: target.profile_id, changed: parts },
    )
  if (
    outcomeUnknown(target) &&
    target.remote_id === null &&
    (parts.length > 0 || !sameItems(current, edit.items))
  )
    throw conflict(
      `${who(target)}: the outcome of its last send is unknown, so the post may be on ${target.platform} already. Herald looks for it by what that send carried, so its copy, media, thread and first comment cannot change until then. Call publish_post_now: it looks first and sends the post only if it is not there.`,
      { platform: target.platform, profileId: target.profile_id, reason: 'outcome_unknown' },
    )
  const edited = editItems(current, edit.items)
  if ('pinned' in edited) {
    const { index, item, why } = edited.pinned
    const what = itemLabel(item, index, current)
    throw conflict(
      why === 'live'
        ? `${who(target)}: the ${what} is live already (${item.url ?? item.remoteId}) and cannot change; send the live items unchanged`
        : `${who(target)}: the ${what} may be on ${target.platform} already (its last send went unanswered), so it cannot change or be removed until Herald has looked for it. Call publish_post_now: it looks first and sends the ${what} only if it is not there.`,
      { platform: target.platform, profileId: target.profile_id, item: index, reason: why },
    )
  }
  const settles =
    target.status !== 'published' &&
    target.remote_id !== null &&
    edited.items.every((item) => item.status === 'published')
  return { items: edited.items, settles }
}

/** A 409 when `removed` holds a target that is, or may be, on its network: the post keeps it. */
export function refuseRemoval(removed: readonly TargetRow[]) {
  const live = removed.find(isLive)
  if (live)
    throw conflict(`${who(live)} already received this post, so it cannot be removed from it`, {
      platform: live.platform,
      profileId: live.profile_id,
    })
  const unknown = removed.find(outcomeUnknown)
  if (unknown)
    throw conflict(
      `${who(unknown)} cannot be removed from this post: the outcome of its last send is unknown, so the post may be on ${unknown.platform} already. Call publish_post_now first: it looks for the post and sends it only if it is not there.`,
      { platform: unknown.platform, profileId: unknown.profile_id, reason: 'outcome_unknown' },
    )
}

/** A 409 when a post with a live target would go back to the queue (`scheduled`) or out of it (`draft`). */
export function refuseBackToQueue(targets: readonly TargetRow[], status: 'scheduled' | 'draft') {
  const live = targets.find(isLive)
  if (live)
    throw conflict(
      `${who(live)} has this post live on ${networkName(live)} already, so the post cannot go back to ${status}. To send what is left of it (its failed profiles, thread items or first comment), fix them with update_post and call publish_post_now.`,
      { status, platform: live.platform, profileId: live.profile_id },
    )
}
