import path from 'node:path'
import { createAppContext } from './app.js'
import { ConfigError, loadConfigFromProcess } from './config.js'
import { createLogger } from './logger.js'
import { buildServer } from './server.js'

/** `npm start`: config → store → HTTP server (the worker joins in a later module). */
export async function startService(role: 'api' | 'worker' | 'all' = 'all') {
  const config = loadConfigFromProcess()
  const logger = createLogger(config.logLevel)
  const app = await createAppContext(config, { logger })
  const { server, close } = buildServer(app)
  await server.listen({ port: config.port, host: config.host })
  logger.info(
    { url: `http://${config.host}:${config.port}`, role, database: app.store.dialect },
    'Herald is listening',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping')
    await close()
    await app.store.destroy()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

if (path.resolve(process.argv[1] ?? '') === path.resolve(import.meta.filename)) {
  startService().catch((error) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
    } else {
      process.stderr.write(`Herald failed to start: ${(error as Error).stack ?? error}\n`)
    }
    process.exit(1)
  })
}
