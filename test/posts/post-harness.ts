import type { z } from 'zod'
import type { Network } from '../../src/core/networks.js'
import { tools } from '../../src/interfaces/tools/registry.js'
import type { Backend } from '../helpers/backends.js'
import { connectProfile } from '../helpers/connections.js'
import { type Harness, type HarnessOptions, startHarness } from '../helpers/harness.js'
import { mp4File, solidImage } from '../media/fixtures.js'
import { startServer, type TestServer } from '../media/servers.js'

/**
 * Shared set-up of the post tool suites: a Herald that may fetch media from 127.0.0.1, a local media
 * server whose files are built at test time, and small readers for balance, ledger and counts.
 */

/** A local media server. Any path ending `.png` is a real PNG; `.mp4` paths are real MP4 headers:
 * `/wide*.mp4` horizontal, `/long*.mp4` vertical but 4 minutes, `/fake.mp4` a PNG under a video name,
 * any other `.mp4` a 30 s vertical video. Paths under `/missing/` answer 404. */
export interface MediaServer extends TestServer {
  png(name: string): string
  mp4(name: string): string
}

export async function startMediaServer(): Promise<MediaServer> {
  const png = await solidImage(1080, 1080, 'png')
  const vertical = mp4File({ width: 1080, height: 1920, durationMs: 30_000 })
  const wide = mp4File({ width: 1920, height: 1080, durationMs: 30_000 })
  const long = mp4File({ width: 1080, height: 1920, durationMs: 240_000 })
  const server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname
    const send = (body: Buffer, type: string) =>
      res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body)
    if (path.startsWith('/missing/')) return void res.writeHead(404).end()
    if (path === '/fake.mp4') return send(png, 'video/mp4')
    if (path.endsWith('.png')) return send(png, 'image/png')
    if (path.startsWith('/wide') && path.endsWith('.mp4')) return send(wide, 'video/mp4')
    if (path.startsWith('/long') && path.endsWith('.mp4')) return send(long, 'video/mp4')
    if (path.endsWith('.mp4')) return send(vertical, 'video/mp4')
    res.writeHead(404).end()
  })
  return {
    ...server,
    png: (name) => `${server.url}/${name}.png`,
    mp4: (name) => `${server.url}/${name}.mp4`,
  }
}

/** A harness for the post suites: private media allowed, a short immediate wait, no rate limit in the way. */
export function startPostHarness(backend: Backend, options: HarnessOptions = {}): Promise<Harness> {
  return startHarness({
    backend,
    credits: 100_000,
    ...options,
    env: {
      HERALD_ALLOW_PRIVATE_MEDIA: '1',
      HERALD_IMMEDIATE_WAIT_MS: '200',
      HERALD_RATE_LIMIT_PER_MINUTE: '1000000',
      ...options.env,
    },
  })
}

/** The profiles most suites connect: two X handles and one profile on every other network. */
export const standardProfiles: Array<[Network, string, string]> = [
  ['twitter', 'tw-1', 'acme'],
  ['twitter', 'tw-2', 'acme_two'],
  ['linkedin', 'li-1', 'acme-li'],
  ['facebook', 'fb-1', 'acme-fb'],
  ['instagram', 'ig-1', 'acme-ig'],
  ['threads', 'th-1', 'acme-th'],
  ['bluesky', 'bs-1', 'acme.bsky.social'],
  ['youtube', 'yt-1', 'acme-yt'],
]

export async function connectAll(
  h: Harness,
  profiles: Array<[Network, string, string]> = standardProfiles,
  options: { workspaceId?: string } = {},
) {
  for (const [platform, profileId, username] of profiles)
    await connectProfile(h, platform, profileId, username, options)
}

/** Another person with their own workspace in the same Herald; `call` acts as them. */
export async function otherWorkspace(h: Harness, label: string, credits = 1000) {
  const other = await h.app.accounts.bootstrap({
    email: `${label}-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'password123',
    workspace: label,
    credits,
  })
  return {
    ...other,
    call: (tool: string, body: unknown = {}) => h.call(tool, body, { key: other.apiKey }),
  }
}

export async function balanceOf(h: Harness, workspaceId = h.workspaceId): Promise<number> {
  const row = await h.app.store.db
    .selectFrom('workspaces')
    .select('credit_balance')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow()
  return Number(row.credit_balance)
}

export async function ledgerRows(h: Harness, workspaceId = h.workspaceId): Promise<number> {
  const rows = await h.app.store.db
    .selectFrom('credit_ledger')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .execute()
  return rows.length
}

/** Balance, ledger length and post counts: what a refused or free call must leave unchanged. */
export async function snapshot(h: Harness, call: Harness['call'] = h.call, workspaceId = h.workspaceId) {
  const list = await call('list_posts', { workspaceId })
  return {
    balance: await balanceOf(h, workspaceId),
    ledger: await ledgerRows(h, workspaceId),
    counts: list.body.counts,
  }
}

/** The stored target rows of a post, in order, with their JSON columns parsed. */
export async function targetRows(h: Harness, postId: string) {
  const rows = await h.app.store.db
    .selectFrom('targets')
    .selectAll()
    .where('post_id', '=', postId)
    .orderBy('position')
    .execute()
  return rows.map((row) => ({
    ...row,
    media_urls: JSON.parse(row.media_urls) as string[],
    youtube: row.youtube ? (JSON.parse(row.youtube) as Record<string, string>) : null,
  }))
}

/** Parses a tool's response with its declared output schema (throws when the response breaks it). */
export function checkOutput(tool: string, body: unknown) {
  const found = tools.find((t) => t.name === tool)
  if (!found) throw new Error(`no tool ${tool}`)
  return (found.output as z.ZodType).parse(body)
}
