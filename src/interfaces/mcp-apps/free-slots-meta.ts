import type { AppContext } from '../../modules/app-context.js'
import { listQueues } from '../../modules/publishing/posting-queues.js'
import { FREE_SLOTS_META_KEY, type FreeSlot } from './views.js'

/**
 * The queue view's free posting times, handed over in list_posts' `_meta` (list_posts itself answers posts
 * only, and the view may call nothing but the tools): each profile's next free times in its queue, read for
 * the workspace the call listed. Without posting times set up there are none, and the view shows posts alone.
 */

/** How many free times per profile the queue shows: about a week of a daily queue. */
const PER_PROFILE = 7

export async function freeSlotsMeta(app: AppContext, workspaceId: string) {
  const queues = await listQueues(app.store.db, workspaceId, app.clock.now(), PER_PROFILE)
  const slots: FreeSlot[] = queues.flatMap((queue) =>
    queue.next.map((opening) => ({
      platform: queue.platform,
      username: queue.username,
      scheduleDate: opening.scheduleDate,
      scheduleTime: opening.scheduleTime,
      timezone: opening.timezone,
    })),
  )
  return slots.length ? { [FREE_SLOTS_META_KEY]: slots } : undefined
}
