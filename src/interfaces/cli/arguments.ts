import { parseArgs } from 'node:util'

/** Every option any command takes; each command's usage line says which are its own. */
export const options = {
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
  to: { type: 'string' },
  force: { type: 'boolean', default: false },
  format: { type: 'string' },
  output: { type: 'string' },
  status: { type: 'string' },
  from: { type: 'string' },
  search: { type: 'string' },
  confirm: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

export type Values = {
  [K in keyof typeof options]?: (typeof options)[K] extends { multiple: true }
    ? string[]
    : (typeof options)[K]['type'] extends 'boolean'
      ? boolean
      : string
}

/** A mistake in how a command was called: said in one line, with that command's usage under it. */
export class UsageError extends Error {}

export interface CommandLine {
  values: Values
  positionals: string[]
}

/**
 * The command line as options and words. A value that starts with `-` (`--amount -5`) belongs to the option
 * before it when that option takes a value, so it reaches the option's own check instead of being read as an
 * unknown option.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  const args: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined
    const option = name ? (options as Record<string, { type: string }>)[name] : undefined
    const next = argv[i + 1]
    if (option?.type === 'string' && next !== undefined && /^-[^-]/.test(next)) {
      args.push(`${arg}=${next}`)
      i++
    } else args.push(arg)
  }
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true })
    return { values: parsed.values as Values, positionals: parsed.positionals }
  } catch (error) {
    throw new UsageError(plainParseError(error as Error))
  }
}

/** node:util's messages, shortened to the part a person needs ("Unknown option '--emial'"). */
function plainParseError(error: Error): string {
  const message = error.message
  const unknown = /^Unknown option '([^']+)'/.exec(message)
  if (unknown) return `Unknown option ${unknown[1]}`
  const missing = /^Option '(--[\w-]+)(?: <value>)?' argument missing/.exec(message)
  if (missing) return `${missing[1]} needs a value`
  return message.split('. ')[0] ?? message
}

export function required(values: Values, name: keyof Values): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

/** A whole number option within [min, max]; absent stays undefined. */
export function wholeNumber(
  value: string | undefined,
  name: string,
  range: { min: number; max: number },
): number | undefined {
  if (value === undefined) return undefined
  const number = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(number) || number < range.min || number > range.max)
    throw new UsageError(
      `--${name} must be a whole number from ${range.min.toLocaleString('en-US')} to ${range.max.toLocaleString('en-US')} (got ${JSON.stringify(value)})`,
    )
  return number
}

/** The largest number of credits one command grants (a typo of extra digits is refused, not granted). */
export const MAX_CREDITS = 1_000_000_000
