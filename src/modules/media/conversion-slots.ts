import { MediaError } from '../../core/media-port.js'

/**
 * A fixed number of video conversions at a time per process: each ffmpeg takes every core it can and a
 * few hundred MB, so the worker's 16 concurrent sends must not start 16 of them. Others wait their turn in
 * order; a waiting caller whose signal fires leaves the queue at once.
 */

export interface ConversionSlots {
  /** Runs `task` when a slot is free. @throws {MediaError} `conversion_failed` when `signal` fires first. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>
  readonly running: number
  readonly waiting: number
}

export function createConversionSlots(size: number): ConversionSlots {
  let running = 0
  const queue: { start: () => void }[] = []

  const release = () => {
    running--
    const next = queue.shift()
    if (next) next.start()
  }

  return {
    get running() {
      return running
    },
    get waiting() {
      return queue.length
    },
    async run(task, signal) {
      if (signal?.aborted) throw cancelled(signal)
      if (running >= size)
        await new Promise<void>((resolve, reject) => {
          const entry = {
            start: () => {
              signal?.removeEventListener('abort', onAbort)
              resolve()
            },
          }
          const onAbort = () => {
            const at = queue.indexOf(entry)
            if (at >= 0) queue.splice(at, 1)
            reject(cancelled(signal!))
          }
          signal?.addEventListener('abort', onAbort, { once: true })
          queue.push(entry)
        })
      running++
      try {
        return await task()
      } finally {
        release()
      }
    },
  }
}

function cancelled(signal: AbortSignal): MediaError {
  const reason: unknown = signal.reason
  return reason instanceof MediaError
    ? reason
    : new MediaError('conversion_failed', 'The video conversion was cancelled')
}
