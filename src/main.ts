import path from 'node:path'
import { canConnect, type SavedApps } from './adapters/apps.js'
import { createAppContext } from './app.js'
import { networks } from './core/networks.js'
import { announceSetup, withdrawSetupCode } from './modules/accounts/setup-codes.js'
import type { AppContext } from './modules/app-context.js'
import { lookIntervalMs, runScheduledBackup } from './modules/backup/schedule.js'
import { EXPIRING_SWEEP_MS, sweepExpiringConnections } from './modules/delivery/expiring.js'
import { createPeriodicSweep } from './modules/delivery/periodic-sweep.js'
import { createWorker, type Worker, type WorkerOptions } from './modules/delivery/worker.js'
import { sweepAppMedia } from './modules/media/app-media-sweep.js'
import { describeFfmpeg, MIN_FFMPEG_VERSION } from './modules/media/ffmpeg.js'
import { createWebhookWorker, type WebhookWorker } from './modules/outbox/delivery-worker.js'
import { type Config, ConfigError, loadConfigFromProcess, type Role } from './platform/config.js'
import { pruneWebhookHistory } from './platform/db/statements/webhook-retention.js'
import { guardStrayFetchErrors } from './platform/egress/stray-fetch-errors.js'
import { createProcessLogger, type Logger } from './platform/logger.js'
import { buildMetricsServer, buildServer } from './server.js'

/** The webhook delivery loop with the settings from the config (it runs wherever the worker runs). */
export function createAppWebhookWorker(app: AppContext, overrides: { id?: string } = {}): WebhookWorker {
  return createWebhookWorker(
    {
      store: app.store,
      vault: app.vault,
      clock: app.clock,
      logger: app.logger,
      metrics: app.metrics,
    },
    {
      ...(overrides.id ? { id: `${overrides.id}:webhooks` } : {}),
      concurrency: app.config.webhooks.concurrency,
      pollMs: app.config.webhooks.pollMs,
      client: {
        policy: { allowPrivate: app.config.webhooks.allowPrivate },
        timeoutMs: app.config.webhooks.timeoutMs,
      },
    },
  )
}

/** The publishing worker with the settings from the config and the adapters of the app. */
export function createAppWorker(
  app: AppContext,
  overrides: Partial<WorkerOptions> & {
    mediaSweepMs?: number
    expiringSweepMs?: number
    webhooks?: boolean
  } = {},
): Worker {
  const { mediaSweepMs, expiringSweepMs, webhooks: withWebhooks = true, ...workerOverrides } = overrides
  const worker = createWorker(
    {
      store: app.store,
      vault: app.vault,
      clock: app.clock,
      leaseClock: app.leaseClock,
      logger: app.logger,
      queue: app.queue,
      metrics: app.metrics,
      adapters: app.adapters,
      currentAdapter: (network) => app.networkApps.adapterFor(network),
    },
    { ...app.config.worker, ...workerOverrides },
  )
  // Expired hosted media goes from the worker process, on its own timer.
  const sweeper = createPeriodicSweep({
    what: 'hosted media',
    sweep: () => sweepAppMedia(app),
    intervalMs: mediaSweepMs ?? app.config.mediaRetention.sweepIntervalMs,
    logger: app.logger,
  })
  // account.expiring: connections whose authorisation ends within 7 days (then 1 day), on its own timer.
  const expiring = createPeriodicSweep({
    what: 'expiring connections',
    atStart: true,
    sweep: () =>
      sweepExpiringConnections({
        store: app.store,
        vault: app.vault,
        now: app.clock.now(),
        logger: app.logger,
      }),
    intervalMs: expiringSweepMs ?? EXPIRING_SWEEP_MS,
    logger: app.logger,
  })
  // Webhook deliveries, their attempts and their events, once past the retention (HERALD_WEBHOOK_RETENTION_DAYS).
  const history = createPeriodicSweep({
    what: 'webhook history',
    atStart: true,
    sweep: () => sweepWebhookHistory(app),
    intervalMs: WEBHOOK_HISTORY_SWEEP_MS,
    logger: app.logger,
  })
  const backups = scheduledBackups(app)
  const webhooks = withWebhooks ? createAppWebhookWorker(app, workerOverrides) : undefined
  return {
    ...worker,
    start() {
      worker.start()
      webhooks?.start()
      sweeper.start()
      expiring.start()
      history.start()
      backups?.start()
    },
    async stop() {
      await backups?.stop()
      await sweeper.stop()
      await expiring.stop()
      await history.stop()
      await worker.stop()
      await webhooks?.stop()
    },
  }
}

/** HERALD_BACKUP_EVERY: the workers take a backup each period (one of them; see schedule.ts). */
function scheduledBackups(app: AppContext) {
  const everyMs = app.config.backups.everyMs
  if (!everyMs) return undefined
  return createPeriodicSweep({
    what: 'scheduled backup',
    atStart: true,
    sweep: async () => {
      const taken = await runScheduledBackup(app)
      if (taken) app.logger.info({ file: taken.file, bytes: taken.bytes }, 'scheduled backup written')
    },
    intervalMs: lookIntervalMs(everyMs),
    logger: app.logger,
  })
}

/** How often each process reads the saved network apps again (a change in another process reaches it). */
const NETWORK_APPS_REFRESH_MS = 60_000

/** How often a worker prunes the webhook history. */
const WEBHOOK_HISTORY_SWEEP_MS = 3_600_000

/** One sweep of the webhook history past its retention; logs what went when anything did. */
export async function sweepWebhookHistory(app: AppContext) {
  const pruned = await pruneWebhookHistory(app.store, {
    before: app.clock.now() - app.config.webhooks.retentionMs,
  })
  if (pruned.deliveries + pruned.events > 0) app.logger.info(pruned, 'webhook history pruned')
  return pruned
}

/**
 * What the start line says: where Herald serves, what it stores in, which networks can be connected, and
 * the ffmpeg videos are converted with (`<path> (<version>)` or `none`).
 */
export function startSummary(
  config: Config,
  role: Role,
  database: string,
  ffmpeg = 'none',
  saved: SavedApps = {},
) {
  const configured = networks.filter((network) => canConnect(config, network, saved))
  return {
    url: config.publicBaseUrl,
    listen: `http://${config.host}:${config.port}`,
    role,
    database: database === 'sqlite' ? `sqlite (${config.dataDir})` : 'postgres',
    storage:
      config.media.driver === 's3' ? `s3 (bucket ${config.media.bucket})` : `local (${config.media.dir})`,
    sandbox: config.sandbox ? 'on' : 'off',
    networks: configured.length > 0 ? configured.join(', ') : 'none configured',
    ffmpeg,
  }
}

/**
 * `npm start` (role `all`): the API and the worker in one process. `herald api` serves HTTP only;
 * `herald worker` runs the worker with only /healthz, /readyz and /metrics on PORT.
 */
export async function startService(role: Role = 'all') {
  const config = loadConfigFromProcess()
  const logger = createProcessLogger(config)
  // An error Node's fetch throws into no promise after a request ended must not end every send with it.
  guardStrayFetchErrors(logger)
  // Listened for before anything starts: a SIGTERM that comes while the service is still starting (a
  // container stopped at once, a restart right after a deploy) stops what has started so far, in order,
  // instead of ending the process with sends in flight.
  const running: Running = {}
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping: no new claims; in-flight sends get the grace period')
    await stopRunning(running)
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  await startRunning(running, config, logger, role, () => stopping)
}

/** What a service process has started, each part set as it starts (stopped in the reverse order). */
interface Running {
  app?: AppContext
  http?: ReturnType<typeof buildServer>
  metrics?: ReturnType<typeof buildMetricsServer>
  worker?: Worker
  apps?: ReturnType<typeof createPeriodicSweep>
  setupCode?: string
}

async function stopRunning(running: Running) {
  await running.apps?.stop()
  await running.worker?.stop()
  await running.http?.close()
  await running.metrics?.close()
  if (running.app && running.setupCode) await withdrawSetupCode(running.app.store.db, running.setupCode)
  await running.app?.store.destroy()
}

async function startRunning(
  running: Running,
  config: Config,
  logger: Logger,
  role: Role,
  stopping: () => boolean,
) {
  const app = await createAppContext(config, { logger })
  running.app = app
  if (stopping()) return
  running.http = buildServer(app, { role })
  await running.http.server.listen({ port: config.port, host: config.host })
  running.metrics = config.metrics.listen ? buildMetricsServer(app) : undefined
  if (running.metrics && config.metrics.listen) await running.metrics.listen(config.metrics.listen)
  if (stopping()) return
  running.worker = role === 'api' ? undefined : createAppWorker(app)
  running.worker?.start()
  // A network app saved on the page in another process reaches this one's adapters within a minute.
  running.apps = createPeriodicSweep({
    what: 'network apps',
    sweep: () => app.networkApps.refresh(),
    intervalMs: NETWORK_APPS_REFRESH_MS,
    logger,
  })
  running.apps.start()
  await announceStart(app, config, role)
  // A fresh instance is set up in the browser; a process serving the dashboard prints where, with its code.
  if (role !== 'worker' && !stopping())
    running.setupCode = await announceSetup({
      store: app.store,
      clock: app.clock,
      logger,
      publicBaseUrl: config.publicBaseUrl,
    })
}

/** The start line, with the ffmpeg videos are converted with (and a warning when there is none). */
async function announceStart(app: AppContext, config: Config, role: Role) {
  const found = await app.media.ffmpegLookup()
  const ffmpeg = describeFfmpeg(found)
  if (!found.ffmpeg && config.videoConversion.ffmpegPath?.trim().toLowerCase() !== 'none')
    app.logger.warn(
      { ffmpeg },
      `No usable ffmpeg (${MIN_FFMPEG_VERSION.join('.')} or newer): videos that need converting are refused until one is installed (apt-get install ffmpeg) or HERALD_FFMPEG_PATH names one; HERALD_FFMPEG_PATH=none silences this`,
    )
  app.logger.info(
    startSummary(config, role, app.store.dialect, ffmpeg, app.networkApps.saved()),
    `Herald is running at ${config.publicBaseUrl}`,
  )
}

/** Starts the service as a program: a bad configuration or a failed start is one message and exit 1. */
export function runService(role: Role = 'all') {
  startService(role).catch((error) => {
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `Herald failed to start: ${(error as Error).stack ?? error}\n`,
    )
    process.exit(1)
  })
}

if (path.resolve(process.argv[1] ?? '') === path.resolve(import.meta.filename)) runService()
