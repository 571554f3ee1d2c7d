import { looksLikeVideoUrl } from './media-url.js'
import type { Network } from './networks.js'

/** What each network accepts, as data; shared code never asks which network it is talking to. */
export interface NetworkRules {
  /** Characters per post as the network counts them (YouTube: the description). */
  textLimit: number
  /** A softer limit that only warns, with what happens past it. */
  textWarning?: { at: number; message: string }
  /** The item ceiling of an attachment set. */
  maxMedia: number
  /** The item floor of a set of several (Instagram 2, Threads 2); a single item is an ordinary post. */
  minSetMedia: number
  /** Whether video may be mixed into a set of several. */
  mixesVideoInSet: boolean
  requiresMedia: boolean
  requiresVideo: boolean
  /** Credits per post created for one profile. */
  price: number
  /** Hashtags and @mentions one caption may hold (Instagram: 30 and 20). */
  captionLimits?: { hashtags: number; mentions: number }
  /** The network refuses the same copy twice from one profile (X): preflight blocks it instead of warning. */
  refusesDuplicateCopy: boolean
}

export const networkRules: Record<Network, NetworkRules> = {
  twitter: {
    textLimit: 25_000,
    textWarning: { at: 280, message: 'X allows 280 on standard access (premium accounts up to 25,000)' },
    maxMedia: 4,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 5,
    refusesDuplicateCopy: true,
  },
  linkedin: {
    textLimit: 3_000,
    maxMedia: 20,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  facebook: {
    textLimit: 63_206,
    maxMedia: 10,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  instagram: {
    textLimit: 2_200,
    maxMedia: 10,
    minSetMedia: 2,
    mixesVideoInSet: true,
    requiresMedia: true,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
    captionLimits: { hashtags: 30, mentions: 20 },
  },
  threads: {
    textLimit: 500,
    maxMedia: 20,
    minSetMedia: 2,
    mixesVideoInSet: true,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  bluesky: {
    textLimit: 300,
    maxMedia: 4,
    minSetMedia: 2,
    mixesVideoInSet: false,
    requiresMedia: false,
    requiresVideo: false,
    price: 1,
    refusesDuplicateCopy: false,
  },
  youtube: {
    // The copy becomes the description, which is capped at 5,000 characters (spec §1 rule 5), never refused.
    textLimit: 100_000,
    textWarning: { at: 5_000, message: 'the video description keeps the first 5,000' },
    maxMedia: 1,
    minSetMedia: 1,
    mixesVideoInSet: false,
    requiresMedia: true,
    requiresVideo: true,
    price: 1,
    refusesDuplicateCopy: false,
  },
}

/** The character limits preflight reports in `limits` (X: its standard-access limit). */
export const reportedTextLimits: Record<Network, number> = {
  twitter: 280,
  linkedin: 3_000,
  facebook: 63_206,
  instagram: 2_200,
  threads: 500,
  bluesky: 300,
  youtube: 5_000,
}

export const LINK_SURCHARGE = 50

/** True when the URL looks like a video by its extension (the media pipeline's rule). */
export const looksLikeVideo = looksLikeVideoUrl

/** Hashtags in a caption as Instagram counts them: `#` then letters, digits or underscores, not inside a word. */
export const countHashtags = (text: string): number =>
  text.match(/(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_]+/gu)?.length ?? 0

/** @mentions in a caption: `@` then a handle (letters, digits, `.` and `_`), not inside a word or an e-mail address. */
export const countMentions = (text: string): number =>
  text.match(/(?<![\p{L}\p{N}_.@])@[A-Za-z0-9._]+/gu)?.length ?? 0

/**
 * What the targets still owe for their creation: a post that waited for approval was not charged when it
 * was created; its targets pay their network price when it is approved (or otherwise queued).
 */
export function unpaidPrice(
  targets: { platform: string; paid?: number | undefined; items?: string | null | undefined }[],
): number {
  return targets
    .filter((t) => t.paid === 0)
    .reduce(
      (sum, t) => sum + networkRules[t.platform as Network].price * (1 + itemsStillToSend(t.items).length),
      0,
    )
}

/**
 * What re-arming targets costs (DESIGN.md "Credits"): each failed target sent again costs its network's
 * price, whichever tool re-arms it (publish_post_now, reschedule_post, update_post back to scheduled); a
 * target already paid and never sent costs nothing more.
 */
export function resendPrice(
  targets: {
    platform: string
    status: string
    remote_id?: string | null
    unknown_outcome_at?: number | null
    items?: string | null | undefined
  }[],
): number {
  // A re-send pays for what is still to go out: the post when it is not live and each item of its thread or
  // first comment not yet live. What may be on the network already (the post of a target whose outcome is
  // unknown, an item whose call may have gone out) is not paid again: it is looked up before anything is
  // sent, and the charge the first attempt paid covers whichever send lands.
  return targets
    .filter((t) => t.status === 'failed')
    .reduce(
      (sum, t) =>
        sum +
        networkRules[t.platform as Network].price *
          ((t.remote_id || t.unknown_outcome_at ? 0 : 1) + itemsStillToSend(t.items).length),
      0,
    )
}

/** The items of a target not yet live on the network and not perhaps on it (a call that may have gone out). */
function itemsStillToSend(raw: string | null | undefined): { status: string }[] {
  if (!raw) return []
  try {
    const items = JSON.parse(raw) as {
      status: string
      startedAt?: number
      remoteId?: string
      releasedAt?: number
    }[]
    if (!Array.isArray(items)) return []
    const inDoubt = (i: (typeof items)[number]) =>
      i.startedAt !== undefined && !i.remoteId && i.releasedAt === undefined
    return items.filter((i) => i.status !== 'published' && !inDoubt(i))
  } catch {
    return []
  }
}
