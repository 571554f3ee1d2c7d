import type { Logger } from '../../platform/logger.js'

/**
 * A worker's timer for one sweep (hosted media, expiring connections, webhook history): every `intervalMs`,
 * and once at start when `atStart`. Runs never overlap; a failed run is logged and the next comes on time.
 * `stop` waits for the run under way.
 */
export function createPeriodicSweep(options: {
  /** Names the sweep in the log line of a failed run. */
  what: string
  sweep(): Promise<unknown>
  intervalMs: number
  atStart?: boolean
  logger: Logger
}) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()
  const run = () => {
    running = running.then(() =>
      options.sweep().catch((error: unknown) => {
        options.logger.error({ err: error }, `${options.what} sweep failed`)
      }),
    )
  }
  return {
    start() {
      if (timer) return
      if (options.atStart) run()
      timer = setInterval(run, options.intervalMs)
      timer.unref()
    },
    async stop() {
      clearInterval(timer)
      timer = undefined
      await running
    },
  }
}
