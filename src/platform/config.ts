import fs from 'node:fs'
import { isIP } from 'node:net'
import path from 'node:path'
import { parseEnv } from 'node:util'
import { z } from 'zod'

/**
 * Every environment variable Herald reads, parsed once at boot. Nothing else in the codebase reads
 * `process.env`: the composition root calls {@link loadConfig} and passes the typed record down.
 * `docs/configuration.md` documents each entry; keep the two in step.
 */

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((value) => ['1', 'true', 'yes', 'on'].includes(value))

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)
const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback)
const optionalUrl = z.url({ protocol: /^https?$/ }).optional()

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql):\/\//, 'must be a postgres:// URL (unset means SQLite in the data folder)')
    .optional(),
  PUBLIC_BASE_URL: optionalUrl,
  HERALD_SECRET_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  HERALD_OLD_SECRET_KEYS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HERALD_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  HERALD_RATE_LIMIT_PER_MINUTE: positiveInt(600),
  HERALD_SANDBOX: flag.default(false),
  HERALD_ALLOW_PRIVATE_MEDIA: flag.default(false),
  HERALD_IMMEDIATE_WAIT_MS: nonNegativeInt(10_000),
  HERALD_IMAGE_API_URL: optionalUrl,
  HERALD_IMAGE_API_KEY: z.string().optional(),
  HERALD_IMAGE_API_MODEL: z.string().optional(),
  HERALD_MEDIA_CONNECT_TIMEOUT_MS: positiveInt(10_000),
  HERALD_MEDIA_FETCH_TIMEOUT_MS: positiveInt(300_000),
  HERALD_MEDIA_CACHE_MB: nonNegativeInt(2048),
  HERALD_MEDIA_CACHE_DIR: z.string().min(1).optional(),
  HERALD_MEDIA_RETENTION_HOURS: positiveInt(168),
  HERALD_MEDIA_SWEEP_MINUTES: positiveInt(60),
  HERALD_FFMPEG_PATH: z.string().optional(),
  HERALD_VIDEO_CONVERT_TIMEOUT_MS: positiveInt(600_000),
  HERALD_VIDEO_CONVERT_CONCURRENCY: positiveInt(2),
  HERALD_VIDEO_CONVERT_CPU_SECONDS: z.coerce.number().int().positive().optional(),
  HERALD_VIDEO_CONVERT_MEMORY_MB: positiveInt(4096),
  HERALD_WORKER_CONCURRENCY: positiveInt(16),
  HERALD_WORKER_BATCH: positiveInt(32),
  HERALD_WORKER_POLL_MS: positiveInt(250),
  HERALD_WORKER_LEASE_MS: positiveInt(30_000),
  HERALD_WORKER_GRACE_MS: nonNegativeInt(15_000),
  HERALD_UNKNOWN_OUTCOME_CHECK_MS: positiveInt(60_000),
  HERALD_DB_POOL_SIZE: positiveInt(20),
  HERALD_ALLOW_PRIVATE_WEBHOOKS: flag.default(false),
  HERALD_WEBHOOK_CONCURRENCY: positiveInt(64),
  HERALD_WEBHOOK_POLL_MS: positiveInt(200),
  HERALD_WEBHOOK_TIMEOUT_MS: positiveInt(15_000),
  HERALD_WEBHOOK_RETENTION_DAYS: positiveInt(30),
  HERALD_TWITTER_CLIENT_ID: z.string().optional(),
  HERALD_TWITTER_CLIENT_SECRET: z.string().optional(),
  HERALD_TWITTER_API_URL: z.url().default('https://api.x.com'),
  HERALD_TWITTER_AUTHORIZE_URL: z.url().default('https://x.com/i/oauth2/authorize'),
  HERALD_GOOGLE_CLIENT_ID: z.string().optional(),
  HERALD_GOOGLE_CLIENT_SECRET: z.string().optional(),
  HERALD_GOOGLE_AUTHORIZE_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  HERALD_GOOGLE_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),
  HERALD_GOOGLE_REVOKE_URL: z.url().default('https://oauth2.googleapis.com/revoke'),
  HERALD_YOUTUBE_API_URL: z.url().default('https://www.googleapis.com'),
  HERALD_YOUTUBE_DAILY_QUOTA: positiveInt(10_000),
  HERALD_YOUTUBE_UPLOAD_UNITS: positiveInt(1_600),
  HERALD_META_APP_ID: z.string().optional(),
  HERALD_META_APP_SECRET: z.string().optional(),
  HERALD_META_GRAPH_VERSION: z
    .string()
    .regex(/^v\d{2,3}\.0$/, 'a Graph API version such as v25.0')
    .default('v25.0'),
  HERALD_META_GRAPH_URL: z.url().default('https://graph.facebook.com'),
  HERALD_FACEBOOK_DIALOG_URL: z.url().default('https://www.facebook.com'),
  HERALD_INSTAGRAM_APP_ID: z.string().optional(),
  HERALD_INSTAGRAM_APP_SECRET: z.string().optional(),
  HERALD_INSTAGRAM_GRAPH_URL: z.url().default('https://graph.instagram.com'),
  HERALD_INSTAGRAM_AUTHORIZE_URL: z.url().default('https://www.instagram.com/oauth/authorize'),
  HERALD_INSTAGRAM_TOKEN_URL: z.url().default('https://api.instagram.com/oauth/access_token'),
  HERALD_BLUESKY_SERVICE_URL: z.url().optional(),
  HERALD_THREADS_APP_ID: z.string().optional(),
  HERALD_THREADS_APP_SECRET: z.string().optional(),
  HERALD_THREADS_GRAPH_URL: z.url().default('https://graph.threads.net'),
  HERALD_THREADS_AUTHORIZE_URL: z.url().default('https://threads.net/oauth/authorize'),
  HERALD_PINTEREST_APP_ID: z.string().optional(),
  HERALD_PINTEREST_APP_SECRET: z.string().optional(),
  HERALD_PINTEREST_API_URL: z.url().default('https://api.pinterest.com/v5'),
  HERALD_PINTEREST_AUTHORIZE_URL: z.url().default('https://www.pinterest.com/oauth/'),
  HERALD_LINKEDIN_CLIENT_ID: z.string().optional(),
  HERALD_LINKEDIN_CLIENT_SECRET: z.string().optional(),
  HERALD_LINKEDIN_VERSION: z
    .string()
    .regex(/^\d{6}$/, 'a LinkedIn API version such as 202608 (YYYYMM)')
    .default('202608'),
  HERALD_LINKEDIN_COMMUNITY_MANAGEMENT: flag.default(false),
  HERALD_LINKEDIN_AUTHORIZE_URL: z.url().default('https://www.linkedin.com/oauth/v2/authorization'),
  HERALD_LINKEDIN_TOKEN_URL: z.url().default('https://www.linkedin.com/oauth/v2/accessToken'),
  HERALD_LINKEDIN_API_URL: z.url().default('https://api.linkedin.com'),
  HERALD_BLUESKY_PLC_URL: z.url().default('https://plc.directory'),
  HERALD_TIKTOK_CLIENT_KEY: z.string().optional(),
  HERALD_TIKTOK_CLIENT_SECRET: z.string().optional(),
  HERALD_TIKTOK_APP_AUDITED: flag.default(false),
  HERALD_TIKTOK_AUTHORIZE_URL: z.url().default('https://www.tiktok.com/v2/auth/authorize/'),
  HERALD_TIKTOK_API_URL: z.url().default('https://open.tiktokapis.com'),
  HERALD_BLUESKY_ALLOW_LOCAL_PDS: flag.default(false),
  HERALD_GOOGLE_BUSINESS_CLIENT_ID: z.string().optional(),
  HERALD_GOOGLE_BUSINESS_CLIENT_SECRET: z.string().optional(),
  HERALD_GOOGLE_BUSINESS_POSTS_URL: z.url().default('https://mybusiness.googleapis.com'),
  HERALD_GOOGLE_BUSINESS_ACCOUNTS_URL: z.url().default('https://mybusinessaccountmanagement.googleapis.com'),
  HERALD_GOOGLE_BUSINESS_LOCATIONS_URL: z
    .url()
    .default('https://mybusinessbusinessinformation.googleapis.com'),
  HERALD_GOOGLE_BUSINESS_PERFORMANCE_URL: z
    .url()
    .default('https://businessprofileperformance.googleapis.com'),
  HERALD_MASTODON_ALLOW_PRIVATE: flag.default(false),
  HERALD_MASTODON_APP_NAME: z.string().trim().min(1).max(60).default('Herald'),
  HERALD_MASTODON_TIMEOUT_MS: positiveInt(20_000),
  HERALD_SESSION_TTL_HOURS: positiveInt(12),
  HERALD_METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  HERALD_METRICS_LISTEN: z
    .string()
    .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9464')
    .optional(),
  HERALD_TRUST_PROXY: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || parseTrustProxy(value) !== undefined,
      'a hop count (e.g. 1), or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8), or off',
    ),
  HERALD_MCP_ALLOWED_ORIGINS: z.string().optional(),
  HERALD_MEDIA_STORAGE: z.enum(['local', 's3']).default('local'),
  HERALD_S3_BUCKET: z.string().optional(),
  HERALD_S3_REGION: z.string().default('us-east-1'),
  HERALD_S3_ENDPOINT: optionalUrl,
  HERALD_S3_ACCESS_KEY_ID: z.string().optional(),
  HERALD_S3_SECRET_ACCESS_KEY: z.string().optional(),
  // Networks that fetch by URL get a presigned GET this long; Instagram containers expire after 24 h.
  // SigV4 caps a presigned URL's lifetime at seven days.
  HERALD_S3_PRESIGN_SECONDS: z.coerce.number().int().min(60).max(604_800).default(86_400),
  HERALD_BACKUP_DIR: z.string().min(1).optional(),
  HERALD_BACKUP_EVERY: z
    .string()
    .refine(
      (value) => parseInterval(value) !== undefined,
      'an interval such as 24h, 6h, 30m or 7d (at least 1m), or off',
    )
    .optional(),
  HERALD_BACKUP_KEEP: positiveInt(7),
})

export type Role = 'api' | 'worker' | 'all'

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Postgres URL; undefined means the embedded SQLite file `<dataDir>/herald.sqlite`. */
  databaseUrl: string | undefined
  /** Postgres connections per process. */
  dbPoolSize: number
  /** Where clients and networks reach this service; defaults to `http://<host>:<port>`. */
  publicBaseUrl: string
  /** Token-vault key (32 bytes). Undefined: the composition root generates one into the data folder. */
  secretKey: Buffer | undefined
  /** Earlier vault keys still accepted for decryption while `secrets rotate` re-encrypts. */
  oldSecretKeys: Buffer[]
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL']
  /** `auto`: human-readable lines when stdout is a terminal, JSON otherwise. */
  logFormat: z.infer<typeof envSchema>['HERALD_LOG_FORMAT']
  rateLimitPerMinute: number
  sandbox: boolean
  allowPrivateMedia: boolean
  immediateWaitMs: number
  /** An OpenAI-compatible image API for generate_image; undefined means the offline card renderer. */
  imageApi: { url: string; key: string | undefined; model: string | undefined } | undefined
  /** Media URL fetching: connect timeout and whole-fetch timeout (redirects and body included), in ms. */
  mediaFetch: { connectTimeoutMs: number; totalTimeoutMs: number }
  /** The fetch-once cache of media URL bytes (src/modules/media/media-cache.ts); maxBytes 0 disables it. */
  mediaCache: { dir: string; maxBytes: number }
  /** Hosted media: kept this long after its last use, swept by the worker every `sweepIntervalMs`. */
  mediaRetention: { retentionMs: number; sweepIntervalMs: number }
  /**
   * Video conversion: the ffmpeg to use (undefined: the shipped one, else PATH; `none`: off), the time limit
   * of one conversion, and how many run at once per process.
   */
  videoConversion: {
    ffmpegPath: string | undefined
    timeoutMs: number
    concurrency: number
    /** ffmpeg's CPU-time limit; undefined: the timeout's seconds times the cores. */
    cpuSeconds?: number | undefined
    /** ffmpeg's address-space limit. */
    memoryMb: number
  }
  worker: {
    concurrency: number
    batch: number
    pollMs: number
    leaseMs: number
    graceMs: number
    /** How long after an unanswered publishing call Herald looks for the post on the network. */
    unknownOutcomeCheckMs: number
  }
  webhooks: {
    /** HERALD_ALLOW_PRIVATE_WEBHOOKS=1, or sandbox mode: receivers on loopback/private addresses allowed. */
    allowPrivate: boolean
    /** Deliveries in flight at once per worker process (default 64). */
    concurrency: number
    /** How often the outbox is read when nothing wakes the delivery loop (default 200 ms). */
    pollMs: number
    /** A 2xx within this time is a success (default 15 s). */
    timeoutMs: number
    /** Delivered and given-up deliveries, their attempts and events go after this (default 30 days). */
    retentionMs: number
  }
  /** App credentials and base URLs per network; HERALD_SANDBOX=1 points the base URLs at `src/sandbox/`. */
  networks: NetworkSettings
  /** Browser origins besides PUBLIC_BASE_URL's that may call `/mcp` (HERALD_MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins: string[]
  /** Dashboard sign-in: session lifetime, and Secure cookies when PUBLIC_BASE_URL is https. */
  dashboard: { sessionTtlMs: number; secureCookies: boolean }
  /**
   * Which `X-Forwarded-For` hops to believe (HERALD_TRUST_PROXY): false (default) uses the socket's address;
   * a number trusts that many proxies in front; a list trusts those addresses and CIDR ranges.
   */
  trustProxy: false | number | string[]
  /**
   * /metrics: on the public port only with a bearer token (HERALD_METRICS_TOKEN); on a listener of its own
   * with HERALD_METRICS_LISTEN (host and port). Neither: not served.
   */
  metrics: { token: string | undefined; listen: { host: string; port: number } | undefined }
  /**
   * Backups: where `herald backup` and the schedule write archives (HERALD_BACKUP_DIR, default
   * `<dataDir>/backups`), how often the workers take one (HERALD_BACKUP_EVERY; undefined: never on their
   * own), and how many scheduled archives are kept (HERALD_BACKUP_KEEP, default 7).
   */
  backups: { dir: string; everyMs: number | undefined; keep: number }
  media:
    | { driver: 'local'; dir: string }
    | {
        driver: 's3'
        bucket: string
        region: string
        endpoint: string | undefined
        accessKeyId: string | undefined
        secretAccessKey: string | undefined
        /** Lifetime of the presigned URLs handed to networks that fetch by URL (at most 7 days). */
        presignSeconds: number
      }
}

export interface NetworkSettings {
  twitter: {
    clientId: string | undefined
    clientSecret: string | undefined
    apiUrl: string
    authorizeUrl: string
  }
  youtube: {
    clientId: string | undefined
    clientSecret: string | undefined
    authorizeUrl: string
    tokenUrl: string
    /** Google's token revocation endpoint (HERALD_GOOGLE_REVOKE_URL), shared with Google Business Profile. */
    revokeUrl: string
    apiUrl: string
    dailyQuota: number
    uploadUnits: number
  }
  /** Facebook Pages and Instagram (Meta's Graph API); `version` is in every Graph path. */
  meta: {
    appId: string | undefined
    appSecret: string | undefined
    version: string
    graphUrl: string
    dialogUrl: string
    instagramAppId: string | undefined
    instagramAppSecret: string | undefined
    instagramGraphUrl: string
    instagramAuthorizeUrl: string
    instagramTokenUrl: string
  }
  /** Threads: the Threads app's own id and secret (not the Facebook app's) and graph.threads.net. */
  threads: {
    appId: string | undefined
    appSecret: string | undefined
    graphUrl: string
    authorizeUrl: string
  }
  /** LinkedIn: app credentials, the pinned `LinkedIn-Version`, and whether the app has Community Management. */
  linkedin: {
    clientId: string | undefined
    clientSecret: string | undefined
    version: string
    communityManagement: boolean
    authorizeUrl: string
    tokenUrl: string
    apiUrl: string
  }
  bluesky: {
    serviceUrl: string
    /** True when HERALD_BLUESKY_SERVICE_URL was set: in sandbox mode that PDS replaces the simulator. */
    configured: boolean
    /** The PLC directory for `did:plc` documents (HERALD_BLUESKY_PLC_URL). */
    plcUrl: string
    /** Accept a PDS on plain http or a private address (HERALD_BLUESKY_ALLOW_LOCAL_PDS; local demos, tests). */
    allowLocalPds: boolean
  }
  /**
   * Google Business Profile: its own Google OAuth app (a separate Cloud project is common: its API access is
   * granted on application), Google's sign-in endpoints (shared with YouTube), and the four API hosts.
   */
  googlebusiness: {
    clientId: string | undefined
    clientSecret: string | undefined
    authorizeUrl: string
    tokenUrl: string
    revokeUrl: string
    /** Local posts (My Business API v4). */
    postsUrl: string
    /** Accounts (Account Management API v1). */
    accountsUrl: string
    /** Locations (Business Information API v1). */
    locationsUrl: string
    /** Daily figures per location (Business Profile Performance API v1). */
    performanceUrl: string
  }
  /** TikTok: the app's client key and secret, whether TikTok audited it, and its two hosts. */
  tiktok: {
    clientKey: string | undefined
    clientSecret: string | undefined
    audited: boolean
    authorizeUrl: string
    apiUrl: string
  }
  /**
   * Pinterest: the app's id and secret and the API host (api.pinterest.com, or api-sandbox.pinterest.com
   * for an app with Trial access).
   */
  pinterest: {
    appId: string | undefined
    appSecret: string | undefined
    apiUrl: string
    authorizeUrl: string
  }
  /** Mastodon: any instance; Herald registers itself on each under `appName`. */
  mastodon: {
    /** Accept instances on loopback and private addresses (HERALD_MASTODON_ALLOW_PRIVATE; an instance on the LAN). */
    allowPrivate: boolean
    /** The name Herald registers under on each instance and statuses show (HERALD_MASTODON_APP_NAME). */
    appName: string
    /** How long one call to an instance may take before Herald stops waiting (HERALD_MASTODON_TIMEOUT_MS). */
    timeoutMs: number
  }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parses an environment record into a {@link Config}; throws {@link ConfigError} naming every bad value. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const e = parseEnvironment(env)
  if (e.HERALD_MEDIA_STORAGE === 's3' && !e.HERALD_S3_BUCKET) {
    throw new ConfigError('Invalid configuration:\n  HERALD_S3_BUCKET: required when HERALD_MEDIA_STORAGE=s3')
  }
  const dataDir = path.resolve(e.HERALD_DATA_DIR)
  const publicHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST
  // Normalised (scheme and host in lower case), so checks such as "served over https" hold however it was typed.
  const publicBaseUrl = (
    e.PUBLIC_BASE_URL ? new URL(e.PUBLIC_BASE_URL).href : `http://${publicHost}:${e.PORT}`
  ).replace(/\/+$/, '')
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    dbPoolSize: e.HERALD_DB_POOL_SIZE,
    publicBaseUrl,
    secretKey: e.HERALD_SECRET_KEY ? Buffer.from(e.HERALD_SECRET_KEY, 'base64') : undefined,
    oldSecretKeys: parseKeyList(e.HERALD_OLD_SECRET_KEYS),
    logLevel: e.LOG_LEVEL,
    logFormat: e.HERALD_LOG_FORMAT,
    rateLimitPerMinute: e.HERALD_RATE_LIMIT_PER_MINUTE,
    sandbox: e.HERALD_SANDBOX,
    allowPrivateMedia: e.HERALD_ALLOW_PRIVATE_MEDIA,
    immediateWaitMs: e.HERALD_IMMEDIATE_WAIT_MS,
    imageApi: e.HERALD_IMAGE_API_URL
      ? { url: e.HERALD_IMAGE_API_URL, key: e.HERALD_IMAGE_API_KEY, model: e.HERALD_IMAGE_API_MODEL }
      : undefined,
    mediaFetch: {
      connectTimeoutMs: e.HERALD_MEDIA_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: e.HERALD_MEDIA_FETCH_TIMEOUT_MS,
    },
    mediaCache: {
      dir: path.resolve(e.HERALD_MEDIA_CACHE_DIR ?? path.join(dataDir, 'media-cache')),
      maxBytes: e.HERALD_MEDIA_CACHE_MB * 1024 * 1024,
    },
    mediaRetention: {
      retentionMs: e.HERALD_MEDIA_RETENTION_HOURS * 3_600_000,
      sweepIntervalMs: e.HERALD_MEDIA_SWEEP_MINUTES * 60_000,
    },
    videoConversion: {
      ffmpegPath: e.HERALD_FFMPEG_PATH,
      timeoutMs: e.HERALD_VIDEO_CONVERT_TIMEOUT_MS,
      concurrency: e.HERALD_VIDEO_CONVERT_CONCURRENCY,
      ...(e.HERALD_VIDEO_CONVERT_CPU_SECONDS ? { cpuSeconds: e.HERALD_VIDEO_CONVERT_CPU_SECONDS } : {}),
      memoryMb: e.HERALD_VIDEO_CONVERT_MEMORY_MB,
    },
    worker: {
      concurrency: e.HERALD_WORKER_CONCURRENCY,
      batch: e.HERALD_WORKER_BATCH,
      pollMs: e.HERALD_WORKER_POLL_MS,
      leaseMs: e.HERALD_WORKER_LEASE_MS,
      graceMs: e.HERALD_WORKER_GRACE_MS,
      unknownOutcomeCheckMs: e.HERALD_UNKNOWN_OUTCOME_CHECK_MS,
    },
    webhooks: {
      allowPrivate: e.HERALD_ALLOW_PRIVATE_WEBHOOKS || e.HERALD_SANDBOX,
      concurrency: e.HERALD_WEBHOOK_CONCURRENCY,
      pollMs: e.HERALD_WEBHOOK_POLL_MS,
      timeoutMs: e.HERALD_WEBHOOK_TIMEOUT_MS,
      retentionMs: e.HERALD_WEBHOOK_RETENTION_DAYS * 86_400_000,
    },
    networks: networksOf(e),
    mcpAllowedOrigins: parseOrigins(e.HERALD_MCP_ALLOWED_ORIGINS),
    dashboard: {
      sessionTtlMs: e.HERALD_SESSION_TTL_HOURS * 3_600_000,
      secureCookies: publicBaseUrl.startsWith('https:'),
    },
    trustProxy: parseTrustProxy(e.HERALD_TRUST_PROXY ?? 'off') ?? false,
    metrics: {
      token: e.HERALD_METRICS_TOKEN,
      listen: e.HERALD_METRICS_LISTEN ? parseListen(e.HERALD_METRICS_LISTEN) : undefined,
    },
    media: mediaStorageOf(e, dataDir),
    backups: {
      dir: path.resolve(e.HERALD_BACKUP_DIR ?? path.join(dataDir, 'backups')),
      everyMs: e.HERALD_BACKUP_EVERY ? parseInterval(e.HERALD_BACKUP_EVERY) || undefined : undefined,
      keep: e.HERALD_BACKUP_KEEP,
    },
  }
}

const INTERVAL_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * An interval such as `24h`, `30m` or `7d` in milliseconds (at least a minute); `off` (or `0`) is 0;
 * undefined when malformed.
 */
export function parseInterval(value: string): number | undefined {
  const text = value.trim().toLowerCase()
  if (['off', '0', 'no', 'false'].includes(text)) return 0
  const match = /^(\d{1,6})\s*([mhd])$/.exec(text)
  if (!match) return undefined
  const ms = Number(match[1]) * (INTERVAL_UNITS[match[2] as string] as number)
  return ms >= 60_000 ? ms : undefined
}

type Env = z.output<typeof envSchema>

/** The set, non-empty variables checked against the schema; every bad value is named at once. */
function parseEnvironment(env: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = envSchema.safeParse(cleaned)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  return parsed.data
}

function networksOf(e: Env): Config['networks'] {
  return {
    twitter: {
      clientId: e.HERALD_TWITTER_CLIENT_ID,
      clientSecret: e.HERALD_TWITTER_CLIENT_SECRET,
      apiUrl: trimSlash(e.HERALD_TWITTER_API_URL),
      authorizeUrl: e.HERALD_TWITTER_AUTHORIZE_URL,
    },
    youtube: {
      clientId: e.HERALD_GOOGLE_CLIENT_ID,
      clientSecret: e.HERALD_GOOGLE_CLIENT_SECRET,
      authorizeUrl: e.HERALD_GOOGLE_AUTHORIZE_URL,
      tokenUrl: e.HERALD_GOOGLE_TOKEN_URL,
      revokeUrl: e.HERALD_GOOGLE_REVOKE_URL,
      apiUrl: trimSlash(e.HERALD_YOUTUBE_API_URL),
      dailyQuota: e.HERALD_YOUTUBE_DAILY_QUOTA,
      uploadUnits: e.HERALD_YOUTUBE_UPLOAD_UNITS,
    },
    meta: {
      appId: e.HERALD_META_APP_ID,
      appSecret: e.HERALD_META_APP_SECRET,
      version: e.HERALD_META_GRAPH_VERSION,
      graphUrl: trimSlash(e.HERALD_META_GRAPH_URL),
      dialogUrl: trimSlash(e.HERALD_FACEBOOK_DIALOG_URL),
      instagramAppId: e.HERALD_INSTAGRAM_APP_ID,
      instagramAppSecret: e.HERALD_INSTAGRAM_APP_SECRET,
      instagramGraphUrl: trimSlash(e.HERALD_INSTAGRAM_GRAPH_URL),
      instagramAuthorizeUrl: e.HERALD_INSTAGRAM_AUTHORIZE_URL,
      instagramTokenUrl: e.HERALD_INSTAGRAM_TOKEN_URL,
    },
    threads: {
      appId: e.HERALD_THREADS_APP_ID,
      appSecret: e.HERALD_THREADS_APP_SECRET,
      graphUrl: trimSlash(e.HERALD_THREADS_GRAPH_URL),
      authorizeUrl: e.HERALD_THREADS_AUTHORIZE_URL,
    },
    linkedin: {
      clientId: e.HERALD_LINKEDIN_CLIENT_ID,
      clientSecret: e.HERALD_LINKEDIN_CLIENT_SECRET,
      version: e.HERALD_LINKEDIN_VERSION,
      communityManagement: e.HERALD_LINKEDIN_COMMUNITY_MANAGEMENT,
      authorizeUrl: e.HERALD_LINKEDIN_AUTHORIZE_URL,
      tokenUrl: e.HERALD_LINKEDIN_TOKEN_URL,
      apiUrl: trimSlash(e.HERALD_LINKEDIN_API_URL),
    },
    bluesky: {
      serviceUrl: trimSlash(e.HERALD_BLUESKY_SERVICE_URL ?? 'https://bsky.social'),
      configured: e.HERALD_BLUESKY_SERVICE_URL !== undefined,
      plcUrl: trimSlash(e.HERALD_BLUESKY_PLC_URL),
      allowLocalPds: e.HERALD_BLUESKY_ALLOW_LOCAL_PDS,
    },
    googlebusiness: {
      clientId: e.HERALD_GOOGLE_BUSINESS_CLIENT_ID,
      clientSecret: e.HERALD_GOOGLE_BUSINESS_CLIENT_SECRET,
      authorizeUrl: e.HERALD_GOOGLE_AUTHORIZE_URL,
      tokenUrl: e.HERALD_GOOGLE_TOKEN_URL,
      revokeUrl: e.HERALD_GOOGLE_REVOKE_URL,
      postsUrl: trimSlash(e.HERALD_GOOGLE_BUSINESS_POSTS_URL),
      accountsUrl: trimSlash(e.HERALD_GOOGLE_BUSINESS_ACCOUNTS_URL),
      locationsUrl: trimSlash(e.HERALD_GOOGLE_BUSINESS_LOCATIONS_URL),
      performanceUrl: trimSlash(e.HERALD_GOOGLE_BUSINESS_PERFORMANCE_URL),
    },
    tiktok: {
      clientKey: e.HERALD_TIKTOK_CLIENT_KEY,
      clientSecret: e.HERALD_TIKTOK_CLIENT_SECRET,
      audited: e.HERALD_TIKTOK_APP_AUDITED,
      authorizeUrl: e.HERALD_TIKTOK_AUTHORIZE_URL,
      apiUrl: trimSlash(e.HERALD_TIKTOK_API_URL),
    },
    pinterest: {
      appId: e.HERALD_PINTEREST_APP_ID,
      appSecret: e.HERALD_PINTEREST_APP_SECRET,
      apiUrl: trimSlash(e.HERALD_PINTEREST_API_URL),
      authorizeUrl: e.HERALD_PINTEREST_AUTHORIZE_URL,
    },
    mastodon: {
      allowPrivate: e.HERALD_MASTODON_ALLOW_PRIVATE,
      appName: e.HERALD_MASTODON_APP_NAME,
      timeoutMs: e.HERALD_MASTODON_TIMEOUT_MS,
    },
  }
}

function mediaStorageOf(e: Env, dataDir: string): Config['media'] {
  return e.HERALD_MEDIA_STORAGE === 's3'
    ? {
        driver: 's3',
        bucket: e.HERALD_S3_BUCKET as string,
        region: e.HERALD_S3_REGION,
        endpoint: e.HERALD_S3_ENDPOINT,
        accessKeyId: e.HERALD_S3_ACCESS_KEY_ID,
        secretAccessKey: e.HERALD_S3_SECRET_ACCESS_KEY,
        presignSeconds: e.HERALD_S3_PRESIGN_SECONDS,
      }
    : { driver: 'local', dir: path.join(dataDir, 'media') }
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

function parseOrigins(value: string | undefined): string[] {
  if (!value) return []
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      let origin: string | undefined
      try {
        origin = new URL(part).origin
      } catch {}
      if (!origin || origin === 'null')
        throw new ConfigError(
          `Invalid configuration:\n  HERALD_MCP_ALLOWED_ORIGINS: ${part} is not an origin such as https://app.example.com`,
        )
      return origin
    })
}

/**
 * HERALD_TRUST_PROXY: `off`/`false`/`0` (or unset) trusts no proxy; a whole number is how many proxies stand
 * in front; anything else is a comma-separated list of addresses and CIDR ranges. Undefined when malformed.
 */
export function parseTrustProxy(value: string): false | number | string[] | undefined {
  const text = value.trim().toLowerCase()
  if (['', 'off', 'false', 'no', '0'].includes(text)) return false
  if (/^\d+$/.test(text)) return Number(text) <= 32 ? Number(text) : undefined
  const entries = text.split(',').map((entry) => entry.trim())
  const valid = entries.every((entry) => {
    const [address, prefix, ...rest] = entry.split('/')
    const family = isIP(address ?? '')
    if (family === 0 || rest.length > 0) return false
    if (prefix === undefined) return true
    const bits = Number(prefix)
    return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128)
  })
  return valid ? entries : undefined
}

function parseListen(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':')
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(value.slice(at + 1)) }
}

function parseKeyList(value: string | undefined): Buffer[] {
  if (!value) return []
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const key = Buffer.from(part, 'base64')
      if (key.length !== 32)
        throw new ConfigError(
          'Invalid configuration:\n  HERALD_OLD_SECRET_KEYS: each key must be 32 bytes, base64-encoded',
        )
      return key
    })
}

/** The process environment, read here and only here. */
/**
 * The environment, over a `.env` file in the working directory when there is one (`HERALD_ENV_FILE` names
 * another): the server and the `herald` command read the same settings from the same place. A variable
 * set in the environment wins over the file.
 */
export function loadConfigFromProcess(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({ ...readEnvFile(process.env.HERALD_ENV_FILE ?? '.env'), ...process.env, ...overrides })
}

function readEnvFile(file: string): Record<string, string> {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return {}
  }
  return parseEnv(text) as Record<string, string>
}
