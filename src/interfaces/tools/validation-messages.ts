import type { z } from 'zod'

/**
 * Validation failures as people read them. Every validation error's `details` has one shape:
 * `[{ path, message }]`, where `path` is the field in dot notation (`targetAccounts.0.profileId`, or
 * `(body)` for the body itself) and `message` a sentence that names it ("content is required").
 */
export interface ValidationDetail {
  path: string
  message: string
}

type Issue = z.core.$ZodIssue

const kinds: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
}

const formats: Record<string, string> = {
  url: 'a URL',
  email: 'an e-mail address',
  datetime: 'an ISO 8601 date and time',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM)',
  uuid: 'a UUID',
}

const plural = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`

function sizeUnit(origin: string | undefined, n: number | bigint): string {
  if (origin === 'string') return plural(n, 'character', 'characters')
  if (origin === 'array' || origin === 'set') return plural(n, 'item', 'items')
  if (origin === 'file') return plural(n, 'byte', 'bytes')
  return String(n)
}

/** What is wrong with the value, as the end of a sentence whose subject is the field. */
function phrase(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type': {
      // zod leaves the input out of issues unless asked; its stock text still says what it received.
      if (/received undefined$/.test(issue.message)) return 'is required'
      return `must be ${kinds[issue.expected] ?? issue.expected}`
    }
    case 'too_small': {
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty'
      if (issue.origin === 'array' && Number(issue.minimum) === 1) return 'must hold at least one item'
      const bound = sizeUnit(issue.origin, issue.minimum)
      if (issue.origin === 'string' || issue.origin === 'array') return `must have at least ${bound}`
      return issue.inclusive ? `must be at least ${bound}` : `must be more than ${bound}`
    }
    case 'too_big': {
      const bound = sizeUnit(issue.origin, issue.maximum)
      if (issue.origin === 'string' || issue.origin === 'array') return `must have at most ${bound}`
      return issue.inclusive ? `must be at most ${bound}` : `must be less than ${bound}`
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
    case 'invalid_format':
      return `must be ${formats[issue.format] ?? `in ${issue.format} format`}`
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'an unknown field' : 'unknown fields'}: ${issue.keys.join(', ')}`
    case 'invalid_union':
      return 'does not match any accepted form'
    case 'invalid_key':
      return 'has a key that is not valid'
    case 'invalid_element':
      return 'has an element that is not valid'
    default:
      return 'is not valid'
  }
}

/** Messages zod writes itself begin with one of these; a schema's own message never does. */
const DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized key)/

/** A schema's own message is kept; zod's stock text is rewritten for people. */
function sentence(issue: Issue, path: string): string {
  const subject = path === '' ? 'The body' : path
  if (issue.message && !DEFAULT_MESSAGE.test(issue.message)) {
    // Schema messages are written as predicates ("must be an http(s) URL") or as whole sentences.
    return /^[a-z]/.test(issue.message) ? `${subject} ${issue.message}` : issue.message
  }
  return `${subject} ${phrase(issue)}`
}

export function validationDetails(error: z.ZodError): ValidationDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.')
    return { path: path || '(body)', message: sentence(issue, path) }
  })
}

/** One line for the error's `message`: the first problems, and how many more there are. */
export function validationSummary(details: readonly ValidationDetail[]): string {
  const shown = details.slice(0, 3).map((d) => d.message)
  const more = details.length - shown.length
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
}

/** The known name closest to `name` (edit distance), when one is close enough to be a likely typo. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase())
    if (!best || distance < best.distance) best = { name: candidate, distance }
  }
  return best && best.distance <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] as number
}
