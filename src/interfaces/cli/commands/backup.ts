import fs from 'node:fs'
import path from 'node:path'
import type { BackupCounts } from '../../../modules/backup/manifest.js'
import { AppError } from '../../../platform/errors.js'
import { UsageError } from '../arguments.js'
import { type Command, configCommand, storeCommand } from '../command.js'

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`

export const countsLine = (c: BackupCounts) =>
  [
    plural(c.people, 'person', 'people'),
    plural(c.workspaces, 'workspace'),
    plural(c.posts, 'post'),
    plural(c.targets, 'target'),
    plural(c.media, 'hosted media file'),
    plural(c.connections, 'connection'),
    plural(c.webhookEndpoints, 'webhook endpoint'),
  ].join(', ')

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`

/** The one file a command reads, named on its command line and readable. */
function archiveArgument(positionals: string[], what: string): string {
  const file = positionals[0]
  if (!file) throw new UsageError(`${what} needs the backup file (herald-backup-….tar.gz)`)
  if (!fs.existsSync(file)) throw new UsageError(`No file ${file}`)
  return path.resolve(file)
}

/** A refusal or a missing tool from the backup module, said as one line on stderr (exit 1). */
function said(error: unknown): never {
  const name = (error as Error).name
  if (['RestoreRefused', 'PostgresToolMissing', 'ArchiveError'].includes(name))
    throw new AppError('conflict', (error as Error).message)
  throw error
}

export const backupCommands: Command[] = [
  storeCommand({
    name: 'backup',
    usage: [
      'backup [--to DIR] [--json]',
      'Write one archive of the database (an online, consistent copy), the hosted media and the settings',
      'that are not secrets, with a manifest and checksums, into DIR (default HERALD_BACKUP_DIR,',
      '<data folder>/backups). Safe while Herald runs. The secret key is never in it.',
    ],
    opens: 'store',
    input: (v) => ({ to: v.to }),
    async run(app, input) {
      const { takeBackup } = await import('../../../modules/backup/take.js')
      const result = await takeBackup(app, input.to ? { dir: input.to } : {}).catch(said)
      const { manifest } = result
      return {
        json: { ...result, manifest: { ...manifest, secrets: { ...manifest.secrets, keyCheck: undefined } } },
        text: [
          `Backup written: ${result.file} (${megabytes(result.bytes)}).`,
          `It holds ${countsLine(manifest.counts)} (schema ${manifest.schemaVersion}, Herald ${manifest.heraldVersion}).`,
          ...(result.missingMedia.length
            ? [
                `${plural(result.missingMedia.length, 'hosted file')} named by the database had already been removed (past retention) and are not in it.`,
              ]
            : []),
          `Secrets stay sealed in it. The secret key is NOT in the backup: it is ${result.keyLocation}. Keep a copy of the key apart from the backups; a restore needs it to open the connections' tokens, webhook secrets and network app secrets.`,
          `Check it with: herald backup verify ${result.file}`,
        ].join('\n'),
      }
    },
  }),
  configCommand({
    name: 'backup verify',
    usage: [
      'backup verify FILE [--json]',
      "Check a backup: its manifest, every checksum, that its database opens and holds the manifest's counts,",
      'and whether the key configured here opens its secrets. Changes nothing.',
    ],
    opens: 'config',
    input: (_v, positionals) => ({ file: archiveArgument(positionals, 'backup verify') }),
    async run({ config }, input) {
      const { verifyBackup } = await import('../../../modules/backup/verify.js')
      const report = await verifyBackup(config, input.file).catch(said)
      const { manifest } = report
      return {
        json: report,
        exitCode: report.ok ? 0 : 1,
        text: [
          `${report.ok ? 'Sound' : 'NOT sound'}: ${report.file}`,
          `Made ${manifest.createdAt} by Herald ${manifest.heraldVersion} on ${manifest.database} (schema ${manifest.schemaVersion}).`,
          report.counts
            ? `Its database holds ${countsLine(report.counts)}.`
            : 'Its database could not be counted.',
          ...report.problems.map((p) => `Problem: ${p}`),
          `Key: ${report.key.words}`,
        ].join('\n'),
      }
    },
  }),
  configCommand({
    name: 'restore',
    usage: [
      'restore FILE [--force] [--json]',
      'Put a backup back into the configured data folder (or DATABASE_URL and the media store), run the',
      'migrations and report the counts. Refuses, changing nothing, a target that holds data (unless --force,',
      'which moves it aside) or a backup whose secrets the configured key does not open. Stop Herald first.',
    ],
    opens: 'config',
    input: (v, positionals) => ({ file: archiveArgument(positionals, 'restore'), force: v.force === true }),
    async run({ config }, input) {
      const { restoreBackup } = await import('../../../modules/backup/restore.js')
      const report = await restoreBackup(config, input.file, { force: input.force }).catch(said)
      return {
        json: report,
        text: [
          `Restored ${report.file} (made ${report.backup.createdAt} by Herald ${report.backup.heraldVersion}).`,
          `The database now holds ${countsLine(report.counts)}, migrated to this Herald's schema.`,
          ...(report.replacedKeptAt ? [`What was here before is kept in ${report.replacedKeptAt}.`] : []),
          ...(report.missingMedia.length
            ? [
                `${plural(report.missingMedia.length, 'hosted file')} had been removed before the backup and could not be restored.`,
              ]
            : []),
          `Key: ${report.key}`,
          `The settings it ran with (no secrets) are in ${report.settingsFile}.`,
        ].join('\n'),
      }
    },
  }),
]
