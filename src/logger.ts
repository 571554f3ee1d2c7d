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

/** Strips `apikey` and OAuth `code`/`state` values from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(
    /([?&](?:apikey|api_key|code|state|access_token|refresh_token)=)[^&#]*/gi,
    '$1[Redacted]',
  )
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'herald' },
      redact: { paths: redactedPaths, censor: '[Redacted]' },
      serializers: {
        req: (req: { method?: string; url?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url ? redactUrl(req.url) : undefined,
        }),
      },
    },
    destination,
  )
}
