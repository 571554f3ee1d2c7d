import { PublishFailure } from '../../adapters/adapter.js'
import { callbackUrl } from '../../adapters/apps.js'
import type { InstanceApp, InstanceInfo, MastodonAdapter } from '../../adapters/mastodon/index.js'
import type { InstanceLimits } from '../../core/mastodon-options.js'
import { mastodonAppSecretAt, type Vault } from '../../platform/crypto/vault.js'
import type { Db } from '../../platform/db/db.js'
import {
  forgetInstanceApp,
  type MastodonInstanceRow,
  readInstanceRow,
  readInstanceRows,
  saveInstanceApp,
  saveInstanceInfo,
} from '../../platform/db/statements/mastodon-instances.js'
import type { AppContext } from '../app-context.js'

/**
 * What Herald keeps of each Mastodon instance: what it read there (limits, endpoints), refreshed on every
 * connect, and its own app, registered once per instance and registered again when the instance forgot it
 * or Herald's callback address changed. The app's secret is sealed by the vault, bound to its row.
 */

/** The instance's host a Mastodon connection names (`<account id>@<host>` is its profile id). */
export const hostOfProfile = (profileId: string) => profileId.slice(profileId.lastIndexOf('@') + 1)

const parseInfo = (row: MastodonInstanceRow | undefined): InstanceInfo | undefined => {
  if (!row) return undefined
  try {
    return JSON.parse(row.info) as InstanceInfo
  } catch {
    return undefined
  }
}

/** The limits each of these instances set, as last read there; an instance never read is absent. */
export async function instanceLimits(db: Db, hosts: readonly string[]): Promise<Map<string, InstanceLimits>> {
  const rows = await readInstanceRows(db, hosts)
  const limits = new Map<string, InstanceLimits>()
  for (const row of rows) {
    const info = parseInfo(row)
    if (info?.limits) limits.set(row.id, info.limits)
  }
  return limits
}

/** What Herald read of an instance last, and when; undefined when it never read it. */
export async function knownInstance(
  db: Db,
  host: string,
): Promise<{ info: InstanceInfo; readAt: number } | undefined> {
  const row = await readInstanceRow(db, host)
  const info = parseInfo(row)
  return info && row ? { info, readAt: Number(row.info_read_at) } : undefined
}

/** Reads the instance again and keeps what it says. */
export async function readInstance(
  app: AppContext,
  adapter: MastodonAdapter,
  host: string,
): Promise<InstanceInfo> {
  const info = await adapter.discover(host)
  await saveInstanceInfo(app.store.db, host, JSON.stringify(info), app.clock.now())
  return info
}

/**
 * Herald's app on an instance and where the instance takes revocations, for withdrawing a token there (the
 * Mastodon adapter's `revokeAccess` asks through the composition root); undefined when Herald holds no app
 * there any more.
 */
export async function revocationApp(
  deps: { db: Db; vault: Vault },
  host: string,
): Promise<{ revokePath: string; clientId: string; clientSecret: string } | undefined> {
  const row = await readInstanceRow(deps.db, host)
  if (!row?.client_id || !row.client_secret) return undefined
  return {
    revokePath: parseInfo(row)?.revokePath ?? '/oauth/revoke',
    clientId: row.client_id,
    clientSecret: deps.vault.open(mastodonAppSecretAt(host), row.client_secret),
  }
}

/** What Herald read of an instance is read again once it is this old. */
export const INSTANCE_INFO_TTL_MS = 24 * 3_600_000

/**
 * Reads again, in the background, the instances of these Mastodon profiles whose limits Herald read more
 * than a day ago (an instance may raise or lower them), so the next check holds them to the new figures.
 * Never waited for: a slow instance cannot slow the check that noticed it.
 */
export function refreshStaleInstances(
  app: AppContext,
  adapter: MastodonAdapter | undefined,
  hosts: readonly string[],
): void {
  if (!adapter || hosts.length === 0) return
  const now = app.clock.now()
  void readInstanceRows(app.store.db, hosts)
    .then((rows) =>
      Promise.all(
        rows
          .filter((row) => now - Number(row.info_read_at) > INSTANCE_INFO_TTL_MS)
          .map((row) => readInstance(app, adapter, row.id)),
      ),
    )
    .catch((error: unknown) =>
      app.logger.info(
        { subsystem: 'connect', err: (error as Error).message },
        'a mastodon instance could not be read again',
      ),
    )
}

/** Herald's app on the instance as stored, its secret opened; undefined when there is none to use. */
export async function storedApp(app: AppContext, host: string): Promise<InstanceApp | undefined> {
  const row = await readInstanceRow(app.store.db, host)
  if (!row?.client_id || !row.client_secret || !row.redirect_uri) return undefined
  return {
    clientId: row.client_id,
    clientSecret: app.vault.open(mastodonAppSecretAt(host), row.client_secret),
    redirectUri: row.redirect_uri,
    scopes: row.scopes ?? '',
  }
}

/**
 * Herald's app on the instance, ready for a sign-in: the stored one when the instance still knows it and
 * it names this Herald's callback, else a new registration, stored before it is used.
 */
export async function appFor(
  app: AppContext,
  adapter: MastodonAdapter,
  info: InstanceInfo,
): Promise<InstanceApp> {
  const redirectUri = callbackUrl(app.config, 'mastodon')
  const stored = await storedApp(app, info.host)
  if (stored && stored.redirectUri === redirectUri && (await adapter.checkApp(info, stored)) === 'known')
    return stored
  if (stored) app.logger.info({ subsystem: 'connect', instance: info.host }, 'mastodon app registered again')
  const made = await adapter.registerApp({ host: info.host, redirectUri })
  await saveInstanceApp(
    app.store.db,
    info.host,
    {
      clientId: made.clientId,
      sealedSecret: app.vault.seal(mastodonAppSecretAt(info.host), made.clientSecret),
      redirectUri: made.redirectUri,
      scopes: made.scopes,
    },
    app.clock.now(),
  )
  return made
}

/** Forgets an app the instance refused, so the next connect registers Herald there again. */
export async function forgetApp(app: AppContext, host: string, stale: InstanceApp): Promise<void> {
  await forgetInstanceApp(app.store.db, host, stale.clientId)
}

/** True when the instance refused the app itself (OAuth's `invalid_client`): it no longer knows it. */
export const refusedClient = (error: unknown) =>
  error instanceof PublishFailure && error.options.code === 'invalid_client'
