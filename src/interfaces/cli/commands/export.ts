import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../../../platform/errors.js'
import { required, UsageError, type Values } from '../arguments.js'
import { type Command, storeCommand } from '../command.js'

const STATUSES = ['all', 'scheduled', 'published', 'draft', 'failed', 'processing']
const APPROVALS = ['pending', 'approved', 'rejected']

const day = (value: string | undefined, name: string) => {
  if (value !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new UsageError(`--${name} must be a date as YYYY-MM-DD (got ${JSON.stringify(value)})`)
  return value
}

/** The filters list_posts takes, from the command line (each checked before anything opens). */
function filterOf(v: Values) {
  const status = v.status ?? 'all'
  const approval = status.startsWith('approval:') ? status.slice('approval:'.length) : undefined
  if (!STATUSES.includes(status) && !(approval && APPROVALS.includes(approval)))
    throw new UsageError(
      `--status must be one of ${STATUSES.join(', ')}, or approval:pending|approved|rejected`,
    )
  return {
    status: approval || status === 'all' ? undefined : status,
    approval,
    network: v.network,
    profileId: v.profile,
    from: day(v.from, 'from'),
    to: day(v.to, 'to'),
    search: v.search,
  }
}

export const exportCommands: Command[] = [
  storeCommand({
    name: 'posts export',
    usage: [
      'posts export --workspace ID [--format csv|json] [--status S] [--network N] [--profile P] [--from D] [--to D] [--search W] [--output FILE] [--json]',
      "Write the workspace's posts, each profile's delivery, remote URL and latest analytics, filtered like",
      'list_posts, as CSV (one line per post and profile) or JSON, to FILE (default herald-posts-<date>.<format>).',
    ],
    opens: 'store',
    input: (v) => {
      const format = v.format ?? 'csv'
      if (format !== 'csv' && format !== 'json') throw new UsageError('--format must be csv or json')
      return {
        workspace: required(v, 'workspace'),
        format: format as 'csv' | 'json',
        filter: filterOf(v),
        output: v.output,
      }
    },
    async run(app, input) {
      const [{ exportedPosts, writeExport }, { fileStamp }] = await Promise.all([
        import('../../../modules/export/posts-export.js'),
        import('../../../platform/db/sqlite-copy.js'),
      ])
      const workspace = await app.store.db
        .selectFrom('workspaces')
        .select(['id', 'name'])
        .where('id', '=', input.workspace)
        .executeTakeFirst()
      if (!workspace) throw new AppError('not_found', `No workspace ${input.workspace}`)
      const now = app.clock.now()
      const file = path.resolve(input.output ?? `herald-posts-${fileStamp(now)}.${input.format}`)
      const out = fs.createWriteStream(file, { mode: 0o600 })
      const posts = exportedPosts(app.store.db, workspace.id, input.filter, now)
      const header = { workspace, exportedAt: new Date(now).toISOString(), filter: input.filter }
      const summary = await writeExport(out, input.format, posts, header)
      out.end()
      await once(out, 'finish')
      return {
        json: { file, format: input.format, ...summary },
        text: `Exported ${summary.posts} posts (${summary.rows} ${input.format === 'csv' ? 'lines' : 'entries'}) of ${workspace.name} to ${file}.`,
      }
    },
  }),
]
