import { EventEmitter } from 'node:events'
import type { Db } from '../../platform/db/db.js'

/**
 * In-process signalling between the API and the worker: `wake()` makes an idle worker claim at once
 * (immediate posts, publish_post_now) and `settled()` lets create_post stop waiting early. Across processes
 * the worker's poll and the waiter's own polling of the database cover the same ground, just later.
 */
export interface QueueSignal {
  wake(): void
  onWake(listener: () => void): () => void
  settled(postId: string): void
  /** Waits until none of the posts is scheduled or processing, or the timeout passes. */
  waitForSettled(db: Db, postIds: string[], timeoutMs: number): Promise<void>
}

const POLL_MS = 100

export function createQueueSignal(): QueueSignal {
  const events = new EventEmitter()
  events.setMaxListeners(0)
  return {
    wake: () => events.emit('wake'),
    onWake(listener) {
      events.on('wake', listener)
      return () => events.off('wake', listener)
    },
    settled: (postId) => events.emit('settled', postId),
    async waitForSettled(db, postIds, timeoutMs) {
      if (postIds.length === 0 || timeoutMs <= 0) return
      const deadline = Date.now() + timeoutMs
      const pending = new Set(postIds)
      let wakeUp: (() => void) | undefined
      const onSettled = (id: string) => {
        if (pending.has(id)) wakeUp?.()
      }
      events.on('settled', onSettled)
      try {
        while (Date.now() < deadline) {
          const open = await db
            .selectFrom('posts')
            .select('id')
            .where('id', 'in', [...pending])
            .where('status', 'in', ['scheduled', 'processing'])
            .execute()
          if (open.length === 0) return
          pending.clear()
          for (const row of open) pending.add(row.id)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now())))
            wakeUp = () => {
              clearTimeout(timer)
              resolve()
            }
          })
        }
      } finally {
        events.off('settled', onSettled)
      }
    },
  }
}
