import fs from 'node:fs'
import type { ImportReport } from '../../../modules/publishing/csv-import.js'
import { actingMember } from '../acting-member.js'
import { required, UsageError, type Values } from '../arguments.js'
import { type AppCommand, appCommand, type Command, storeCommand } from '../command.js'

const APPROVAL_SETTING = [
  'approvals on|off|show --workspace ID [--json]',
  "Whether posts by editors wait for an owner's approval.",
]

/** The workspace a command acts in, and the member it acts as (--email, or the workspace's owner). */
const member = (v: Values) => ({ workspace: required(v, 'workspace'), email: v.email })

export const postCommands: Command[] = [
  appCommand({
    name: 'posts import',
    usage: [
      'posts import FILE.csv --workspace ID [--dry-run] [--email E] [--json]',
      'Check every row of a CSV (content, profiles, date, time, timezone, media URLs, first comment, queue)',
      'as preflight_post does, and, without --dry-run, create the rows that pass (a row imported before is',
      "never created again). Acts as the workspace's owner, or as member E.",
    ],
    opens: 'app',
    input: (v, positionals) => {
      const file = positionals[0]
      if (!file) throw new UsageError('posts import needs the CSV file')
      let bytes: Buffer
      try {
        bytes = fs.readFileSync(file)
      } catch (error) {
        throw new UsageError(
          `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        )
      }
      return { ...member(v), bytes, dryRun: v['dry-run'] === true }
    },
    async run(app, input) {
      const [{ importContextFor, importCsv }, { tools }, { createToolRunner }] = await Promise.all([
        import('../../../modules/publishing/csv-import.js'),
        import('../../tools/registry.js'),
        import('../../tools/runner.js'),
      ])
      const { actor, caller } = await actingMember(app.store.db, input)
      const runner = createToolRunner(app, tools)
      const report = await importCsv(await importContextFor(app, runner, caller, actor), input.bytes, {
        dryRun: input.dryRun,
      })
      return { json: report, text: importText(report), exitCode: report.summary.failed > 0 ? 1 : 0 }
    },
  }),
  storeCommand({
    name: 'queue list',
    usage: ['queue list --workspace ID [--json]'],
    opens: 'store',
    input: (v) => ({ workspace: required(v, 'workspace') }),
    async run(app, input) {
      const { listQueues } = await import('../../../modules/publishing/posting-queues.js')
      const queues = await listQueues(app.store.db, input.workspace, app.clock.now())
      const line = (q: (typeof queues)[number]) =>
        `${q.platform} @${q.username} (${q.timezone}): ${q.slots.join(', ')}; next free: ${q.next
          .slice(0, 3)
          .map((n) => `${n.scheduleDate} ${n.scheduleTime}`)
          .join(', ')}`
      return { json: queues, text: queues.map(line).join('\n') || 'No posting queues.' }
    },
  }),
  storeCommand({
    name: 'queue set',
    usage: [
      'queue set --workspace ID --profile NETWORK:USERNAME --timezone ZONE --slot "daily 09:00" [--slot ...] [--json]',
      "Set a profile's weekly posting times (no --slot removes them); create_post with queue: true takes",
      'the next free one.',
    ],
    opens: 'store',
    input: (v) => {
      const [platform, ...rest] = required(v, 'profile').split(':')
      if (!platform || rest.length === 0)
        throw new UsageError('--profile is NETWORK:USERNAME, e.g. linkedin:acme')
      return {
        workspace: required(v, 'workspace'),
        queue: { platform, profile: rest.join(':'), timezone: v.timezone ?? 'UTC', slots: v.slot ?? [] },
      }
    },
    async run(app, input) {
      const [{ listQueues, setQueue }, { describeSlots }] = await Promise.all([
        import('../../../modules/publishing/posting-queues.js'),
        import('../../../core/posting-queue.js'),
      ])
      const { connection, queue } = await setQueue(
        app.store.db,
        input.workspace,
        input.queue,
        app.clock.now(),
      )
      const queues = await listQueues(app.store.db, input.workspace, app.clock.now())
      return {
        json: { success: true, queues },
        text: queue
          ? `Posting times of ${connection.platform} @${connection.username} (${queue.timezone}): ${describeSlots(queue.slots).join(', ')}.`
          : `Removed the posting times of ${connection.platform} @${connection.username}.`,
      }
    },
  }),
  ...approvalCommands(),
]

function approvalCommands(): Command[] {
  const approvals = () => import('../../../modules/publishing/approvals.js')
  type Approvals = Awaited<ReturnType<typeof approvals>>
  type Actor = Awaited<ReturnType<typeof actingMember>>['actor']
  /** An approvals command: the approvals module and the acting owner, loaded when it runs. */
  const approvalCommand = <Input extends { workspace: string; email?: string }>(
    spec: Omit<AppCommand<Input>, 'opens' | 'run'> & {
      run(
        module: Approvals,
        app: Parameters<AppCommand['run']>[0],
        actor: Actor,
        input: Input,
      ): ReturnType<AppCommand['run']>
    },
  ) =>
    appCommand<Input>({
      ...spec,
      opens: 'app',
      async run(app, input) {
        return spec.run(await approvals(), app, (await actingMember(app.store.db, input)).actor, input)
      },
    })
  return [
    approvalCommand({
      name: 'approvals on',
      usage: APPROVAL_SETTING,
      input: member,
      async run(m, app, actor) {
        const setting = await m.changeApprovalSetting(app, actor, true)
        return { json: setting, text: 'Posts by editors now wait for an owner’s approval.' }
      },
    }),
    approvalCommand({
      name: 'approvals off',
      usage: APPROVAL_SETTING,
      input: member,
      async run(m, app, actor) {
        const setting = await m.changeApprovalSetting(app, actor, false)
        return {
          json: setting,
          text: `Posts by editors no longer wait for approval (${setting.pending} already waiting still do).`,
        }
      },
    }),
    approvalCommand({
      name: 'approvals show',
      usage: APPROVAL_SETTING,
      input: member,
      async run(m, app, actor) {
        const setting = await m.approvalSetting(app, actor)
        return {
          json: setting,
          text: `Approval ${setting.requireApproval ? 'required' : 'not required'} for editors' posts; ${setting.pending} waiting, ${setting.rejected} rejected.`,
        }
      },
    }),
    approvalCommand({
      name: 'approvals approve',
      usage: ['approvals approve --workspace ID --id POST [--now] [--json]'],
      input: (v) => ({ ...member(v), id: required(v, 'id'), publishNow: v.now === true }),
      async run(m, app, actor, input) {
        const result = await m.approvePost(app, actor, input.id, { publishNow: input.publishNow })
        return { json: result, text: result.message }
      },
    }),
    approvalCommand({
      name: 'approvals reject',
      usage: [
        'approvals reject --workspace ID --id POST --note TEXT [--json]',
        "Decide on a post waiting for approval (as the workspace's owner, or as owner E with --email).",
      ],
      input: (v) => ({ ...member(v), id: required(v, 'id'), note: required(v, 'note') }),
      async run(m, app, actor, input) {
        const result = await m.rejectPost(app, actor, input.id, input.note)
        return { json: result, text: result.message }
      },
    }),
  ]
}

/** An import report as lines a person reads: one per row that was not simply fine, then the totals. */
function importText(report: ImportReport): string {
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
