import { required } from '../arguments.js'
import { appCommand, type Command, storeCommand } from '../command.js'

export const operationCommands: Command[] = [
  storeCommand({
    name: 'secrets rotate',
    usage: [
      'secrets rotate [--json]',
      'Re-seal every stored token under HERALD_SECRET_KEY (old ones open with HERALD_OLD_SECRET_KEYS).',
    ],
    opens: 'store',
    input: () => ({}),
    async run(app) {
      const { rotateSecrets } = await import('../../../platform/crypto/rotate.js')
      const report = await rotateSecrets(app.store.db, app.vault)
      const line = (what: string, c: typeof report.connections) =>
        `${what}: ${c.total} sealed, ${c.rotated} re-sealed, ${c.current} already current, ${c.failed} unreadable${c.failed ? ` (${c.failedIds.join(', ')})` : ''}`
      const failed =
        report.connections.failed +
        report.oauthStates.failed +
        report.pendingGrants.failed +
        report.webhookSecrets.failed +
        report.networkApps.failed +
        report.mastodonApps.failed
      return {
        json: report,
        text: [
          `Current key ${report.keyId}.`,
          line('Connections', report.connections),
          line('OAuth states', report.oauthStates),
          line('Pending connect grants', report.pendingGrants),
          line('Webhook secrets', report.webhookSecrets),
          line('Network app secrets', report.networkApps),
          line('Mastodon app secrets', report.mastodonApps),
          failed
            ? 'Some values open with none of the configured keys, or were not sealed for the row they are in: add the key that sealed them to HERALD_OLD_SECRET_KEYS, or reconnect those profiles.'
            : 'Every sealed value is under the current key; HERALD_OLD_SECRET_KEYS can be removed.',
        ].join('\n'),
        exitCode: failed ? 1 : 0,
      }
    },
  }),
  appCommand({
    name: 'sandbox connect',
    usage: [
      'sandbox connect --workspace ID --network twitter|youtube|bluesky|facebook|instagram|linkedin|threads|googlebusiness|tiktok|pinterest|mastodon --username U [--organization] [--json]',
      'Connect a simulated profile through the connect flow of a server running with HERALD_SANDBOX=1',
      '(youtube: U is the Google account e-mail, e.g. creator@example.com; bluesky: the account',
      'U.bsky.social, made with an app password in the simulator; facebook: a Page named U;',
      "instagram: an Instagram professional account U, through Instagram Login; linkedin: member U's",
      'personal profile, or with --organization the first page U administers; threads: a Threads profile U;',
      'googlebusiness: every location of the business U, each a profile of its own; pinterest: every board of the account U, each a profile of its own).',
    ],
    opens: 'app',
    input: (v) => ({
      workspaceId: required(v, 'workspace'),
      network: required(v, 'network'),
      username: required(v, 'username'),
      organization: v.organization === true,
    }),
    async run(app, input) {
      const { sandboxConnect } = await import('../../../modules/connections/sandbox-connect.js')
      const result = await sandboxConnect(app, input)
      const each = (result.profiles ?? [result]).map((p) => `@${p.username} (profile ${p.profileId})`)
      return {
        json: result,
        text: `Connected ${result.platform} ${each.join(', ')} in workspace ${result.workspaceId}.`,
      }
    },
  }),
  { name: 'api', usage: ['api       Run the HTTP API only (no worker).'], opens: 'service' },
  { name: 'worker', usage: ['worker    Run the publishing worker only.'], opens: 'service' },
  appCommand({
    name: 'media gc',
    usage: [
      'media gc [--json]',
      'Remove hosted media past its retention (HERALD_MEDIA_RETENTION_HOURS) that no pending post needs.',
    ],
    opens: 'app',
    input: () => ({}),
    async run(app) {
      const { sweepAppMedia } = await import('../../../modules/media/app-media-sweep.js')
      const result = await sweepAppMedia(app)
      return {
        json: result,
        text: `Removed ${result.removed.length} hosted media file${result.removed.length === 1 ? '' : 's'} (${result.bytes} bytes).`,
      }
    },
  }),
]

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const

operationCommands.push(
  storeCommand({
    name: 'doctor',
    usage: [
      'doctor [--json]',
      "Check this Herald's setup: Node, ffmpeg, disk, database, media store, PUBLIC_BASE_URL answering,",
      'network apps, the last backup and the secret key; say what to fix. Exit 1 when a check fails.',
    ],
    opens: 'store',
    input: () => ({}),
    async run(app) {
      const [{ runDoctor }, runtime] = await Promise.all([
        import('../../../modules/operations/doctor.js'),
        // @ts-expect-error: bin/ is plain JavaScript without types.
        import('../../../../bin/node-runtime.js') as Promise<{
          pinnedNode(): string
          requiredNode(): [number, number]
        }>,
      ])
      const checks = await runDoctor({
        ...app,
        node: { pinned: runtime.pinnedNode(), required: runtime.requiredNode() },
      })
      const failed = checks.filter((c) => c.verdict === 'fail').length
      const warned = checks.filter((c) => c.verdict === 'warn').length
      return {
        json: { checks, failed, warned },
        exitCode: failed > 0 ? 1 : 0,
        text: [
          ...checks.flatMap((c) => [
            `${MARK[c.verdict]}  ${c.name}: ${c.detail}`,
            ...(c.fix ? [`      fix: ${c.fix}`] : []),
          ]),
          failed + warned === 0 ? 'Everything checks out.' : `${failed} failing, ${warned} to look at.`,
        ].join('\n'),
      }
    },
  }),
)
