import { newId } from '../src/lib/ids.js'
import type { Store } from '../src/store/db.js'
import type { PostRow, TargetRow } from '../src/store/posts.js'

/** Writes `count` scheduled one-target posts straight into the store, in batches. */
export async function seedScheduledPosts(
  store: Store,
  input: {
    workspaceId: string
    authorId: string
    connectionId: string
    count: number
    runAt?: (i: number) => number
    status?: string
  },
): Promise<void> {
  const now = Date.now()
  for (let start = 0; start < input.count; start += 1000) {
    await store.db.transaction().execute(async (tx) => {
      const posts: PostRow[] = []
      const targets: TargetRow[] = []
      for (let i = start; i < Math.min(input.count, start + 1000); i++) {
        const postId = newId(now)
        const runAt = input.runAt?.(i) ?? Date.UTC(2035, 0, 1)
        posts.push({
          id: postId,
          workspace_id: input.workspaceId,
          author_id: input.authorId,
          content: `bench post ${i}`,
          media_urls: '[]',
          youtube: null,
          variants: '{}',
          status: input.status ?? 'scheduled',
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
        targets.push({
          id: newId(now),
          post_id: postId,
          workspace_id: input.workspaceId,
          connection_id: input.connectionId,
          position: 0,
          platform: 'twitter',
          profile_id: 'bench-1',
          username: 'bench',
          content: `bench post ${i}`,
          media_urls: '[]',
          youtube: null,
          status: 'pending',
          run_at: runAt,
          lease_owner: null,
          lease_expires_at: null,
          attempts: 0,
          remote_id: null,
          url: null,
          error: null,
          upload_error: null,
          stuck_at: null,
          published_at: null,
          created_at: now,
          updated_at: now,
        })
      }
      await tx.insertInto('posts').values(posts).execute()
      await tx.insertInto('targets').values(targets).execute()
    })
  }
}
