import { createHash } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { comparableCopy, DUPLICATE_WINDOW_MS, refusesDuplicateCopy } from '../../core/duplicate-copy.js'
import { isNetwork, type Network, networks } from '../../core/networks.js'
import type { ConnectionInfo } from '../../core/post-plan.js'
import { checkSlot, isPastSlot, slotToInstant } from '../../core/schedule.js'
import type { Db } from '../../platform/db/db.js'
import { currentBalance } from '../../platform/db/statements/credits.js'
import { importedRows } from '../../platform/db/statements/imports.js'
import { invalid, toAppError } from '../../platform/errors.js'
import type { Caller } from '../accounts/caller.js'
import type { AppContext } from '../app-context.js'
import { requiresApproval } from './approval-store.js'
import { previewQueueSlots } from './posting-queues.js'
import { loadConnectionInfos } from './rows.js'
import { mediaUrlSchema } from './schemas.js'

/**
 * Bulk import from a CSV file: every row is checked as preflight_post checks it (through the tool, as the
 * importing person) and shown with its blockers, warnings and cost before anything is created; importing
 * then runs create_post for each row that passed. Each row has a key (a hash of what it asks for): a row
 * imported once is never created again, so the same file imported twice creates nothing new. Nothing here
 * decides what may be posted or what it costs: the tools do.
 */

export const MAX_IMPORT_ROWS = 1_000
/** A CSV body larger than this is refused before it is read. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024

/** The columns an import reads, by their normalised header (lower case, no spaces, `_` or `-`). */
const COLUMNS = {
  content: 'content',
  profiles: 'profiles',
  date: 'date',
  time: 'time',
  timezone: 'timezone',
  mediaurls: 'media URLs',
  firstcomment: 'first comment',
  queue: 'queue',
} as const
type ColumnKey = keyof typeof COLUMNS
export type ColumnName = (typeof COLUMNS)[ColumnKey]

const normaliseHeader = (header: string) => header.toLowerCase().replace(/[\s_-]+/g, '')

/** One problem of a row, naming the column it is about when there is one. */
export interface RowProblem {
  column?: ColumnName
  message: string
}

export type RowStatus =
  | 'ready'
  | 'blocked'
  | 'repeat'
  | 'created'
  | 'waiting for approval'
  | 'already imported'
  | 'failed'

export interface ImportRowReport {
  /** The row as a spreadsheet numbers it: the header is row 1. */
  row: number
  status: RowStatus
  content: string
  profiles: string[]
  /** When it would go out (or goes out): `2030-03-30 09:00 Europe/Berlin`, or `queue: …`. */
  slot: string
  cost: number
  blockers: RowProblem[]
  warnings: string[]
  postIds: string[]
  /** For a repeat, the row it repeats; for a failure, why. */
  note?: string
}

export interface ImportReport {
  dryRun: boolean
  rows: ImportRowReport[]
  summary: {
    rows: number
    ready: number
    blocked: number
    repeats: number
    created: number
    alreadyImported: number
    failed: number
    /** Credits the ready rows cost (charged at creation, or at approval for posts that wait for it). */
    cost: number
    balance: number
  }
}

/** How the import reaches the tools: as the importing person, in their workspace. */
export interface ImportContext {
  workspaceId: string
  db: Db
  now: number
  run(
    tool: string,
    args: Record<string, unknown>,
    options?: { idempotencyKey?: string; knownConnections?: ConnectionInfo[]; importRow?: string },
  ): Promise<unknown>
  /** Whether create_post takes `firstComment` in this build (an optional addition the import passes on). */
  supportsFirstComment: boolean
  /** True when the importing person's posts wait for an owner (their cost is charged at approval). */
  waitsForApproval: boolean
}

/** The tool runner as the import uses it (structurally: src/interfaces/tools/runner.ts). */
export interface ImportRunner {
  acceptsField(name: string, field: string): boolean
  /** The tools in one workspace, its membership checked once for the whole import. */
  inWorkspace(
    caller: Caller,
    workspaceId: string,
  ): Promise<
    (
      name: string,
      args: unknown,
      options?: { idempotencyKey?: string; knownConnections?: ConnectionInfo[]; importRow?: string },
    ) => Promise<unknown>
  >
}

/** The import's way into the tools for one person in one workspace (dashboard, REST and CLI alike). */
export async function importContextFor(
  app: Pick<AppContext, 'store' | 'clock'>,
  runner: ImportRunner,
  caller: Caller,
  actor: { workspaceId: string; role: 'owner' | 'editor' },
): Promise<ImportContext> {
  const db = app.store.db
  // One import is one request: the person's membership is checked once, not for each of its 2,000 calls.
  const run = await runner.inWorkspace(caller, actor.workspaceId)
  return {
    workspaceId: actor.workspaceId,
    db,
    now: app.clock.now(),
    run: (tool, args, options) => run(tool, { ...args, workspaceId: actor.workspaceId }, options),
    supportsFirstComment: runner.acceptsField('create_post', 'firstComment'),
    waitsForApproval: actor.role === 'editor' && (await requiresApproval(db, actor.workspaceId)),
  }
}

interface Preflight {
  ok: boolean
  resolvedTargets: Array<{ platform: Network; profileId: string; username: string }>
  unknownTargets: Array<{ reason: string }>
  credits: { cost: number; balance: number }
  blockers: string[]
  warnings: string[]
  queueSlots?: Array<{
    platform: Network
    profileId: string
    scheduleDate: string
    scheduleTime: string
    timezone: string
  }>
}

const YES = new Set(['yes', 'y', 'true', '1', 'x', 'queue'])
const NO = new Set(['', 'no', 'n', 'false', '0'])

/** Reads the file into rows of cells: UTF-8 (with or without BOM), quoted fields, new lines inside quotes. */
export function readCsv(bytes: Buffer | string): { header: string[]; records: string[][] } {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes
  if (buffer.length > MAX_IMPORT_BYTES)
    throw invalid(`The file is ${buffer.length} bytes; an import takes at most ${MAX_IMPORT_BYTES} bytes`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buffer)
  } catch {
    throw invalid('The file is not UTF-8 text: save the spreadsheet as "CSV UTF-8" and upload that')
  }
  if (text.includes('\u0000')) throw invalid('The file is not a CSV: it holds binary data')
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''
  // Spreadsheets in many European locales save CSV with semicolons.
  const delimiter = !firstLine.includes(',') && firstLine.includes(';') ? ';' : ','
  let records: string[][]
  try {
    records = parse(text, { bom: true, delimiter, relax_column_count: true, skip_empty_lines: false })
  } catch (error) {
    throw invalid(`The file is not a CSV Herald can read: ${(error as Error).message}`)
  }
  const [header, ...rest] = records
  if (!header || header.every((cell) => cell.trim() === ''))
    throw invalid('The file is empty: its first row must name the columns (content, profiles, date, time, …)')
  return { header, records: rest }
}

/** Which column each header cell is; unknown or missing columns refuse the whole file, naming them. */
function mapColumns(header: string[]): Map<ColumnKey, number> {
  const columns = new Map<ColumnKey, number>()
  const unknown: string[] = []
  for (const [index, cell] of header.entries()) {
    const key = normaliseHeader(cell)
    if (key in COLUMNS) {
      if (columns.has(key as ColumnKey)) throw invalid(`The column "${cell}" appears twice in the header`)
      columns.set(key as ColumnKey, index)
    } else unknown.push(cell.trim() === '' ? `(empty header in column ${index + 1})` : `"${cell}"`)
  }
  const known = Object.values(COLUMNS).join(', ')
  if (unknown.length > 0)
    throw invalid(
      `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the columns are: ${known}`,
      {
        unknownColumns: unknown,
      },
    )
  const missing = (['content', 'profiles'] as const).filter((k) => !columns.has(k))
  if (missing.length > 0)
    throw invalid(`The file has no ${missing.join(' and ')} column; the columns are: ${known}`)
  return columns
}

/** One row's cells as the fields an import reads. */
interface RowFields {
  content: string
  profiles: string
  date: string
  time: string
  timezone: string
  media: string
  firstComment: string
  queue: string
}

function fieldsOf(record: string[], columns: Map<ColumnKey, number>): RowFields {
  const cell = (key: ColumnKey) => {
    const index = columns.get(key)
    return index === undefined ? '' : (record[index] ?? '')
  }
  return {
    content: cell('content'),
    profiles: cell('profiles').trim(),
    date: cell('date').trim(),
    time: cell('time').trim(),
    timezone: cell('timezone').trim(),
    media: cell('mediaurls').trim(),
    firstComment: cell('firstcomment'),
    queue: cell('queue').trim(),
  }
}

/** `9:00` and `09:00:00` (spreadsheets write both) as `09:00`; anything else is left for the slot check. */
const normaliseTime = (time: string) => {
  const match = /^(\d{1,2}):(\d{2})(?::00)?$/.exec(time)
  return match ? `${(match[1] as string).padStart(2, '0')}:${match[2]}` : time
}

interface PlannedRow {
  report: ImportRowReport
  key: string
  args?: Record<string, unknown> | undefined
  /** Connection ids and the instant each would go out at (cross-row repeated-copy check). */
  sends: Array<{ connectionId: string; label: string; network: Network; at: number; copy: string }>
  queue: boolean
  resolved: ConnectionInfo[]
  copy: string
}

/** A profile cell: `twitter` (every connected X profile) or `twitter:acme` (by username or profile id). */
function readProfiles(cell: string, connections: ConnectionInfo[], problems: RowProblem[]) {
  const entries = cell
    .split(/[,;\n]+/)
    .map((e) => e.trim())
    .filter(Boolean)
  const targetAccounts: Array<{ platform: Network; profileId?: string; username?: string }> = []
  const platforms: Network[] = []
  if (entries.length === 0) problems.push({ column: 'profiles', message: 'name at least one profile' })
  for (const entry of entries) {
    const [first, ...rest] = entry.split(':')
    const name = (first ?? '').trim().toLowerCase()
    const platform = name === 'x' ? 'twitter' : name
    if (!isNetwork(platform)) {
      problems.push({
        column: 'profiles',
        message: `"${entry}" does not start with a network (${networks.join(', ')})`,
      })
      continue
    }
    const who = rest.join(':').trim().replace(/^@+/, '')
    if (who === '') {
      platforms.push(platform)
      continue
    }
    const byName = connections.filter(
      (c) => c.platform === platform && c.username.replace(/^@+/, '').toLowerCase() === who.toLowerCase(),
    )
    const byId = connections.filter((c) => c.platform === platform && c.profileId === who)
    const match = byName.length === 1 ? byName[0] : byId.length === 1 ? byId[0] : undefined
    targetAccounts.push(match ? { platform, profileId: match.profileId } : { platform, username: who })
  }
  return { entries, targetAccounts, platforms }
}

/** Which column a preflight blocker is about, by what it says. */
function columnOf(blocker: string, preflight: Preflight): ColumnName | undefined {
  if (preflight.unknownTargets.some((u) => u.reason === blocker)) return 'profiles'
  if (/^firstComment/.test(blocker)) return 'first comment'
  if (/posting queue|posting time/.test(blocker)) return 'queue'
  if (/attachment|media|video|image|items in a set/i.test(blocker)) return 'media URLs'
  if (/characters|copy|hashtags|mentions|nothing to publish/i.test(blocker)) return 'content'
  if (/costs \d+ credits/.test(blocker)) return undefined
  return undefined
}

const excerpt = (text: string) => (text.length > 120 ? `${text.slice(0, 119)}…` : text)

const rowKey = (fields: RowFields, profiles: string[]) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        fields.content,
        [...profiles].map((p) => p.toLowerCase()).sort(),
        fields.date,
        normaliseTime(fields.time),
        fields.timezone || 'UTC',
        fields.media.split(/[\s|]+/).filter(Boolean),
        fields.firstComment,
        YES.has(fields.queue.toLowerCase()),
      ]),
    )
    .digest('hex')

/** Rows checked (and created) at the same time: the tool runner's calls overlap their database round trips. */
const PARALLEL_ROWS = 8

/** The report of a row imported by an earlier import: not checked or created again. */
function importedBefore(row: number, f: RowFields, key: string, postIds: string[]): PlannedRow {
  return {
    report: {
      row,
      status: 'already imported',
      content: excerpt(f.content),
      profiles: f.profiles
        .split(/[,;\n]+/)
        .map((e) => e.trim())
        .filter(Boolean),
      slot: YES.has(f.queue.toLowerCase())
        ? 'queue'
        : `${f.date} ${normaliseTime(f.time)} ${f.timezone || 'UTC'}`,
      cost: 0,
      blockers: [],
      warnings: [],
      postIds,
      note: 'imported before; not created again',
    },
    key,
    sends: [],
    queue: false,
    resolved: [],
    copy: comparableCopy(f.content),
  }
}

/** Checks one row as preflight_post would, without creating anything. */
async function planRow(
  ctx: ImportContext,
  row: number,
  fields: RowFields,
  cells: number,
  width: number,
  connections: ConnectionInfo[],
): Promise<PlannedRow> {
  const problems: RowProblem[] = []
  if (cells !== width)
    problems.push({
      message: `the row has ${cells} cells and the header ${width}; check its quotes and commas`,
    })
  const { entries, targetAccounts, platforms } = readProfiles(fields.profiles, connections, problems)
  const report: ImportRowReport = {
    row,
    status: 'ready',
    content: excerpt(fields.content),
    profiles: entries,
    slot: '',
    cost: 0,
    blockers: problems,
    warnings: [],
    postIds: [],
  }
  const key = rowKey(fields, entries)
  const queueValue = fields.queue.toLowerCase()
  const queue = YES.has(queueValue)
  if (!queue && !NO.has(queueValue))
    problems.push({ column: 'queue', message: `"${fields.queue}" is not yes or no` })

  const args: Record<string, unknown> = { content: fields.content }
  if (targetAccounts.length > 0) args.targetAccounts = targetAccounts
  if (platforms.length > 0) args.platforms = platforms
  readAdditions(ctx, fields, args, problems)
  const dueAt = readSchedule(ctx, fields, queue, { args, problems, report })
  const resolved = await preflightRow(ctx, connections, { args, problems, report })
  const sends: PlannedRow['sends'] = []
  if (!queue && dueAt !== undefined)
    for (const c of resolved)
      sends.push({
        connectionId: c.id,
        label: `${c.platform} @${c.username}`,
        network: c.platform,
        at: dueAt,
        copy: comparableCopy(fields.content),
      })
  if (problems.length > 0) report.status = 'blocked'
  return {
    report,
    key,
    ...(problems.length === 0 ? { args } : {}),
    sends,
    queue,
    resolved,
    copy: comparableCopy(fields.content),
  }
}

/** What checking a row builds: create_post's arguments, the row's problems and its report. */
interface RowCheck {
  args: Record<string, unknown>
  problems: RowProblem[]
  report: ImportRowReport
}

/** The media URLs and first comment cells into create_post's arguments. */
function readAdditions(
  ctx: ImportContext,
  fields: RowFields,
  args: Record<string, unknown>,
  problems: RowProblem[],
) {
  const media = fields.media.split(/[\s|]+/).filter(Boolean)
  const badMedia = media.filter((url) => !mediaUrlSchema.safeParse(url).success)
  for (const url of badMedia)
    problems.push({ column: 'media URLs', message: `"${url}" is not an http(s) URL Herald can fetch` })
  if (media.length > 0 && badMedia.length === 0) args.mediaUrls = media
  if (fields.firstComment.trim() !== '') {
    if (ctx.supportsFirstComment) args.firstComment = fields.firstComment
    else
      problems.push({ column: 'first comment', message: 'first comment is not supported by this Herald yet' })
  }
}

/** The row's slot (queue, or a date and time in the future) into the arguments; returns its due instant. */
function readSchedule(
  ctx: ImportContext,
  fields: RowFields,
  queue: boolean,
  { args, problems, report }: RowCheck,
): number | undefined {
  if (queue) {
    if (fields.date || fields.time)
      problems.push({ column: 'queue', message: 'give a date and time, or queue, not both' })
    args.queue = true
    return undefined
  }
  const slot = { date: fields.date, time: normaliseTime(fields.time), timezone: fields.timezone || 'UTC' }
  if (!fields.date)
    problems.push({ column: 'date', message: 'a date (YYYY-MM-DD) is needed, or yes in queue' })
  if (!fields.time)
    problems.push({ column: 'time', message: 'a time (HH:MM, 24-hour) is needed, or yes in queue' })
  if (!fields.date || !fields.time) return undefined
  const slotProblems = checkSlot(slot)
  for (const p of slotProblems)
    problems.push({
      column: p.path === 'scheduleDate' ? 'date' : p.path === 'scheduleTime' ? 'time' : 'timezone',
      message: p.message.replace(/^scheduleDate/, 'the date').replace(/^scheduleTime/, 'the time'),
    })
  if (slotProblems.length > 0) return undefined
  const dueAt = slotToInstant(slot)
  report.slot = `${slot.date} ${slot.time} ${slot.timezone}`
  if (isPastSlot(dueAt, ctx.now))
    problems.push({
      column: 'date',
      message: `${report.slot} is in the past (${new Date(dueAt).toISOString()})`,
    })
  else Object.assign(args, { scheduleDate: slot.date, scheduleTime: slot.time, timezone: slot.timezone })
  return dueAt
}

/** preflight_post on the row's arguments: its cost, warnings and blockers, and the profiles it resolved. */
async function preflightRow(
  ctx: ImportContext,
  connections: ConnectionInfo[],
  { args, problems, report }: RowCheck,
): Promise<ConnectionInfo[]> {
  let preflight: Preflight | undefined
  try {
    // The check reads the connections this import read (create_post reads them again when it creates).
    preflight = (await ctx.run('preflight_post', args, { knownConnections: connections })) as Preflight
  } catch (error) {
    problems.push({ message: toAppError(error).message })
  }
  if (!preflight) return []
  report.cost = preflight.credits.cost
  report.warnings.push(...preflight.warnings)
  for (const blocker of preflight.blockers) {
    if (/costs \d+ credits and the workspace has/.test(blocker)) continue // the running total decides
    // The profiles cell's own problems already say why no profile is left.
    if (!args.targetAccounts && !args.platforms && /^Name at least one profile/.test(blocker)) continue
    const column = columnOf(blocker, preflight)
    problems.push(column ? { column, message: blocker } : { message: blocker })
  }
  return preflight.resolvedTargets.flatMap((t) => {
    const connection = connections.find((c) => c.platform === t.platform && c.profileId === t.profileId)
    return connection ? [connection] : []
  })
}

/** Runs `work` over `items` with at most `limit` at a time, keeping their order in the answer. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      out[index] = await work(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return out
}

/**
 * Queue rows take their profile's free slots in the order of the file, after the rows with a date (which
 * are created first, so a queue row never lands on a slot a dated row of the same file takes).
 */
async function previewQueueRows(ctx: ImportContext, planned: PlannedRow[]) {
  const taken = new Map<string, Set<number>>()
  for (const plan of planned)
    for (const send of plan.args ? plan.sends : [])
      taken.set(send.connectionId, new Set([...(taken.get(send.connectionId) ?? []), send.at]))
  for (const plan of planned) {
    if (!plan.queue || !plan.args || plan.resolved.length === 0) continue
    const preview = await previewQueueSlots(ctx.db, ctx.workspaceId, plan.resolved, ctx.now, taken)
    const slots = plan.resolved.flatMap((c) => {
      const opening = preview.slots.get(c.id)
      if (!opening) return []
      taken.set(c.id, new Set([...(taken.get(c.id) ?? []), opening.dueAt]))
      plan.sends.push({
        connectionId: c.id,
        label: `${c.platform} @${c.username}`,
        network: c.platform,
        at: opening.dueAt,
        copy: plan.copy,
      })
      return [`${c.platform} @${c.username} ${opening.date} ${opening.time} ${opening.timezone}`]
    })
    plan.report.slot = `queue: ${slots.join('; ')}`
    if (preview.blockers.length > 0) {
      plan.report.blockers.push(...preview.blockers.map((message) => ({ column: 'queue' as const, message })))
      plan.report.status = 'blocked'
      plan.args = undefined
    }
  }
}

/**
 * Creates one row that passed with create_post. The row's key goes with it: create_post records it with the
 * posts, in their transaction, so an import that dies at any point leaves each row either created and
 * recorded or neither; a row another import recorded meanwhile is reported as imported before.
 */
async function createRow(ctx: ImportContext, plan: PlannedRow) {
  if (!plan.args) return
  try {
    const answer = (await ctx.run('create_post', plan.args, {
      idempotencyKey: `csv-import:${plan.key}`,
      importRow: plan.key,
    })) as { postIds: string[]; post: { status: string; approval?: { state: string } } }
    plan.report.postIds = answer.postIds
    plan.report.status = answer.post.approval?.state === 'pending' ? 'waiting for approval' : 'created'
  } catch (error) {
    const appError = toAppError(error)
    if (appError.code === 'internal') throw error
    const earlier = (appError.details as { importedPostIds?: string[] } | undefined)?.importedPostIds
    if (appError.code === 'conflict' && earlier) {
      Object.assign(plan.report, { status: 'already imported', postIds: earlier, cost: 0 })
      plan.report.note = 'imported before; not created again'
      return
    }
    plan.report.status = 'failed'
    plan.report.note = appError.message
  }
}

/**
 * Checks every row of a CSV (and, unless `dryRun`, imports the rows that passed). A file Herald cannot read
 * (not UTF-8, not CSV, unknown columns, more than 1,000 rows) is a 400 and nothing is created.
 */
export async function importCsv(ctx: ImportContext, bytes: Buffer | string, options: { dryRun: boolean }) {
  const { header, records } = readCsv(bytes)
  const columns = mapColumns(header)
  // Rows whose every cell is empty (a spreadsheet's trailing lines) are not rows.
  const rows = records
    .map((record, index) => ({ record, row: index + 2 }))
    .filter(({ record }) => record.some((cell) => cell.trim() !== ''))
  if (rows.length === 0) throw invalid('The file has a header and no rows to import')
  if (rows.length > MAX_IMPORT_ROWS)
    throw invalid(
      `The file has ${rows.length} rows; an import takes at most ${MAX_IMPORT_ROWS} (split it in two)`,
    )

  const connections = await loadConnectionInfos(ctx.db, ctx.workspaceId)
  const fields = rows.map(({ record, row }) => {
    const f = fieldsOf(record, columns)
    return { row, record, fields: f, key: rowKey(f, readProfiles(f.profiles, connections, []).entries) }
  })
  const already = await importedRows(
    ctx.db,
    ctx.workspaceId,
    fields.map((f) => f.key),
  )
  // Each row is checked on its own (preflight_post, a few at a time); what depends on the rows before it
  // (repeats, queue slots, repeated copy, the running balance) is decided afterwards, in the file's order.
  const planned = await inBatches(fields, PARALLEL_ROWS, async ({ row, record, fields: f, key }) => {
    const done = already.get(key)
    if (done) return importedBefore(row, f, key, done)
    return planRow(ctx, row, f, record.length, header.length, connections)
  })
  const byKey = new Map<string, number>()
  for (const plan of planned) {
    const first = byKey.get(plan.key)
    if (first !== undefined) {
      plan.report.status = 'repeat'
      plan.report.note = `the same as row ${first}: imported once`
      plan.report.postIds = []
      plan.args = undefined
    } else byKey.set(plan.key, plan.report.row)
  }
  await previewQueueRows(ctx, planned)
  crossRowRepeats(planned)
  let balance = await currentBalance(ctx.db, ctx.workspaceId)
  const startBalance = balance
  for (const plan of planned) {
    if (plan.report.status !== 'ready' || ctx.waitsForApproval) continue
    if (plan.report.cost > balance) {
      plan.report.status = 'blocked'
      plan.report.blockers.push({
        message: `not enough credits: it costs ${plan.report.cost} and the rows before it leave ${balance} of ${startBalance}`,
      })
      plan.args = undefined
      continue
    }
    balance -= plan.report.cost
  }

  if (!options.dryRun) {
    // Dated rows a few at a time (on SQLite their transactions share commits); then the queue rows one
    // after the other in the file's order, each taking the next free slot after the ones before it.
    await inBatches(
      planned.filter((p) => !p.queue),
      PARALLEL_ROWS,
      (plan) => createRow(ctx, plan),
    )
    for (const plan of planned.filter((p) => p.queue)) await createRow(ctx, plan)
  }
  const reports = planned.map((p) => p.report)
  const count = (...statuses: RowStatus[]) => reports.filter((r) => statuses.includes(r.status)).length
  return {
    dryRun: options.dryRun,
    rows: reports,
    summary: {
      rows: reports.length,
      ready: count('ready'),
      blocked: count('blocked'),
      repeats: count('repeat'),
      created: count('created', 'waiting for approval'),
      alreadyImported: count('already imported'),
      failed: count('failed'),
      cost: planned.filter((p) => p.args).reduce((sum, p) => sum + p.report.cost, 0),
      balance: startBalance,
    },
  } satisfies ImportReport
}

/**
 * The same copy to the same profile in two rows of the file, within 24 hours of each other: the later row
 * is warned (a blocker on networks that refuse the repeat, as preflight_post does against existing posts).
 */
function crossRowRepeats(planned: PlannedRow[]) {
  const seen: Array<{ row: number; send: PlannedRow['sends'][number] }> = []
  for (const plan of planned) {
    if (plan.report.status === 'repeat') continue
    for (const send of plan.sends) {
      if (send.copy === '') continue
      const earlier = seen.find(
        (s) =>
          s.send.connectionId === send.connectionId &&
          s.send.copy === send.copy &&
          Math.abs(s.send.at - send.at) < DUPLICATE_WINDOW_MS,
      )
      if (!earlier) continue
      const message = `${send.label}: the same copy is in row ${earlier.row}, within 24 hours of this one`
      if (refusesDuplicateCopy(send.network)) {
        plan.report.blockers.push({ column: 'content', message: `${message}; X refuses a repeated post` })
        plan.report.status = 'blocked'
        plan.args = undefined
      } else plan.report.warnings.push(`${message}; followers would see it twice`)
    }
    for (const send of plan.sends) seen.push({ row: plan.report.row, send })
  }
}
