/**
 * The server side of the HTTP benchmark, run as its own process so the load generator does not share its
 * event loop: a full Herald on SQLite (no worker, so queued posts stay queued) plus, in the same process,
 * a bare fastify route for comparison. Prints one JSON line when ready.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { createAppContext } from '../src/app.js'
import { loadConfig } from '../src/platform/config.js'
import { connectionCredentials } from '../src/platform/crypto/vault.js'
import { upsertConnection } from '../src/platform/db/statements/connections.js'
import { createLogger } from '../src/platform/logger.js'
import { buildServer } from '../src/server.js'
import { seedScheduledPosts } from '../test/helpers/seed.js'

const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'))
const config = loadConfig({
  HERALD_DATA_DIR: dataDir,
  HERALD_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'),
  LOG_LEVEL: 'warn',
  HERALD_RATE_LIMIT_PER_MINUTE: '100000000',
  PORT: '0',
})
const app = await createAppContext(config, { logger: createLogger('warn') })
const { server } = buildServer(app, { role: 'api' })
await server.listen({ host: '127.0.0.1', port: 0 })

const owner = await app.accounts.bootstrap({
  email: 'bench@example.com',
  password: 'bench-password',
  workspace: 'Bench',
  credits: 1_000_000_000,
})
const connectionId = await upsertConnection(
  app.store.db,
  {
    workspaceId: owner.workspaceId,
    platform: 'twitter',
    profileId: 'bench-1',
    username: 'bench',
    name: 'Bench',
    isOrganization: false,
    sealCredentials: (id) => app.vault.sealJson(connectionCredentials(id), { accessToken: 'bench-access' }),
    tokenExpiresAt: null,
  },
  Date.now(),
)
const listing = await app.accounts.bootstrap({
  email: 'list@example.com',
  password: 'bench-password',
  workspace: 'Listing',
  credits: 0,
})
await seedScheduledPosts(app.store, {
  workspaceId: listing.workspaceId,
  authorId: listing.userId,
  connectionId,
  profile: { platform: 'twitter', profileId: 'bench-1', username: 'bench' },
  count: Number(process.env.BENCH_LIST_POSTS ?? 100_000),
})

const bare = Fastify()
bare.post('/bare', async () => ({ ok: true }))
await bare.listen({ host: '127.0.0.1', port: 0 })

const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port
process.stdout.write(
  `${JSON.stringify({ herald: port(server), bare: port(bare), key: owner.apiKey, listKey: listing.apiKey })}\n`,
)
process.on('SIGTERM', async () => {
  await server.close()
  await bare.close()
  await app.store.destroy()
  process.exit(0)
})
