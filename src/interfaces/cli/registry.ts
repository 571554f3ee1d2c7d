import type { Command } from './command.js'
import { accountCommands } from './commands/accounts.js'
import { backupCommands } from './commands/backup.js'
import { exportCommands } from './commands/export.js'
import { operationCommands } from './commands/operations.js'
import { postCommands } from './commands/posts.js'
import { webhookCommands } from './commands/webhooks.js'

export const commands: Command[] = [
  ...accountCommands,
  ...operationCommands,
  ...backupCommands,
  ...postCommands,
  ...exportCommands,
  ...webhookCommands,
]

/** The command the first one or two words name (`bootstrap`, `keys list`); two words first (`backup verify`). */
export function findCommand(words: string[]): Command | undefined {
  const [first, second] = words
  return commands.find((c) => c.name === `${first} ${second ?? ''}`) ?? commands.find((c) => c.name === first)
}

/** One command's usage, as a usage error shows it under its one-line message. */
export function usageOf(command: Command): string {
  return `usage: herald ${command.usage[0]}`
}

/** `herald --help`: every command's usage once (commands that share one, such as approvals on|off|show, once). */
export function helpText(): string {
  const seen = new Set<string>()
  const blocks: string[] = []
  for (const { usage } of commands) {
    const [call, ...what] = usage
    if (!call || seen.has(call)) continue
    seen.add(call)
    blocks.push([`  ${call}`, ...what.map((line) => `      ${line}`)].join('\n'))
  }
  return `Usage: herald <command> [options]   (npx herald ..., or npm run herald -- ...)\n\n${blocks.join('\n')}\n\nSettings come from the environment (docs/configuration.md).`
}
