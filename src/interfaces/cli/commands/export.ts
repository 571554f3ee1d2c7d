import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { AppError } from '../../../platform/errors.js'
import { required, UsageError, type Values } from '../arguments.js'
import { appCommand, type Command, storeCommand } from '../command.js'

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
  storeCommand({
    name: 'accounts export',
    usage: [
      'accounts export --email E [--output FILE] [--json]',
      'Write everything Herald holds about person E and their workspaces (no token, hash or secret) as JSON.',
    ],
    opens: 'store',
    input: (v) => ({ email: required(v, 'email').toLowerCase(), output: v.output }),
    async run(app, input) {
      const { personalExport } = await import('../../../modules/accounts/personal-export.js')
      const user = await app.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', input.email)
        .executeTakeFirst()
      if (!user) throw new AppError('not_found', `No person with the e-mail ${input.email}`)
      const data = await personalExport(app.store.db, user.id, app.clock.now())
      const file = path.resolve(
        input.output ?? `herald-data-of-${input.email.replace(/[^a-z0-9]+/g, '-')}.json`,
      )
      fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 })
      return { json: { file }, text: `Wrote everything Herald holds about ${input.email} to ${file}.` }
    },
  }),
  appCommand({
    name: 'workspaces delete',
    usage: [
      'workspaces delete --workspace ID --confirm NAME [--json]',
      'Delete a workspace and all its data (posts, connections and their tokens, webhooks, media, the ledger);',
      "NAME must be the workspace's name. Herald first withdraws its access at each profile's network where",
      'the network allows it, and prints what each network answered. Refused while one of its posts is being sent.',
    ],
    opens: 'app',
    input: (v) => ({ workspaceId: required(v, 'workspace'), confirmName: required(v, 'confirm') }),
    async run(app, input) {
      const { deleteWorkspace } = await import('../../../modules/accounts/delete-workspace.js')
      const done = await deleteWorkspace(
        {
          ...app,
          storage: app.media.storage,
          adapterFor: (network) => app.networkApps.adapterFor(network),
        },
        input,
      )
      const revoked = done.connections.filter((c) => c.outcome === 'revoked')
      return {
        json: done,
        text: [
          `Deleted workspace ${done.workspaceId}: ${done.posts} posts, ${done.connections.length} connections, ${done.mediaFiles} hosted files.`,
          ...(done.connections.length
            ? [
                `Access withdrawn at the network for ${revoked.length} of ${done.connections.length} profiles:`,
              ]
            : []),
          ...done.connections.map(
            (c) =>
              `  ${c.platform} @${c.username}: ${outcomeWords[c.outcome]}${c.reason ? `. ${c.reason}` : ''}`,
          ),
        ].join('\n'),
      }
    },
  }),
]

/** How the CLI names what became of a profile's access. */
const outcomeWords = {
  revoked: 'withdrawn',
  not_offered: 'not offered by the network',
  failed: 'failed',
} as const
