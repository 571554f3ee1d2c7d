/**
 * Where Herald finds a Mastodon instance and how it introduces itself there. An instance is any host a
 * person types: its address is made from the host by {@link MastodonSettings.instanceUrl} (the real
 * `https://<host>`, or a path of the simulator in sandbox mode), and every request to it goes through the
 * guarded client the registry hands the adapter.
 */
export interface MastodonSettings {
  /** The base URL of the instance at `host` (no trailing slash): `https://<host>` outside sandbox mode. */
  instanceUrl(host: string): string
  /** The name Herald registers under on each instance (shown on statuses as the app that posted them). */
  appName: string
  /** The web site registered with the app: the public address of this Herald. */
  website: string
  /** Instances on plain http, loopback or private addresses are accepted (the operator's allowance, sandbox). */
  allowPrivate: boolean
  /** Timeout of one ordinary call in ms (uploads get longer). Default 20000. */
  timeoutMs?: number
}

/**
 * The scopes Herald asks for: posting statuses and media, and `read` for the account, its statuses (the
 * lookups) and their counts. `profile` would be narrower but only instances from 4.3 on know it.
 */
export const MASTODON_SCOPES = ['read', 'write:statuses', 'write:media'] as const

/** Scopes registered with the app, a superset of what a sign-in asks for (the grant must be a subset). */
export const MASTODON_APP_SCOPES = MASTODON_SCOPES.join(' ')

/**
 * How long Mastodon remembers an `Idempotency-Key` (PostStatusService keeps it 3,600 s per account): a
 * status call sent again with the same key inside it answers the status the first call made.
 */
export const IDEMPOTENCY_WINDOW_MS = 3_600_000

/**
 * How much of the window Herald leaves unused: a repeat is sent only while the first call is at most
 * this much younger than the window, so the repeat reaches the instance before the key is forgotten.
 */
export const IDEMPOTENCY_MARGIN_MS = 5 * 60_000

/** The real instance at `host`. */
export const httpsInstance = (host: string) => `https://${host}`
