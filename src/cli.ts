import fs from 'node:fs'
import path from 'node:path'
import { parseCommandLine, UsageError, type Values } from './interfaces/cli/arguments.js'
import type { Command, CommandResult } from './interfaces/cli/command.js'
import type { StoreContext } from './interfaces/cli/context.js'
import { findCommand, helpText, usageOf } from './interfaces/cli/registry.js'
import type { AppContext } from './modules/app-context.js'
import type { Config } from './platform/config.js'
import { AppError } from './platform/errors.js'
import type { Logger } from './platform/logger.js'

const HELP_HINT = 'Run herald --help to see every command.'

/** A usage mistake in at most three lines: what is wrong, then the command's own usage (never the whole help). */
function reportUsage(message: string, command: Command | undefined): number {
  process.stderr.write(`herald: ${message}\n${command ? usageOf(command) : HELP_HINT}\n`)
  return 2
}

/** The words of the command line that are not options (used to name the command when parsing fails). */
const wordsOf = (argv: string[]) => argv.filter((arg) => !arg.startsWith('-'))

export async function runCli(argv: string[]): Promise<number> {
  let values: Values
  let positionals: string[]
  try {
    ;({ values, positionals } = parseCommandLine(argv))
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(error.message, findCommand(wordsOf(argv)))
    throw error
  }
  const command = positionals.length > 0 ? findCommand(positionals) : undefined
  if (positionals.length === 0 || (values.help && !command)) {
    process.stdout.write(`${helpText()}\n`)
    return values.help ? 0 : 2
  }
  if (!command) {
    process.stderr.write(`Unknown command: ${positionals.slice(0, 2).join(' ')}\n${HELP_HINT}\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write(`usage: herald ${command.usage.join('\n  ')}\n`)
    return 0
  }
  if (command.opens === 'service') {
    const { startService } = await import('./main.js')
    await startService(command.name)
    return -1
  }
  const words = command.name.split(' ').length
  let input: unknown
  try {
    input = command.input(values, positionals.slice(words))
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(error.message, command)
    throw error
  }
  return runCommand(command, values, input)
}

async function runCommand(command: Exclude<Command, { opens: 'service' }>, values: Values, input: unknown) {
  // Loaded once the command line is known to be right: a mistake is answered before any of this loads. The
  // store's modules load alongside the settings' rather than after them.
  const contextModule = import('./interfaces/cli/context.js')
  const [{ loadConfigFromProcess }, { createProcessLogger }] = await Promise.all([
    import('./platform/config.js'),
    import('./platform/logger.js'),
  ])
  const config = loadConfigFromProcess()
  const logger = createProcessLogger(
    config,
    values.json ? 'silent' : config.logLevel === 'info' ? 'warn' : config.logLevel,
  )
  if (command.opens === 'config') {
    sayWhichDatabase(config, false)
    return report(command, values, () => command.run({ config, logger }, input))
  }
  const context = await openContext(command, config, logger, await contextModule)
  sayWhichDatabase(config, context.fresh)
  try {
    return await report(command, values, () =>
      command.opens === 'store'
        ? command.run(context.value as StoreContext, input)
        : command.run(context.value as AppContext, input),
    )
  } finally {
    await context.value.store.destroy()
  }
}

/** Runs the command and prints its result (text, or its JSON line with --json), or its error. */
async function report(command: Command, values: Values, run: () => Promise<CommandResult>) {
  try {
    const result = await run()
    process.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`)
    return result.exitCode ?? 0
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(error.message, command)
    if (error instanceof AppError) {
      process.stderr.write(`Error: ${error.message}\n`)
      if (values.json) process.stdout.write(`${JSON.stringify(error.toBody())}\n`)
      return 1
    }
    throw error
  }
}

async function openContext(
  command: Exclude<Command, { opens: 'service' | 'config' }>,
  config: Config,
  logger: Logger,
  { openStoreContext }: typeof import('./interfaces/cli/context.js'),
) {
  const fresh = !config.databaseUrl && !fs.existsSync(sqliteFileOf(config))
  const value =
    command.opens === 'store' ? await openStoreContext(config, logger) : await openAppContext(config, logger)
  return { value, fresh }
}

/** The whole application, for the commands that run tools, send events or reach the networks. */
async function openAppContext(config: Config, logger: Logger): Promise<AppContext> {
  const { createAppContext } = await import('./app.js')
  return createAppContext(config, { logger })
}

const sqliteFileOf = (config: Config) => path.join(config.dataDir, 'herald.sqlite')

/** Said on stderr, so that --json keeps its last stdout line: which database this command changes. */
function sayWhichDatabase(config: Config, fresh: boolean) {
  const sqliteFile = sqliteFileOf(config)
  process.stderr.write(
    config.databaseUrl
      ? `herald: using Postgres (DATABASE_URL)\n`
      : `herald: using data folder ${config.dataDir} (SQLite ${sqliteFile})\n`,
  )
  if (fresh)
    process.stderr.write(
      `herald: ${sqliteFile} did not exist and was created empty. If your server keeps its data elsewhere, run this command with its HERALD_DATA_DIR (or DATABASE_URL).\n`,
    )
}

/** Runs the CLI and exits with its code (`bin/herald.js`, `npm run herald`). */
export function main(argv: string[]): void {
  runCli(argv)
    .then((code) => {
      if (code >= 0) process.exit(code)
    })
    .catch((error) => {
      // A bad setting (ConfigError) is said in its one line; anything else is a bug, said with its stack.
      process.stderr.write(
        (error as Error).name === 'ConfigError'
          ? `${error.message}\n`
          : `${(error as Error).stack ?? error}\n`,
      )
      process.exit(1)
    })
}

if (path.resolve(process.argv[1] ?? '') === path.resolve(import.meta.filename)) main(process.argv.slice(2))
