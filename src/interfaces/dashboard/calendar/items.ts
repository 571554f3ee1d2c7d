import type { Network } from '../../../core/networks.js'
import { instantToSlot } from '../../../core/schedule.js'
import type { PostView } from '../../../modules/publishing/schemas.js'
import { type ShownState, shownState, targetState } from '../ui/status-chip.js'

/**
 * What the calendar places on its days: one item per profile of each post that has a moment (its slot, or
 * when that profile received it), and the free times of the posting queues, each on its day and at its time
 * in the zone the calendar is shown in.
 */

interface Placed {
  /** The day and time (HH:MM) in the zone shown. */
  day: string
  time: string
  instant: number
  platform: Network
  /** The handle without its leading "@". */
  handle: string
}

export interface PostItem extends Placed {
  kind: 'post'
  id: string
  content: string
  state: ShownState
  /** A scheduled post, or one waiting for approval (which moves the slot it asks for), can be moved. */
  movable: boolean
  /** The post's own slot, which a move shifts by whole days, keeping its time and zone. */
  slot: { date: string; time: string; timezone: string }
}

export interface FreeSlotItem extends Placed {
  kind: 'free'
  /** Compose for that profile at that time. */
  compose: string
}

export type CalendarItem = PostItem | FreeSlotItem

export interface FreeOpening {
  date: string
  time: string
  timezone: string
  dueAt: number
  platform: Network
  username: string
  profileId: string
}

const bare = (handle: string) => handle.replace(/^@+/, '')

function placed(instant: number, zone: string) {
  const slot = instantToSlot(instant, zone)
  return { day: slot.date, time: slot.time, instant }
}

/** One item per profile of every post that has a moment. */
export function postItems(posts: PostView[], zone: string): PostItem[] {
  return posts.flatMap((post) => {
    const state = shownState(post)
    const movable = post.status === 'scheduled' || state === 'pending approval'
    return post.targets.flatMap((target) => {
      const at =
        target.status === 'published'
          ? (target.publishedAt ?? post.publishedAt ?? post.dueAt)
          : post.status === 'published'
            ? (post.publishedAt ?? post.dueAt)
            : post.dueAt
      if (!at) return []
      return [
        {
          kind: 'post' as const,
          ...placed(Date.parse(at), zone),
          platform: target.platform,
          handle: bare(target.username),
          id: post.id,
          content: post.content,
          state: state === 'pending approval' ? state : targetState(target.status, post),
          movable,
          slot: { date: post.scheduleDate, time: post.scheduleTime, timezone: post.timezone },
        },
      ]
    })
  })
}

/** The free queue times, as items that open Compose for that profile and time. */
export function freeSlotItems(openings: FreeOpening[], zone: string): FreeSlotItem[] {
  return openings.map((s) => ({
    kind: 'free' as const,
    ...placed(s.dueAt, zone),
    platform: s.platform,
    handle: bare(s.username),
    compose: `/compose?${new URLSearchParams({ profile: `${s.platform}:${s.profileId}`, date: s.date, time: s.time, timezone: s.timezone })}`,
  }))
}

/** The items of each day, in time order (a post before a free slot at the same minute). */
export function itemsByDay(items: CalendarItem[]): Map<string, CalendarItem[]> {
  const sorted = [...items].sort(
    (a, b) => a.instant - b.instant || (a.kind === b.kind ? 0 : a.kind === 'post' ? -1 : 1),
  )
  const days = new Map<string, CalendarItem[]>()
  for (const item of sorted) {
    const list = days.get(item.day)
    if (list) list.push(item)
    else days.set(item.day, [item])
  }
  return days
}
