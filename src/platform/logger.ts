import { createRequire } from 'node:module'
import { type DestinationStream, type Logger, pino } from 'pino'

export type { Logger }

/** Paths pino blanks out wherever they appear: keys, tokens, cookies and passwords never reach a log line. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'credentials',
  '*.credentials',
]

const REDACTED = '[Redacted]'

/** Field names whose values are secrets at any depth (the paths above reach only two levels). */
const SECRET_KEY =
  /^(authorization|cookie|set-cookie|x-api-key|api_?key|password|secret|client_?secret|credentials|(access|refresh|id|session|bearer)_?token|token|code_?verifier|app_?password)$/i

/** Secret-shaped text inside strings: Herald API keys, bearer headers, tokens in URLs and form bodies. */
const SECRET_TEXT: Array<[RegExp, string]> = [
  [/\bhk_[A-Za-z0-9_-]{6,}/g, `hk_${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  [
    /([?&#]|\b)((?:apikey|api_key|code|state|access_token|refresh_token|client_secret|code_verifier|password|csrf|sessionId|session_id)=)[^&#\s"']*/gi,
    `$1$2${REDACTED}`,
  ],
]

export function scrubText(text: string): string {
  let out = text
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement)
  return out
}

/** Strips `apikey` and OAuth `code`/`state` values from a URL before it is logged. */
export function redactUrl(url: string): string {
  return scrubText(url)
}

/**
 * The last line of defence, run on every log record: secret-named fields at any depth are blanked and
 * secret-shaped text in any string is masked. Bounded in depth and breadth so a large object cannot
 * stall the logger.
 */
export function scrubSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value)
  if (value === null || typeof value !== 'object' || depth > 6) return value
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrubText(value.message),
      ...(value.stack ? { stack: scrubText(value.stack) } : {}),
    }
  }
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => scrubSecrets(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    out[key] =
      SECRET_KEY.test(key) && field !== undefined && field !== null
        ? REDACTED
        : scrubSecrets(field, depth + 1)
  }
  return out
}

/** Messages being logged by {@link logDeliberately} at this moment: the one call that skips the text scrub. */
const deliberate = new Set<string>()

/**
 * Logs one message at info without masking the secret it holds, for the rare line whose whole point is to
 * hand the operator a secret (the setup page's one-time code at start). Its fields are scrubbed as usual.
 */
export function logDeliberately(logger: Logger, fields: Record<string, unknown>, message: string) {
  deliberate.add(message)
  try {
    logger.info(fields, message)
  } finally {
    deliberate.delete(message)
  }
}

export interface LoggerOptions {
  /** Human-readable lines (for a terminal) instead of JSON. */
  pretty?: boolean
}

/** pino-pretty, loaded only for a terminal: a JSON logger (the service, a CLI command) never pays for it. */
const loadPretty = (): typeof import('pino-pretty') => createRequire(import.meta.url)('pino-pretty')

export function createLogger(
  level: string,
  destination?: DestinationStream,
  options: LoggerOptions = {},
): Logger {
  const stream =
    destination ??
    (options.pretty
      ? loadPretty()({
          colorize: true,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname,service',
          singleLine: true,
          sync: true,
        })
      : undefined)
  return pino(
    {
      level,
      base: { service: 'herald' },
      redact: { paths: redactedPaths, censor: REDACTED },
      serializers: {
        req: (req: { method?: string; url?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url ? redactUrl(req.url) : undefined,
        }),
      },
      formatters: { log: (object) => scrubSecrets(object) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          // The message string (and any printf arguments) is scrubbed like every field.
          method.apply(
            this,
            args.map((arg) =>
              typeof arg === 'string' && !deliberate.has(arg) ? scrubText(arg) : arg,
            ) as Parameters<typeof method>,
          )
        },
      },
    },
    stream,
  )
}

/** The process's logger: JSON lines, or human-readable ones when `logFormat` asks (or stdout is a terminal). */
export function createProcessLogger(
  config: { logLevel: string; logFormat: 'auto' | 'json' | 'pretty' },
  level: string = config.logLevel,
): Logger {
  const pretty =
    config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true)
  return createLogger(level, undefined, { pretty })
}
