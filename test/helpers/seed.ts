import { targetRow } from '../../src/modules/publishing/rows.js'
import type { Store } from '../../src/platform/db/db.js'
import type { PostRow, TargetRow } from '../../src/platform/db/statements/posts.js'
import { newId } from '../../src/platform/ids.js'

export interface SeedInput {
  workspaceId: string
  authorId: string
  connectionId: string
  count: number
  /** The profile the connection is (targets carry it). */
  profile?: { platform: 'twitter'; profileId: string; username: string }
  /** Due instant of the i-th post (default 2035-01-01). */
  runAt?: (i: number) => number
  contentOf?: (i: number) => string
}

/**
 * Writes `count` scheduled one-target posts straight into the store in batches of 1,000 (load tests and
 * benchmarks; the API is not what they measure). Returns the post ids in order.
 */
export async function seedScheduledPosts(store: Store, input: SeedInput): Promise<string[]> {
  const ids: string[] = []
  const now = Date.now()
  const profile = input.profile ?? { platform: 'twitter', profileId: 'tw-1', username: 'acme' }
  const connection = { id: input.connectionId, ...profile, status: 'active' as const }
  for (let start = 0; start < input.count; start += 1000) {
    await store.db.transaction().execute(async (tx) => {
      const posts: PostRow[] = []
      const targets: TargetRow[] = []
      for (let i = start; i < Math.min(input.count, start + 1000); i++) {
        const postId = newId(now)
        const content = input.contentOf?.(i) ?? `seeded post ${i}`
        const runAt = input.runAt?.(i) ?? Date.UTC(2035, 0, 1)
        posts.push({
          id: postId,
          workspace_id: input.workspaceId,
          author_id: input.authorId,
          content,
          media_urls: '[]',
          youtube: null,
          pinterest: null,
          variants: '{}',
          status: 'scheduled',
          schedule_date: '2035-01-01',
          schedule_time: '00:00',
          timezone: 'UTC',
          due_at: runAt,
          publish_immediately: 0,
          attempts: 0,
          last_error: '',
          created_at: now,
          updated_at: now,
          published_at: null,
        })
        targets.push(
          targetRow(
            { postId, workspaceId: input.workspaceId, position: 0, runAt, now },
            { connection, content, mediaUrls: [], youtube: null, pinterest: null },
          ),
        )
        ids.push(postId)
      }
      // Each seeded post is its own compose, as create_post's single-profile posts are.
      await tx
        .insertInto('posts')
        .values(posts.map((post) => ({ ...post, compose_id: post.id })))
        .execute()
      await tx.insertInto('targets').values(targets).execute()
    })
  }
  return ids
}
