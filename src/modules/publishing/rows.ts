import { type AltTexts, altTextsFor, storedAltTexts } from '../../core/alt-text.js'
import { type GoogleBusinessInput, resolveGoogleBusiness } from '../../core/googlebusiness-details.js'
import { type MastodonOptions, resolveMastodonOptions } from '../../core/mastodon-options.js'
import { type PinterestDetailsInput, resolvePinterestDetails } from '../../core/pinterest-details.js'
import type { ConnectionInfo, PlannedTarget } from '../../core/post-plan.js'
import { resolveCopy } from '../../core/post-plan.js'
import type { DeliveryItem } from '../../core/thread-items.js'
import type { TikTokDetailsInput } from '../../core/tiktok-rules.js'
import { resolveYouTubeDetails, type YouTubeDetailsInput } from '../../core/youtube-details.js'
import { compiledOnce } from '../../platform/db/compiled.js'
import type { Db } from '../../platform/db/db.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { newId } from '../../platform/ids.js'
import { hostOfProfile, instanceLimits } from '../connections/mastodon-instances.js'

const connectionInfoQuery = compiledOnce(1, (db: Db, workspaceId: string) =>
  db
    .selectFrom('connections')
    .select(['id', 'platform', 'profile_id', 'username', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'removed')
    .orderBy('platform')
    .orderBy('id'),
)

/**
 * The workspace's connections in the shape the planner reads; a Mastodon profile with its instance's
 * limits as Herald last read them.
 */
export async function loadConnectionInfos(db: Db, workspaceId: string): Promise<ConnectionInfo[]> {
  const { rows } = await connectionInfoQuery(db, workspaceId)
  const mastodon = rows
    .filter((row) => row.platform === 'mastodon')
    .map((row) => hostOfProfile(row.profile_id))
  const limits = mastodon.length > 0 ? await instanceLimits(db, mastodon) : new Map()
  return rows.map((row) => {
    const own = row.platform === 'mastodon' ? limits.get(hostOfProfile(row.profile_id)) : undefined
    return {
      id: row.id,
      platform: row.platform as ConnectionInfo['platform'],
      profileId: row.profile_id,
      username: row.username,
      status: row.status,
      ...(own ? { limits: own } : {}),
    }
  })
}

/** A queue row for one planned target. `runAt` null keeps it out of the queue (draft). */
export function targetRow(
  input: { postId: string; workspaceId: string; position: number; runAt: number | null; now: number },
  target: Pick<PlannedTarget, 'connection' | 'content' | 'mediaUrls' | 'youtube'> &
    Partial<
      Pick<PlannedTarget, 'items' | 'googlebusiness' | 'altTexts' | 'tiktok' | 'pinterest' | 'mastodon'>
    >,
): TargetRow {
  return {
    id: newId(input.now),
    post_id: input.postId,
    workspace_id: input.workspaceId,
    connection_id: target.connection.id,
    position: input.position,
    platform: target.connection.platform,
    profile_id: target.connection.profileId,
    username: target.connection.username,
    content: target.content,
    media_urls: JSON.stringify(target.mediaUrls),
    media_alt_texts: storedAltTexts(target.altTexts ?? {}),
    youtube: target.youtube ? JSON.stringify(target.youtube) : null,
    googlebusiness: target.googlebusiness ? JSON.stringify(target.googlebusiness) : null,
    tiktok: target.tiktok ? JSON.stringify(target.tiktok) : null,
    pinterest: target.pinterest ? JSON.stringify(target.pinterest) : null,
    mastodon: target.mastodon ? JSON.stringify(target.mastodon) : null,
    status: 'pending',
    run_at: input.runAt,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    remote_id: null,
    url: null,
    error: null,
    upload_error: null,
    stuck_at: null,
    published_at: null,
    progress: null,
    attempt_started_at: null,
    unknown_outcome_at: null,
    created_at: input.now,
    updated_at: input.now,
    items: target.items && target.items.length > 0 ? JSON.stringify(target.items) : null,
  }
}

/**
 * What a post's target sends, re-derived from the post's current copy, media and details. `ownCopy` is a
 * kept target's copy when no new content was sent: it may have come from its own targetAccounts entry,
 * which outranks the variants the post keeps.
 */
export function resolveForPost(
  connection: ConnectionInfo,
  post: {
    content: string
    mediaUrls: string[]
    variants: Record<string, string>
    youtube: YouTubeDetailsInput | undefined
    googlebusiness: GoogleBusinessInput | undefined
    /** The post's alt texts by media URL. */
    altTexts?: AltTexts
    tiktok?: TikTokDetailsInput | undefined
    pinterest?: PinterestDetailsInput | undefined
    mastodon?: MastodonOptions | undefined
  },
  ownCopy?: string,
  /** The target's thread items and first comment, whose images' alt texts it sends too. */
  items: readonly DeliveryItem[] = [],
) {
  const content = resolveCopy(connection, ownCopy, post.variants, post.content)
  return {
    connection,
    content,
    mediaUrls: post.mediaUrls,
    altTexts: altTextsFor([...post.mediaUrls, ...items.flatMap((i) => i.mediaUrls)], post.altTexts),
    youtube: connection.platform === 'youtube' ? resolveYouTubeDetails(content, post.youtube) : null,
    googlebusiness:
      connection.platform === 'googlebusiness' ? resolveGoogleBusiness(post.googlebusiness) : null,
    tiktok: connection.platform === 'tiktok' ? { ...post.tiktok } : null,
    pinterest: connection.platform === 'pinterest' ? resolvePinterestDetails(post.pinterest) : null,
    mastodon:
      connection.platform === 'mastodon' ? (resolveMastodonOptions(post.mastodon, undefined) ?? null) : null,
  }
}
