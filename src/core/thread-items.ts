import { looksLikeVideo, networkRules } from './network-rules.js'
import type { Network } from './networks.js'
import { containsLink, lengthOn } from './text-length.js'

/**
 * Threads of posts and first comments (docs/adr/0017-threads-and-first-comments.md): what follows a target's
 * own post on its network, each item delivered once, in order, after the post it answers. A thread item
 * replies to the item before it (the first one to the post); a first comment answers the post itself.
 */

/** The most follow-up items one thread may hold (X, Bluesky, Threads and Mastodon take longer ones; readers do not). */
export const MAX_THREAD_ITEMS = 25

/** Networks that publish a thread as a chain of replies. */
export const threadNetworks: readonly Network[] = ['twitter', 'bluesky', 'threads', 'mastodon']

/**
 * How each network takes a first comment: as a comment on the post, or as a reply to it (X, Bluesky,
 * Threads and Mastodon have no comments apart from replies), or not at all: a Google Business Profile post has
 * neither comments nor replies, and the public APIs of TikTok and Pinterest post no comments.
 */
export const firstCommentShape: Record<Network, 'comment' | 'reply' | 'none'> = {
  facebook: 'comment',
  instagram: 'comment',
  linkedin: 'comment',
  youtube: 'comment',
  twitter: 'reply',
  bluesky: 'reply',
  threads: 'reply',
  googlebusiness: 'none',
  tiktok: 'none',
  pinterest: 'none',
  mastodon: 'reply',
}

export const takesFirstComments = (network: Network) => firstCommentShape[network] !== 'none'

/**
 * The longest comment each commenting network takes, as it counts it: Instagram 2,196 characters and
 * LinkedIn 1,250 (reference D), Facebook 8,000 and YouTube 10,000 (their comment APIs). Replies on X,
 * Bluesky, Threads and Mastodon are posts and take the network's post limit (a Mastodon instance's own).
 */
export const commentLimits: Record<'facebook' | 'instagram' | 'linkedin' | 'youtube', number> = {
  facebook: 8_000,
  instagram: 2_196,
  linkedin: 1_250,
  youtube: 10_000,
}

/** X counts a reply like any post: 280 on standard access (what preflight holds a thread item to). */
const replyLimits: Record<'twitter' | 'bluesky' | 'threads' | 'mastodon', number> = {
  twitter: 280,
  bluesky: 300,
  threads: 500,
  mastodon: 500,
}

export const takesThreads = (network: Network) => threadNetworks.includes(network)

/** One thread item as a request gives it. */
export interface ThreadItemInput {
  content: string
  mediaUrls?: string[] | undefined
}

/** Where an item stands on the network; stored per item on its target (`targets.items`). */
export interface DeliveryItem {
  /** `thread` (a reply to the item before) or `firstComment` (a comment on, or reply to, the post). */
  role: 'thread' | 'firstComment'
  content: string
  mediaUrls: string[]
  status: 'pending' | 'published' | 'failed'
  remoteId?: string
  url?: string
  error?: string
  /**
   * When the call that creates this item was last about to be made (epoch ms), saved before the call. An
   * item with `startedAt` and no `remoteId` may be on the network already: it is looked up, never resent
   * blindly.
   */
  startedAt?: number
  /**
   * When a person reset the target (reset_stuck_post) after this item's lookup could not decide whether its
   * call went out (the posts it named were checked): their decision that it did not, so the next attempt
   * sends the item without looking again. `startedAt` stays: what the item sent is still frozen for edits.
   */
  releasedAt?: number
  publishedAt?: number
  /** What the adapter recorded mid-call (a Threads container id), so a retry reuses it. */
  progress?: Record<string, string>
}

/** The items a target delivers after its post: its thread, then its first comment. */
export function deliveryItems(
  network: Network,
  thread: readonly ThreadItemInput[] | undefined,
  firstComment: string | undefined,
): DeliveryItem[] {
  const items: DeliveryItem[] = []
  if (takesThreads(network))
    for (const item of thread ?? [])
      items.push({
        role: 'thread',
        content: item.content,
        mediaUrls: item.mediaUrls ?? [],
        status: 'pending',
      })
  if (firstComment !== undefined && firstComment !== '' && takesFirstComments(network))
    items.push({ role: 'firstComment', content: firstComment, mediaUrls: [], status: 'pending' })
  return items
}

/**
 * Whether a target's copy or any of its items (a thread, a first comment) holds a link: the one-off link
 * surcharge is owed for a link wherever in the post it goes out.
 */
export const postHoldsLink = (content: string, items: readonly Pick<DeliveryItem, 'content'>[]) =>
  containsLink(content) || items.some((item) => containsLink(item.content))

/** {@link postHoldsLink} for a stored target, its items as the JSON it keeps them in. */
export const holdsLink = (target: { content: string; items?: string | null }) =>
  postHoldsLink(target.content, readItems(target.items))

export function readItems(raw: string | null | undefined): DeliveryItem[] {
  if (!raw) return []
  try {
    const parsed = JSON.parse(raw) as unknown
    return Array.isArray(parsed) ? (parsed as DeliveryItem[]) : []
  } catch {
    return []
  }
}

/** True when two items send the same thing (role, copy and media). */
const sameItem = (a: DeliveryItem, b: DeliveryItem) =>
  a.role === b.role &&
  a.content === b.content &&
  a.mediaUrls.length === b.mediaUrls.length &&
  a.mediaUrls.every((url, i) => url === b.mediaUrls[i])

/** Why an item cannot change in an edit: it is live, or its last send may have reached the network. */
export const pinnedBy = (item: DeliveryItem): 'live' | 'in doubt' | undefined =>
  item.status === 'published' ? 'live' : item.startedAt !== undefined ? 'in doubt' : undefined

/** The first item an edit would change or drop although it cannot, and why. */
export interface PinnedItem {
  index: number
  item: DeliveryItem
  why: 'live' | 'in doubt'
}

/**
 * The items a kept target sends after an edit (update_post), from what it holds (`current`) and what the
 * edit plans. An item already live, or whose last send may have reached the network (`startedAt` without
 * a remote id: it is looked up before anything is sent again), stays exactly as it is, with its in-flight
 * mark and saved progress, and the edit must send it unchanged; the items after it take the edit. A pending
 * item the edit leaves as it was keeps its saved progress (a Threads container made for that copy). Answers the
 * first item the edit would change or drop although it cannot, instead.
 */
export function editItems(
  current: readonly DeliveryItem[],
  planned: readonly DeliveryItem[],
): { items: DeliveryItem[] } | { pinned: PinnedItem } {
  const items: DeliveryItem[] = []
  for (const [index, was] of current.entries()) {
    const why = pinnedBy(was)
    const next = planned[index]
    if (why && !(next && sameItem(was, next))) return { pinned: { index, item: was, why } }
  }
  for (const [index, next] of planned.entries()) {
    const was = current[index]
    if (was && sameItem(was, next) && pinnedBy(was)) items.push(was)
    else if (was && sameItem(was, next) && was.status === 'pending' && was.progress)
      items.push({ ...next, progress: was.progress })
    else items.push(next)
  }
  return { items }
}

/** True when an edit leaves every item of a target as it was. */
export const sameItems = (current: readonly DeliveryItem[], planned: readonly DeliveryItem[]) =>
  current.length === planned.length && current.every((item, i) => sameItem(item, planned[i] as DeliveryItem))

/** What a post keeps of the request, to give profiles added later (update_post) the same items. */
export interface PostItems {
  thread?: ThreadItemInput[]
  firstComment?: string
}

export const readPostItems = (raw: string | null | undefined): PostItems => {
  if (!raw) return {}
  try {
    return JSON.parse(raw) as PostItems
  } catch {
    return {}
  }
}

/** The longest an item may be on a network, as that network counts it. */
export function itemLimit(network: Network, role: DeliveryItem['role']): number {
  if (role === 'firstComment' && firstCommentShape[network] === 'comment')
    return commentLimits[network as keyof typeof commentLimits]
  return replyLimits[network as keyof typeof replyLimits] ?? networkRules[network].textLimit
}

/**
 * An item named for messages, counting the post itself as the thread's first: "thread post 3 of 4", or
 * "first comment".
 */
export const itemLabel = (item: Pick<DeliveryItem, 'role'>, index: number, items: DeliveryItem[]) =>
  item.role === 'firstComment'
    ? 'first comment'
    : `thread post ${items.slice(0, index + 1).filter((i) => i.role === 'thread').length + 1} of ${items.filter((i) => i.role === 'thread').length + 1}`

/** The request path of an item, for field-named refusals: `thread[2]` or `firstComment`. */
export const itemPath = (item: Pick<DeliveryItem, 'role'>, index: number, items: DeliveryItem[]) =>
  item.role === 'firstComment'
    ? 'firstComment'
    : `thread[${items.slice(0, index + 1).filter((i) => i.role === 'thread').length - 1}]`

/**
 * What one profile holds its items to, where it differs from its network's table: a Mastodon instance's own
 * limits, and its length with the content warning counted in.
 */
export interface ProfileItemRules {
  rules: { textLimit: number; maxMedia: number; mixesVideoInSet: boolean }
  lengthOf(text: string): number
}

/**
 * Why each item of a target cannot go out (empty, too long as the network counts it, too much media), as
 * blocker messages naming the field path. `who` names the profile.
 */
export function itemBlockers(
  network: Network,
  who: string,
  items: DeliveryItem[],
  profile?: ProfileItemRules,
): string[] {
  const blockers: string[] = []
  const threadCount = items.filter((i) => i.role === 'thread').length
  if (threadCount > MAX_THREAD_ITEMS)
    blockers.push(`thread: ${who}: ${threadCount} thread items; a thread takes at most ${MAX_THREAD_ITEMS}`)
  const rules = profile?.rules ?? networkRules[network]
  items.forEach((item, index) => {
    const path = itemPath(item, index, items)
    const what = itemLabel(item, index, items)
    if (item.content.trim() === '' && item.mediaUrls.length === 0) {
      blockers.push(`${path}: ${who}: the ${what} is empty`)
      return
    }
    const length = profile ? profile.lengthOf(item.content) : lengthOn(network, item.content)
    const limit = network === 'mastodon' && profile ? profile.rules.textLimit : itemLimit(network, item.role)
    if (length > limit)
      blockers.push(`${path}: ${who}: the ${what} is ${length} characters; ${network} allows ${limit}`)
    if (item.mediaUrls.length > rules.maxMedia)
      blockers.push(
        `${path}: ${who}: the ${what} has ${item.mediaUrls.length} attachments; ${network} takes at most ${rules.maxMedia}`,
      )
    if (item.mediaUrls.length > 1 && !rules.mixesVideoInSet && item.mediaUrls.some(looksLikeVideo))
      blockers.push(`${path}: ${who}: ${network} does not mix video into a set of several`)
  })
  return blockers
}

/**
 * Credits (DESIGN.md price list): every item Herald sends costs what a post costs on its network
 * (X 5, any other 1), so a 4-item X thread after its post costs 25 and a first comment on LinkedIn 1. A
 * re-send pays for what is still to go out: the post when it is not live, and each item not yet live.
 */
export function itemsPrice(network: Network, items: readonly DeliveryItem[]): number {
  return items.filter((i) => i.status !== 'published').length * networkRules[network].price
}
