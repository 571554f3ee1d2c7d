import type { VNode } from 'preact'
import { isNetwork } from '../../core/networks.js'
import type { Db } from '../../platform/db/db.js'
import { networkLabels } from './html.js'
import { handleOf } from './ui/avatar.js'

/**
 * The credit ledger in a manager's words: each movement says what was done ("Scheduled a post to 3
 * profiles", "Added 500 credits"), and a charge for posts links to each of them by its profile, under the
 * first words of its copy, instead of the reason code and the ids the ledger stores.
 */

export interface LedgerRow {
  delta: number | string
  reason: string
  reference: string | null
  balance_after: number | string
  created_at: number | string
}

interface PostLine {
  id: string
  content: string
  publishNow: boolean
  profiles: Array<{ platform: string; username: string }>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** What each kind of post charge did, given how many profiles it reached and whether it went out at once. */
const POST_CHARGES: Record<string, (profiles: number, now: boolean) => string> = {
  create_post: (n, now) => `${now ? 'Published' : 'Scheduled'} a post to ${plural(n, 'profile')}`,
  approval: (n) => `Approved a post to ${plural(n, 'profile')}`,
  publish_post_now: () => 'Published a post now instead of at its time',
  update_post_targets: () => 'Added profiles to a post',
  reschedule_post: () => 'Moved a post to another time',
  post_analytics: () => "Read a post's figures from the networks",
}

/** Movements that are not about a post. */
function otherWords(row: LedgerRow): string {
  const delta = Number(row.delta)
  switch (row.reason) {
    case 'top_up':
      return `Added ${plural(delta, 'credit')}`
    case 'workspace_created':
    case 'bootstrap':
      return `Started with ${plural(delta, 'credit')}`
    case 'profile_analytics':
      return "Read a profile's figures from its network"
    case 'generate_image':
      return 'Made an image with AI'
    default:
      return delta > 0 ? `Added ${plural(delta, 'credit')}` : `Spent ${plural(-delta, 'credit')}`
  }
}

/** The ids of the posts a movement was for (a create_post charge names every post it made). */
const postIdsOf = (row: LedgerRow) =>
  row.reference && row.reason in POST_CHARGES ? row.reference.split(',').filter(Boolean) : []

/** The posts the movements name, with their copy and profiles, read in two queries. */
export async function postsOfLedger(db: Db, workspaceId: string, rows: LedgerRow[]) {
  const ids = [...new Set(rows.flatMap(postIdsOf))]
  const posts = new Map<string, PostLine>()
  if (ids.length === 0) return posts
  const [found, targets] = await Promise.all([
    db
      .selectFrom('posts')
      .select(['id', 'content', 'publish_immediately'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', ids)
      .execute(),
    db
      .selectFrom('targets')
      .select(['post_id', 'platform', 'username'])
      .where('workspace_id', '=', workspaceId)
      .where('post_id', 'in', ids)
      .orderBy('position')
      .execute(),
  ])
  for (const p of found)
    posts.set(p.id, {
      id: p.id,
      content: p.content,
      publishNow: Number(p.publish_immediately) === 1,
      profiles: [],
    })
  for (const t of targets) posts.get(t.post_id)?.profiles.push(t)
  return posts
}

/** The first words of a post's copy, for a link's text. */
function excerpt(content: string) {
  const line = content.trim().split('\n')[0] ?? ''
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line || 'A post without copy'
}

const profileWords = (p: { platform: string; username: string }) =>
  `${isNetwork(p.platform) ? networkLabels[p.platform] : p.platform} ${handleOf(p.username)}`

/** The movement as a sentence, and the links to the posts it was for. */
export function ledgerLine(
  row: LedgerRow,
  posts: Map<string, PostLine>,
): { words: string; links: VNode | null } {
  const named = postIdsOf(row)
    .map((id) => posts.get(id))
    .filter((p): p is PostLine => p !== undefined)
  const describe = POST_CHARGES[row.reason]
  if (!describe) return { words: otherWords(row), links: null }
  const profiles = named.reduce((n, p) => n + Math.max(p.profiles.length, 1), 0)
  const words = describe(
    Math.max(profiles, 1),
    named.some((p) => p.publishNow),
  )
  const first = named[0]
  if (!first) return { words, links: <span class="muted">The post was deleted.</span> }
  // One compose makes one post per profile: the copy names the compose, each profile links to its post.
  const each = named.flatMap((p) =>
    (p.profiles.length ? p.profiles : [{ platform: '', username: '' }]).map((pr) => (
      <a href={`/posts/${encodeURIComponent(p.id)}`}>{pr.platform ? profileWords(pr) : 'the post'}</a>
    )),
  )
  return {
    words,
    links: (
      <>
        <span class="ledger-copy">“{excerpt(first.content)}”</span>{' '}
        <span class="ledger-posts">{each.flatMap((link, i) => (i === 0 ? [link] : [', ', link]))}</span>
      </>
    ),
  }
}
