import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createAppContext } from './app.js'
import type { AppContext } from './app-context.js'
import type { Caller } from './auth/caller.js'
import { ConfigError, loadConfigFromProcess } from './config.js'
import { rotateSecrets } from './connect/rotate.js'
import { sandboxConnect } from './connect/sandbox-connect.js'
import { describeSlots } from './domain/posting-queue.js'
import { AppError } from './errors.js'
import { createProcessLogger } from './logger.js'
import { startService, sweepAppMedia } from './main.js'
import {
  type Actor,
  approvalSetting,
  approvePost,
  changeApprovalSetting,
  rejectPost,
} from './posts/approvals.js'
import { importContextFor, importCsv } from './posts/csv-import.js'
import { listQueues, setQueue } from './posts/posting-queues.js'
import { findMembership, findUserByEmail, firstOwner, type MemberRole } from './store/accounts.js'
import { tools } from './tools/registry.js'
import { createToolRunner } from './tools/runner.js'
import {
  createEndpoint,
  deleteEndpoint,
  listAttempts,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  webhookDepsOf,
} from './webhooks/endpoints.js'

const USAGE = `Usage: herald <command> [options]   (npx herald ..., or npm run herald -- ...)

  bootstrap --email E --password P --workspace NAME [--name N] [--credits N] [--plan P] [--json]
      Create a person, their workspace and an API key for it.
  keys create --email E [--workspace ID] [--name N] [--json]
  keys list --email E [--json]
  keys revoke --id KEY_ID [--json]
  workspaces create --name NAME --owner E [--credits N] [--plan P] [--json]
  users create --email E --password P [--name N] [--json]
  members add --workspace ID --email E --role owner|editor [--json]
  credits add --workspace ID --amount N [--json]
  secrets rotate [--json]
      Re-seal every stored token under HERALD_SECRET_KEY (old ones open with HERALD_OLD_SECRET_KEYS).
  sandbox connect --workspace ID --network twitter|youtube|bluesky|facebook|instagram|linkedin|threads --username U [--organization] [--json]
      Connect a simulated profile through the connect flow of a server running with HERALD_SANDBOX=1
      (youtube: U is the Google account e-mail, e.g. creator@example.com; bluesky: the account
      U.bsky.social, made with an app password in the simulator; facebook: a Page named U;
      instagram: an Instagram professional account U, through Instagram Login; linkedin: member U's
      personal profile, or with --organization the first page U administers; threads: a Threads profile U).
  api       Run the HTTP API only (no worker).
  worker    Run the publishing worker only.
  media gc [--json]
      Remove hosted media past its retention (HERALD_MEDIA_RETENTION_HOURS) that no pending post needs.
  posts import FILE.csv --workspace ID [--dry-run] [--email E] [--json]
      Check every row of a CSV (content, profiles, date, time, timezone, media URLs, first comment, queue)
      as preflight_post does, and, without --dry-run, create the rows that pass (a row imported before is
      never created again). Acts as the workspace's owner, or as member E.
  queue list --workspace ID [--json]
  queue set --workspace ID --profile NETWORK:USERNAME --timezone ZONE --slot "daily 09:00" [--slot ...] [--json]
      Set a profile's weekly posting times (no --slot removes them); create_post with queue: true takes
      the next free one.
  approvals on|off|show --workspace ID [--json]
      Whether posts by editors wait for an owner's approval.
  approvals approve --workspace ID --id POST [--now] [--json]
  approvals reject --workspace ID --id POST --note TEXT [--json]
      Decide on a post waiting for approval (as the workspace's owner, or as owner E with --email).
  webhooks list --workspace ID [--json]
  webhooks add --workspace ID --url URL [--event TYPE ...] [--description TEXT] [--json]
      Add an endpoint; prints its whsec_ secret once (keep it: it is never shown again).
  webhooks update --workspace ID --id ENDPOINT [--url URL] [--event TYPE ... | --all-events] [--description TEXT] [--enable|--disable] [--json]
  webhooks remove|rotate|test --workspace ID --id ENDPOINT [--json]
      rotate: a new secret (shown once; the old one also signs for 24 hours). test: send webhook.test.
  webhooks log --workspace ID --id ENDPOINT [--limit N] [--json]
      The newest N attempts (1 to 500, default 50).
  webhooks redeliver --workspace ID --id ENDPOINT --event-id EVENT [--json]

Settings come from the environment (docs/configuration.md).`

const options = {
  email: { type: 'string' },
  password: { type: 'string' },
  workspace: { type: 'string' },
  name: { type: 'string' },
  credits: { type: 'string' },
  plan: { type: 'string' },
  owner: { type: 'string' },
  role: { type: 'string' },
  amount: { type: 'string' },
  id: { type: 'string' },
  network: { type: 'string' },
  username: { type: 'string' },
  organization: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  now: { type: 'boolean', default: false },
  note: { type: 'string' },
  profile: { type: 'string' },
  timezone: { type: 'string' },
  slot: { type: 'string', multiple: true },
  url: { type: 'string' },
  event: { type: 'string', multiple: true },
  'all-events': { type: 'boolean', default: false },
  limit: { type: 'string' },
  'event-id': { type: 'string' },
  description: { type: 'string' },
  enable: { type: 'boolean', default: false },
  disable: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

type Values = {
  [K in keyof typeof options]?: (typeof options)[K] extends { multiple: true }
    ? string[]
    : (typeof options)[K]['type'] extends 'boolean'
      ? boolean
      : string
}

class UsageError extends Error {}

function required(values: Values, name: keyof Values): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`)
  return Number(value)
}

type Command = (
  app: AppContext,
  values: Values,
  positionals: string[],
) => Promise<{
  json: unknown
  text: string
  /** Non-zero when the command ran but did not fully succeed. */
  exitCode?: number
}>

const commands: Record<string, Command> = {
  async bootstrap(app, v) {
    const result = await app.accounts.bootstrap({
      email: required(v, 'email'),
      password: required(v, 'password'),
      workspace: required(v, 'workspace'),
      name: v.name,
      credits: integer(v.credits, 'credits'),
      plan: v.plan,
    })
    return {
      json: result,
      text: `Created user ${result.userId} and workspace ${result.workspaceId}.\nAPI key (shown once, keep it safe): ${result.apiKey}`,
    }
  },
  async 'keys create'(app, v) {
    const result = await app.accounts.createKey({
      email: required(v, 'email'),
      workspaceId: v.workspace,
      name: v.name,
    })
    return { json: result, text: `API key ${result.id} (shown once): ${result.apiKey}` }
  },
  async 'keys list'(app, v) {
    const keys = await app.accounts.listKeys({ email: required(v, 'email') })
    return {
      json: keys,
      text:
        keys
          .map(
            (k) =>
              `${k.id}  ${k.prefix}…  ${k.name}  ${k.revoked ? 'revoked' : `last used ${k.lastUsedAt ?? 'never'}`}`,
          )
          .join('\n') || 'No keys.',
    }
  },
  async 'keys revoke'(app, v) {
    const result = await app.accounts.revokeKey({ id: required(v, 'id') })
    return { json: result, text: `Revoked API key ${result.id}.` }
  },
  async 'workspaces create'(app, v) {
    const result = await app.accounts.createWorkspace({
      name: required(v, 'name'),
      ownerEmail: v.owner ?? required(v, 'email'),
      credits: integer(v.credits, 'credits'),
      plan: v.plan,
    })
    return { json: result, text: `Created workspace ${result.workspaceId}.` }
  },
  async 'users create'(app, v) {
    const result = await app.accounts.createUser({
      email: required(v, 'email'),
      password: required(v, 'password'),
      name: v.name,
    })
    return { json: result, text: `Created user ${result.userId}.` }
  },
  async 'members add'(app, v) {
    const result = await app.accounts.addMember({
      workspaceId: required(v, 'workspace'),
      email: required(v, 'email'),
      role: required(v, 'role') as MemberRole,
    })
    return { json: result, text: `${v.email} is now ${result.role} of workspace ${result.workspaceId}.` }
  },
  async 'credits add'(app, v) {
    const amount = integer(required(v, 'amount'), 'amount') as number
    const result = await app.accounts.addCredits({ workspaceId: required(v, 'workspace'), amount })
    return { json: result, text: `Workspace ${result.workspaceId} now has ${result.balance} credits.` }
  },
  async 'media gc'(app) {
    const result = await sweepAppMedia(app)
    return {
      json: result,
      text: `Removed ${result.removed.length} hosted media file${result.removed.length === 1 ? '' : 's'} (${result.bytes} bytes).`,
    }
  },
  async 'secrets rotate'(app) {
    const report = await rotateSecrets(app.store.db, app.vault)
    const line = (what: string, c: typeof report.connections) =>
      `${what}: ${c.total} sealed, ${c.rotated} re-sealed, ${c.current} already current, ${c.failed} unreadable${c.failed ? ` (${c.failedIds.join(', ')})` : ''}`
    const failed =
      report.connections.failed +
      report.oauthStates.failed +
      report.pendingGrants.failed +
      report.webhookSecrets.failed +
      report.networkApps.failed
    return {
      json: report,
      text: [
        `Current key ${report.keyId}.`,
        line('Connections', report.connections),
        line('OAuth states', report.oauthStates),
        line('Pending connect grants', report.pendingGrants),
        line('Webhook secrets', report.webhookSecrets),
        line('Network app secrets', report.networkApps),
        failed
          ? 'Some values open with none of the configured keys, or were not sealed for the row they are in: add the key that sealed them to HERALD_OLD_SECRET_KEYS, or reconnect those profiles.'
          : 'Every sealed value is under the current key; HERALD_OLD_SECRET_KEYS can be removed.',
      ].join('\n'),
      exitCode: failed ? 1 : 0,
    }
  },
  async 'posts import'(app, v, positionals) {
    const file = positionals[0]
    if (!file)
      throw new UsageError('posts import needs the CSV file: herald posts import FILE.csv --workspace ID')
    let bytes: Buffer
    try {
      bytes = fs.readFileSync(file)
    } catch (error) {
      throw new UsageError(
        `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      )
    }
    const { actor, caller } = await actAs(app, v)
    const runner = createToolRunner(app, tools)
    const report = await importCsv(await importContextFor(app, runner, caller, actor), bytes, {
      dryRun: v['dry-run'] === true,
    })
    return { json: report, text: importText(report), exitCode: report.summary.failed > 0 ? 1 : 0 }
  },
  async 'queue list'(app, v) {
    const queues = await listQueues(app.store.db, required(v, 'workspace'), app.clock.now())
    return {
      json: queues,
      text:
        queues
          .map(
            (q) =>
              `${q.platform} @${q.username} (${q.timezone}): ${q.slots.join(', ')}; next free: ${q.next
                .slice(0, 3)
                .map((n) => `${n.scheduleDate} ${n.scheduleTime}`)
                .join(', ')}`,
          )
          .join('\n') || 'No posting queues.',
    }
  },
  async 'queue set'(app, v) {
    const workspaceId = required(v, 'workspace')
    const [platform, ...rest] = required(v, 'profile').split(':')
    if (!platform || rest.length === 0)
      throw new UsageError('--profile is NETWORK:USERNAME, e.g. linkedin:acme')
    const { connection, queue } = await setQueue(
      app.store.db,
      workspaceId,
      { platform, profile: rest.join(':'), timezone: v.timezone ?? 'UTC', slots: v.slot ?? [] },
      app.clock.now(),
    )
    const queues = await listQueues(app.store.db, workspaceId, app.clock.now())
    return {
      json: { success: true, queues },
      text: queue
        ? `Posting times of ${connection.platform} @${connection.username} (${queue.timezone}): ${describeSlots(queue.slots).join(', ')}.`
        : `Removed the posting times of ${connection.platform} @${connection.username}.`,
    }
  },
  async 'approvals on'(app, v) {
    const { actor } = await actAs(app, v)
    const setting = await changeApprovalSetting(app, actor, true)
    return { json: setting, text: 'Posts by editors now wait for an owner’s approval.' }
  },
  async 'approvals off'(app, v) {
    const { actor } = await actAs(app, v)
    const setting = await changeApprovalSetting(app, actor, false)
    return {
      json: setting,
      text: `Posts by editors no longer wait for approval (${setting.pending} already waiting still do).`,
    }
  },
  async 'approvals show'(app, v) {
    const { actor } = await actAs(app, v)
    const setting = await approvalSetting(app, actor)
    return {
      json: setting,
      text: `Approval ${setting.requireApproval ? 'required' : 'not required'} for editors' posts; ${setting.pending} waiting, ${setting.rejected} rejected.`,
    }
  },
  async 'approvals approve'(app, v) {
    const { actor } = await actAs(app, v)
    const result = await approvePost(app, actor, required(v, 'id'), { publishNow: v.now === true })
    return { json: result, text: result.message }
  },
  async 'approvals reject'(app, v) {
    const { actor } = await actAs(app, v)
    const result = await rejectPost(app, actor, required(v, 'id'), required(v, 'note'))
    return { json: result, text: result.message }
  },
  async 'webhooks list'(app, v) {
    const list = await listEndpoints(webhookDepsOf(app), (await actAs(app, v)).actor)
    const lines = list.map(
      (e) =>
        `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  ${e.eventTypes.length > 0 ? e.eventTypes.join(',') : 'all events'}${e.disabledReason ? `  (${e.disabledReason})` : ''}`,
    )
    return { json: list, text: lines.length > 0 ? lines.join('\n') : 'No webhook endpoints.' }
  },
  async 'webhooks add'(app, v) {
    const created = await createEndpoint(webhookDepsOf(app), (await actAs(app, v)).actor, {
      url: required(v, 'url'),
      description: v.description,
      eventTypes: v.event,
    })
    return {
      json: created,
      text: `Added endpoint ${created.id} for ${created.url}.\nSecret (shown only now): ${created.secret}`,
    }
  },
  async 'webhooks update'(app, v) {
    if (v.enable && v.disable) throw new UsageError('--enable and --disable cannot be used together')
    if (v['all-events'] && v.event) throw new UsageError('--event and --all-events cannot be used together')
    const updated = await updateEndpoint(webhookDepsOf(app), (await actAs(app, v)).actor, required(v, 'id'), {
      url: v.url,
      description: v.description,
      eventTypes: v['all-events'] ? [] : v.event,
      enabled: v.enable ? true : v.disable ? false : undefined,
    })
    return {
      json: updated,
      text: `Endpoint ${updated.id}: ${updated.enabled ? 'enabled' : 'disabled'}, ${updated.url}.`,
    }
  },
  async 'webhooks remove'(app, v) {
    const removed = await deleteEndpoint(webhookDepsOf(app), (await actAs(app, v)).actor, required(v, 'id'))
    return { json: removed, text: `Removed endpoint ${removed.id}.` }
  },
  async 'webhooks rotate'(app, v) {
    const rotated = await rotateSecret(webhookDepsOf(app), (await actAs(app, v)).actor, required(v, 'id'))
    return {
      json: rotated,
      text: `New secret (shown only now): ${rotated.secret}\nThe previous one also signs until ${rotated.previousSecretValidUntil}.`,
    }
  },
  async 'webhooks test'(app, v) {
    const sent = await sendTestEvent(webhookDepsOf(app), (await actAs(app, v)).actor, required(v, 'id'))
    return { json: sent, text: `Queued test event ${sent.eventId}; a running worker delivers it.` }
  },
  async 'webhooks log'(app, v) {
    const limit = v.limit === undefined ? undefined : Number(v.limit)
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500))
      throw new UsageError('--limit takes a whole number from 1 to 500')
    const attempts = await listAttempts(
      webhookDepsOf(app),
      (await actAs(app, v)).actor,
      required(v, 'id'),
      limit,
    )
    const lines = attempts.map(
      (a) =>
        `${a.attemptedAt}  ${a.eventType}  ${a.eventId}  ${a.statusCode ?? '---'}  ${a.latencyMs} ms  ${a.outcome}`,
    )
    return { json: attempts, text: lines.length > 0 ? lines.join('\n') : 'No attempts yet.' }
  },
  async 'webhooks redeliver'(app, v) {
    const queued = await redeliver(
      webhookDepsOf(app),
      (await actAs(app, v)).actor,
      required(v, 'id'),
      required(v, 'event-id'),
    )
    return { json: queued, text: `Queued event ${queued.eventId} again for endpoint ${queued.endpointId}.` }
  },
  async 'sandbox connect'(app, v) {
    const result = await sandboxConnect(app, {
      workspaceId: required(v, 'workspace'),
      network: required(v, 'network'),
      username: required(v, 'username'),
      organization: v.organization === true,
    })
    return {
      json: result,
      text: `Connected ${result.platform} @${result.username} (profile ${result.profileId}) in workspace ${result.workspaceId}.`,
    }
  },
}

/**
 * Who a command acts as: the member named by --email, or the workspace's longest-standing owner (the CLI is
 * the operator's tool, run where the database is).
 */
async function actAs(app: AppContext, v: Values): Promise<{ actor: Actor; caller: Caller }> {
  const workspaceId = required(v, 'workspace')
  const db = app.store.db
  let userId: string | undefined
  if (v.email) {
    userId = (await findUserByEmail(db, v.email))?.id
    if (!userId) throw new AppError('not_found', `No Herald user has the e-mail ${v.email}`)
  } else userId = (await firstOwner(db, workspaceId))?.user_id
  const membership = userId ? await findMembership(db, workspaceId, userId) : undefined
  if (!userId || !membership)
    throw new AppError('not_found', `Workspace ${workspaceId} not found${v.email ? ` for ${v.email}` : ''}`)
  return {
    actor: { userId, workspaceId, role: membership.role },
    caller: { userId, apiKeyId: 'cli', defaultWorkspaceId: workspaceId },
  }
}

/** An import report as lines a person reads: one per row that was not simply fine, then the totals. */
function importText(report: Awaited<ReturnType<typeof importCsv>>): string {
  const lines = report.rows
    .filter((r) => r.status !== 'ready' && r.status !== 'created')
    .map((r) => {
      const why = [
        ...r.blockers.map((b) => (b.column ? `${b.column}: ${b.message}` : b.message)),
        ...(r.note ? [r.note] : []),
      ].join('; ')
      return `row ${r.row}: ${r.status}${why ? ` (${why})` : ''}`
    })
  const s = report.summary
  lines.push(
    report.dryRun
      ? `Dry run: ${s.rows} rows, ${s.ready} ready (${s.cost} credits), ${s.blocked} blocked, ${s.repeats} repeated, ${s.alreadyImported} imported before. Nothing was created.`
      : `${s.rows} rows: ${s.created} created, ${s.blocked} blocked, ${s.repeats} repeated, ${s.alreadyImported} imported before, ${s.failed} failed.`,
  )
  return lines.join('\n')
}

export async function runCli(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true })
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  const values = parsed.values as Values
  const [first, second] = parsed.positionals
  if (!first || values.help) {
    process.stdout.write(`${USAGE}\n`)
    return values.help ? 0 : 2
  }
  if (first === 'api' || first === 'worker') {
    await startService(first)
    return -1
  }
  const name = commands[first] ? first : `${first} ${second ?? ''}`.trim()
  const command = commands[name]
  if (!command) {
    process.stderr.write(`Unknown command: ${name}\n\n${USAGE}\n`)
    return 2
  }

  const config = loadConfigFromProcess()
  const logger = createProcessLogger(
    config,
    values.json ? 'silent' : config.logLevel === 'info' ? 'warn' : config.logLevel,
  )
  const sqliteFile = path.join(config.dataDir, 'herald.sqlite')
  const fresh = !config.databaseUrl && !fs.existsSync(sqliteFile)
  const app = await createAppContext(config, { logger })
  // Said on stderr, so that --json keeps its last stdout line: which database this command changes.
  process.stderr.write(
    config.databaseUrl
      ? `herald: using Postgres (DATABASE_URL)\n`
      : `herald: using data folder ${config.dataDir} (SQLite ${sqliteFile})\n`,
  )
  if (fresh)
    process.stderr.write(
      `herald: ${sqliteFile} did not exist and was created empty. If your server keeps its data elsewhere, run this command with its HERALD_DATA_DIR (or DATABASE_URL).\n`,
    )
  try {
    const { json, text, exitCode } = await command(app, values, parsed.positionals.slice(2))
    process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`)
    return exitCode ?? 0
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`)
      return 2
    }
    if (error instanceof AppError) {
      process.stderr.write(`Error: ${error.message}\n`)
      if (values.json) process.stdout.write(`${JSON.stringify(error.toBody())}\n`)
      return 1
    }
    throw error
  } finally {
    await app.store.destroy()
  }
}

/** Runs the CLI and exits with its code (`bin/herald.js`, `npm run herald`). */
export function main(argv: string[]): void {
  runCli(argv)
    .then((code) => {
      if (code >= 0) process.exit(code)
    })
    .catch((error) => {
      process.stderr.write(
        error instanceof ConfigError ? `${error.message}\n` : `${(error as Error).stack ?? error}\n`,
      )
      process.exit(1)
    })
}

if (path.resolve(process.argv[1] ?? '') === path.resolve(import.meta.filename)) main(process.argv.slice(2))
