import type { ColumnType, Generated } from 'kysely'

/**
 * Table types for Kysely. Timestamps are UTC epoch milliseconds (bigint in Postgres, read back as numbers);
 * flags are 0/1 integers on both backends; lists and objects are JSON text. Ids are 24-hex strings.
 */

export interface UsersTable {
  id: string
  email: string
  name: string
  password_hash: string
  created_at: number
  /** 1 for the instance's administrator: the first person it ever had (migration 026). */
  is_admin: number
}

export interface WorkspacesTable {
  id: string
  name: string
  plan: string
  credit_balance: number
  created_at: number
  /** 1: posts by editors wait for an owner's approval (migration 014). */
  requires_approval?: number
  /** A charge that takes the balance below this sends credits.low (migration 012); null: never. */
  credits_low_threshold?: number | null
  /** When the onboarding checklist closed (its steps done, or dismissed by an owner); null while open (migration 026). */
  onboarding_closed_at?: number | null
}

/** A one-time setup code printed at start while the instance has no person, as its SHA-256 (migration 026). */
export interface SetupCodesTable {
  code_hash: string
  created_at: number
}

export interface MembershipsTable {
  workspace_id: string
  user_id: string
  role: 'owner' | 'editor'
  created_at: number
}

export interface ApiKeysTable {
  id: string
  user_id: string
  default_workspace_id: string
  name: string
  prefix: string
  key_hash: string
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

export interface CreditLedgerTable {
  id: string
  workspace_id: string
  delta: number
  reason: string
  reference: string | null
  balance_after: number
  created_at: number
}

export type ConnectionStatus = 'active' | 'needs_reconnect' | 'removed'

export interface ConnectionsTable {
  id: string
  workspace_id: string
  platform: string
  profile_id: string
  username: string
  name: string
  is_organization: number
  avatar_url: string | null
  /** The hosted copy of the profile's picture Herald serves (`media.id`); null when none (migration 028). */
  avatar_media_id?: string | null
  /** Vault ciphertext of the network credentials (JSON); never plaintext. */
  credentials: string
  scopes: string
  token_expires_at: number | null
  status: ConnectionStatus
  last_error: string | null
  /** Set from a network's rate-limit reset; the worker leaves this profile alone until then. */
  throttled_until: number | null
  /** While set in the future, one process is refreshing this connection's tokens (migration 006). */
  refreshing_until: number | null
  /** The authorisation end the last `account.expiring` warning was about, and its stage (migration 016). */
  expiring_notice_end?: number | null
  /** 1: the 7-day warning went out for `expiring_notice_end`; 2: the 1-day one did. */
  expiring_notice_stage?: number | null
  created_at: number
  updated_at: number
}

export interface PostsTable {
  id: string
  workspace_id: string
  author_id: string
  content: string
  media_urls: string
  youtube: string | null
  /** A Google Business Profile post's type and button as given (JSON, migration 033), or null. */
  googlebusiness?: string | null
  /** The `pinterest` object as given (JSON, migration 031); null when none was. */
  pinterest: string | null
  /** Copy per network or per `<platform>:<profileId>`, as given (JSON). */
  variants: string
  status: string
  schedule_date: string | null
  schedule_time: string | null
  timezone: string
  due_at: number | null
  publish_immediately: number
  attempts: number
  last_error: string
  created_at: number
  updated_at: number
  published_at: number | null
  /** Approval state (migration 014): null (never asked), `pending`, `approved` or `rejected`. */
  approval?: 'pending' | 'approved' | 'rejected' | null
  /** The owner's note on a rejection (kept when the post is sent back, until the next decision). */
  approval_note?: string | null
  /** Who approved or rejected it last, and when. */
  approval_by?: string | null
  approval_at?: number | null
  /** The create_post call whose one-off link surcharge this post still owes (paid once per call). */
  charge_group?: string | null
  /** 1 when the slot came from the profile's posting queue (`queue: true`). */
  from_queue?: number
  /** The thread and first comment as given for this post's profile (JSON), or null. */
  items?: string | null
  /**
   * The create_post call that made this post with its siblings, one per targeted profile, named by the
   * first of them's id (migration 027, which gave each older post its own id); read as the post's own id
   * when null.
   */
  compose_id?: string | null
  /** Alt text per image of the post's media, JSON keyed by media URL; null when none (migration 028). */
  media_alt_texts?: string | null
  /** What a TikTok post's poster chose, as given (JSON; migration 030), or null. */
  tiktok?: string | null
  /** The `mastodon` object as given (JSON: visibility, content warning, language), or null (migration 032). */
  mastodon?: string | null
}

export interface TargetsTable {
  id: string
  post_id: string
  workspace_id: string
  connection_id: string
  position: number
  platform: string
  profile_id: string
  username: string
  content: string
  media_urls: string
  youtube: string | null
  /** A googlebusiness target's post type and button as it goes out (JSON, migration 033), or null. */
  googlebusiness?: string | null
  /** A Pinterest target's title, link and cover as resolved for it (JSON, migration 031); null elsewhere. */
  pinterest: string | null
  /** A Mastodon target's options as resolved for its profile (JSON), or null (migration 032). */
  mastodon?: string | null
  status: string
  /** When the worker may claim it; null while out of the queue (draft, failed, settled). */
  run_at: number | null
  lease_owner: string | null
  lease_expires_at: number | null
  attempts: number
  remote_id: string | null
  url: string | null
  error: string | null
  upload_error: string | null
  stuck_at: number | null
  published_at: number | null
  /** JSON object an adapter recorded mid-attempt ({@link PublishRequest.progress}); null when none. */
  progress: string | null
  /** When the latest attempt began (epoch ms): an unknown outcome looks for posts made after it. */
  attempt_started_at: number | null
  /** Set while an unanswered publishing call is being looked up on the network (a check is queued). */
  unknown_outcome_at: number | null
  created_at: number
  updated_at: number
  /** 0 while its network price is still owed: a post waiting for approval is paid when it is approved. */
  paid?: number
  /**
   * The items delivered after the post (a thread, a first comment), JSON list of
   * `DeliveryItem`, each with its own status and remote id; null when there are none.
   */
  items?: string | null
  /** Lookups of the unknown outcome made so far (their own budget and backoff, not send attempts). */
  lookups?: number
  /** When the latest lookup could not ask the network; null once one answered. */
  lookup_failed_at?: number | null
  /** Why the target is stuck (a STUCK_REASONS code); null when it is not. */
  stuck_reason?: string | null
  /** Alt text per image this target sends, JSON keyed by media URL; null when none (migration 028). */
  media_alt_texts?: string | null
  /** What the TikTok target sends of its poster's choices (JSON; migration 030), or null. */
  tiktok?: string | null
}

export interface PostCountsTable {
  workspace_id: string
  status: string
  /** Postgres spreads each counter over up to 64 rows (see migration 001); SQLite uses 0. */
  shard: number
  n: number
}

export interface IdempotencyKeysTable {
  workspace_id: string
  key: string
  request_hash: string
  response: string
  created_at: number
}

export interface AnalyticsReadingsTable {
  id: string
  workspace_id: string
  kind: 'post' | 'profile'
  target_id: string | null
  connection_id: string
  fetched_at: number
  summary: string
  metrics: string
  window: string | null
  source: string
  error: string
  unavailable: number
}

export interface MediaTable {
  id: string
  workspace_id: string | null
  source_url: string | null
  sha256: string
  content_type: string
  size: number
  width: number | null
  height: number | null
  duration_ms: number | null
  storage_key: string
  name: string
  created_at: number
  /** The latest use (hosted, sent, or linked to a target); retention counts from here (migration 007). */
  last_used_at: number
}

/** Which target used which hosted copy: a copy stays while such a target is pending (migration 007). */
export interface MediaUsesTable {
  media_id: string
  target_id: string
  used_at: number
}

export interface OauthStatesTable {
  id: string
  workspace_id: string
  user_id: string
  platform: string
  code_verifier: string
  redirect_uri: string
  created_at: number
  expires_at: number
  used_at: number | null
  /** The Mastodon instance (host) a flow runs against (migration 032); null for every other network. */
  instance?: string | null
}

export interface SessionsTable {
  id: string
  user_id: string
  workspace_id: string
  csrf_token: string
  created_at: number
  expires_at: number
}

export interface QuotaUsageTable {
  key: string
  day: string
  units: number
}

/** A multi-profile grant waiting on the choose-profiles page (migration 005). */
/** An open invitation to a workspace (migration 010); deleted when accepted or declined. */
export interface InvitationsTable {
  id: string
  workspace_id: string
  /** Lowercased; the invitation reaches whoever signs in with this e-mail. */
  email: string
  role: 'owner' | 'editor'
  /** The user id of the owner who invited. */
  invited_by: string
  created_at: number
}

export interface PendingGrantsTable {
  id: string
  user_id: string
  workspace_id: string
  platform: string
  /** Vault-sealed JSON: the grant's profiles with their credentials, and the granted scopes. */
  sealed: string
  expires_at: number
  created_at: number
}

/** A profile's weekly posting times (migration 014): `slots` is JSON, `[{day: 1..7, time: 'HH:MM'}]`. */
export interface PostingQueuesTable {
  connection_id: string
  workspace_id: string
  timezone: string
  slots: string
  updated_at: number
}

/** The create_post calls whose one-off link surcharge was paid after approval (one row per call). */
export interface PaidSurchargesTable {
  charge_group: string
  workspace_id: string
  post_id: string
  paid_at: number
}

/** A CSV row imported once: its key (a hash of what it asks for) and the posts it made. */
export interface ImportRowsTable {
  workspace_id: string
  row_key: string
  /** JSON array of post ids. */
  post_ids: string
  created_at: number
}

/** A CSV file uploaded in the dashboard, waiting between its check and its import. */
export interface CsvUploadsTable {
  id: string
  workspace_id: string
  user_id: string
  file_name: string
  body: string
  created_at: number
}

/** oidc-provider's artifacts, keyed by the SHA-256 of their id (migration 011; src/modules/oauth-server/adapter.ts). */
export interface OauthArtifactsTable {
  /** The library's model name: AccessToken, RefreshToken, AuthorizationCode, Grant, Client, Interaction… */
  model: string
  id_hash: string
  /** JSON, without the id itself. */
  payload: string
  grant_id: string | null
  uid: string | null
  consumed_at: number | null
  expires_at: number | null
}

/** A person's authorization of an app (an OAuth grant): what the AI Integration page lists as connected apps. */
export interface OauthGrantsTable {
  /** The library's grant id. */
  id: string
  user_id: string
  /** The workspace chosen on the consent page: every token of the grant acts there only. */
  workspace_id: string
  client_id: string
  client_name: string
  /** Host of the redirect URI the app was sent back to. */
  redirect_host: string
  /** 1 for a dynamically registered client (shown as unverified), 0 for a client ID metadata document. */
  registered: number
  /** Space-separated. */
  scopes: string
  created_at: number
  first_used_at: number | null
  last_used_at: number | null
  revoked_at: number | null
}

export interface Database {
  users: UsersTable
  workspaces: WorkspacesTable
  setup_codes: SetupCodesTable
  memberships: MembershipsTable
  api_keys: ApiKeysTable
  credit_ledger: CreditLedgerTable
  connections: ConnectionsTable
  posts: PostsTable
  targets: TargetsTable
  post_counts: PostCountsTable
  idempotency_keys: IdempotencyKeysTable
  analytics_readings: AnalyticsReadingsTable
  media: MediaTable
  media_uses: MediaUsesTable
  oauth_states: OauthStatesTable
  sessions: SessionsTable
  quota_usage: QuotaUsageTable
  pending_grants: PendingGrantsTable
  invitations: InvitationsTable
  oauth_artifacts: OauthArtifactsTable
  oauth_grants: OauthGrantsTable
  posting_queues: PostingQueuesTable
  paid_surcharges: PaidSurchargesTable
  import_rows: ImportRowsTable
  csv_uploads: CsvUploadsTable
  events: EventsTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
  network_apps: NetworkAppsTable
  target_history: TargetHistoryTable
  mastodon_instances: MastodonInstancesTable
  backup_runs: BackupRunsTable
}

/**
 * What happened to a target, one row per change that moved it on (migration 029), written in that change's
 * transaction; the kinds and results are `src/core/target-history.ts`'s.
 */
export interface TargetHistoryTable {
  id: string
  target_id: string
  /** When the change was written (epoch ms). */
  at: number
  kind: string
  result: string
  /** For an attempt: 1 when it made a publishing call to the network; null for other kinds. */
  sent: number | null
  /** The error or reason in the network's or Herald's words; null when there is none. */
  detail: string | null
}

/**
 * A Mastodon instance Herald has read or registered on (migration 032; `id` is its host): what it read
 * (`info`, JSON) and Herald's app there, its secret a vault ciphertext bound to this row and column.
 */
export interface MastodonInstancesTable {
  id: string
  info: string
  info_read_at: number
  client_id: string | null
  client_secret: string | null
  redirect_uri: string | null
  scopes: string | null
  registered_at: number | null
}

/** The outbox (migration 012): one row per event, written in the transaction of the change it reports. */
export interface EventsTable {
  seq: Generated<number>
  id: string
  workspace_id: string
  type: string
  /** The post id for post and target events: their deliveries to one endpoint keep this order. */
  order_key: string | null
  /** The JSON body sent to receivers; empty when `snapshot` holds what it is rendered from. */
  payload: string
  /**
   * The rows a settle's event reports, as its statement left them (JSON), when the body is rendered at
   * delivery (migration 019); or `@` and the id of the event written by the same statement that holds
   * them (a post event refers to its target event's snapshot); null otherwise.
   */
  snapshot: ColumnType<string | null, string | null | undefined, string | null>
  /** 1 once a delivery row exists for every endpoint subscribed when it was fanned out. */
  fanned_out: number
  created_at: number
}

export interface WebhookEndpointsTable {
  id: string
  workspace_id: string
  url: string
  description: string
  /** JSON array of event types; [] means every type. */
  event_types: string
  enabled: number
  /** `whsec_…`, sealed by the vault. */
  secret: string
  /** The secret before the last rotation (sealed); also signs until `previous_secret_until`. */
  previous_secret: string | null
  previous_secret_until: number | null
  /** When the current run of failed attempts began; null after a success. */
  failing_since: number | null
  disabled_reason: string | null
  disabled_at: number | null
  created_at: number
  updated_at: number
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface WebhookDeliveriesTable {
  id: string
  event_seq: number
  event_id: string
  endpoint_id: string
  workspace_id: string
  order_key: string | null
  status: DeliveryStatus
  attempts: number
  next_attempt_at: number
  lease_owner: string | null
  lease_expires_at: number | null
  created_at: number
  delivered_at: number | null
}

export interface WebhookAttemptsTable {
  id: string
  delivery_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  attempted_at: number
  status_code: number | null
  latency_ms: number
  /** `delivered`, `failed` (will retry), `gave_up`, `gone` (410). */
  outcome: string
  response_excerpt: string
}

/** A developer app saved on the network apps page (migration 025); `id` is the network. */
export interface NetworkAppsTable {
  id: string
  client_id: string
  /** Vault ciphertext bound to (network_apps, client_secret, id); null for a public app. */
  client_secret: string | null
  /** JSON of the app's other registered facts, e.g. `{"communityManagement":true}` for LinkedIn. */
  options: string
  /** The administrator who saved it last. */
  updated_by: string | null
  updated_at: number
}

/** One backup Herald took (migration 034): by `herald backup` or on the schedule of HERALD_BACKUP_EVERY. */
export interface BackupRunsTable {
  id: string
  /** `command` (herald backup) or `schedule`. */
  trigger: string
  /** A scheduled run's period (start instant divided by the interval); null for a command's run. */
  period: number | null
  /** `running`, `succeeded` or `failed`. */
  status: string
  started_at: number
  finished_at?: number | null
  /** The archive written (absolute path); empty until it is. */
  file?: string
  bytes?: number
  /** Why it failed, in words; empty otherwise. */
  error?: string
}
