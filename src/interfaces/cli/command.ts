import type { AppContext } from '../../modules/app-context.js'
import type { Config } from '../../platform/config.js'
import type { Logger } from '../../platform/logger.js'
import type { Values } from './arguments.js'
import type { StoreContext } from './context.js'

export interface CommandResult {
  json: unknown
  text: string
  /** Non-zero when the command ran but did not fully succeed. */
  exitCode?: number
}

/**
 * One `herald` command: its usage (the first line is the call, the rest say what it does), what it opens
 * (`config` for nothing but the settings, `store` for a few rows, `app` for the whole application), how it reads its options, and what it does.
 * `input` reads and checks every option before anything is opened, so a mistake is said at once and changes
 * nothing; `run` imports what it uses when it runs, so `herald keys list` never loads the networks' adapters.
 */
interface Spec<Opens, Context, Input> {
  name: string
  usage: string[]
  opens: Opens
  input(values: Values, positionals: string[]): Input
  run(context: Context, input: Input): Promise<CommandResult>
}

/** What a command that must not open the database (a restore looks at it first, then replaces it) gets. */
export interface ConfigContext {
  config: Config
  logger: Logger
}

export type ConfigCommand<Input = unknown> = Spec<'config', ConfigContext, Input>
export type StoreCommand<Input = unknown> = Spec<'store', StoreContext, Input>
export type AppCommand<Input = unknown> = Spec<'app', AppContext, Input>
/** `herald api` and `herald worker`: the service itself, in that role, until it is stopped. */
export type ServiceCommand = { name: 'api' | 'worker'; usage: string[]; opens: 'service' }

export type Command = ConfigCommand | StoreCommand | AppCommand | ServiceCommand

/** Keeps a command's input type between its two steps while the list holds commands of every input. */
export const configCommand = <Input>(command: ConfigCommand<Input>): Command => command as ConfigCommand
export const storeCommand = <Input>(command: StoreCommand<Input>): Command => command as StoreCommand
export const appCommand = <Input>(command: AppCommand<Input>): Command => command as AppCommand
