import path from 'node:path'
import { createAppContext } from './app.js'
import type { AppContext } from './app-context.js'
import { ConfigError, loadConfigFromProcess, type Role } from './config.js'
import { createLogger } from './logger.js'
import { buildServer } from './server.js'
import { createWorker, type Worker } from './worker/worker.js'

/** The publishing worker with the settings from the config and the adapters of the app. */
export function createAppWorker(app: AppContext, overrides: { id?: string } = {}): Worker {
  return createWorker(
    {
      store: app.store,
      vault: app.vault,
      clock: app.clock,
      logger: app.logger,
      queue: app.queue,
      metrics: app.metrics,
      adapters: app.adapters,
    },
    { ...app.config.worker, ...overrides },
  )
}

/**
 * `npm start` (role `all`): the API and the worker in one process. `herald api` serves HTTP only;
 * `herald worker` runs the worker with only /healthz, /readyz and /metrics on PORT.
 */
export async function startService(role: Role = 'all') {
  const config = loadConfigFromProcess()
  const logger = createLogger(config.logLevel)
  const app = await createAppContext(config, { logger })
  const http = buildServer(app, { role })
  await http.server.listen({ port: config.port, host: config.host })
  const worker = role === 'api' ? undefined : createAppWorker(app)
  worker?.start()
  logger.info(
    {
      url: `http://${config.host}:${config.port}`,
      role,
      database: app.store.dialect,
      sandbox: config.sandbox,
    },
    'Herald is running',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping: no new claims; in-flight sends get the grace period')
    await worker?.stop()
    await http.close()
    await app.store.destroy()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

if (path.resolve(process.argv[1] ?? '') === path.resolve(import.meta.filename)) {
  startService().catch((error) => {
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `Herald failed to start: ${(error as Error).stack ?? error}\n`,
    )
    process.exit(1)
  })
}
