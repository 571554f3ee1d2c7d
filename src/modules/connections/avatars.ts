import type { Network } from '../../core/networks.js'
import type { Db } from '../../platform/db/db.js'
import { writeTransaction } from '../../platform/db/write-transaction.js'
import type { AppContext } from '../app-context.js'

/**
 * Profile pictures (docs/adr/0050-profile-pictures-kept-by-herald.md): at every connect and reconnect, the
 * picture the network names is fetched once through the guarded fetcher and kept as hosted media the
 * connection points to, so the dashboard shows it from Herald's own origin and never asks the network's
 * servers. A picture that cannot be had leaves the profile with its initials; the connect itself never fails
 * for it.
 */

export async function keepAvatar(
  app: Pick<AppContext, 'media' | 'store' | 'logger'>,
  connection: { id: string; workspaceId: string; network: Network; avatarUrl: string | undefined },
): Promise<void> {
  const { db } = app.store
  const log = app.logger.child({
    subsystem: 'connect',
    network: connection.network,
    connectionId: connection.id,
  })
  if (!connection.avatarUrl) {
    await db
      .updateTable('connections')
      .set({ avatar_media_id: null })
      .where('id', '=', connection.id)
      .execute()
    return
  }
  let staged: Awaited<ReturnType<AppContext['media']['hostPicture']>>
  try {
    staged = await app.media.hostPicture(connection.avatarUrl, { workspaceId: connection.workspaceId })
  } catch (error) {
    // The address may carry a signature: only why it failed is logged.
    log.warn(
      { reason: (error as Error).message },
      'the profile picture could not be kept; initials are shown',
    )
    return
  }
  try {
    await writeTransaction(app.store, async (tx) => {
      await staged.commit(tx)
      await tx
        .updateTable('connections')
        .set({ avatar_media_id: staged.record.id })
        .where('id', '=', connection.id)
        .execute()
    })
  } catch (error) {
    await staged.discard()
    log.warn({ err: error }, 'the profile picture could not be recorded; initials are shown')
  }
}

/** Herald's path of each profile's kept picture in a workspace, by `<platform>:<profileId>`. */
export async function avatarPaths(db: Db, workspaceId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('connections as c')
    .innerJoin('media as m', 'm.id', 'c.avatar_media_id')
    .select(['c.platform', 'c.profile_id', 'm.id', 'm.name'])
    .where('c.workspace_id', '=', workspaceId)
    .where('c.status', '!=', 'removed')
    .execute()
  return new Map(
    rows.map((row) => [
      `${row.platform}:${row.profile_id}`,
      `/media/${row.id}/${encodeURIComponent(row.name)}`,
    ]),
  )
}
