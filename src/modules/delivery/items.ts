import type { RawBuilder } from 'kysely'
import {
  type Credentials,
  type ItemRequest,
  type NetworkAdapter,
  type Profile,
  PublishFailure,
  type PublishResult,
} from '../../adapters/adapter.js'
import { mediaItems, readAltTexts } from '../../core/alt-text.js'
import { type DeliveryItem, itemLabel, readItems } from '../../core/thread-items.js'
import type { Db } from '../../platform/db/db.js'
import type { TargetRow } from '../../platform/db/statements/posts.js'
import { LeaseLostError } from './progress.js'
import { writeChainStep } from './sql/write-chain-step.js'

/**
 * The thread items and first comment of a target, delivered one by one after its post, each
 * exactly once. Every step is written to the target before the next network call, and only while this
 * worker still holds the lease:
 * - the post's remote id and URL as soon as the post is live (a later attempt never publishes it again);
 * - an item's `startedAt` just before the call that creates it (a later attempt that finds `startedAt`
 *   without a remote id does not know whether the item went out, and looks it up under its parent first);
 * - the item's remote id and URL as soon as the network answers.
 * An item in doubt whose lookup could not decide leaves the target stuck; once a person has reset the post
 * (`releasedAt`), the next attempt sends the item without looking again.
 * A chain stops at the first item the network refuses for good: that item is `failed`, the target is
 * `failed` with a message naming it, and what went out stays recorded, so publish_post_now continues from
 * the refused item (the items before it are never sent again).
 */

export interface ChainWriter {
  /** Records the post as live on the target (still pending while items remain). */
  saveHead(head: PublishResult, now: number): Promise<void>
  /** Records the items as they now stand. */
  saveItems(items: DeliveryItem[], now: number): Promise<void>
}

/**
 * Writes a target's chain progress, only while `target.lease_owner` holds a lease unexpired at `leaseTime`
 * (the lease clock's now, in SQL).
 */
export function chainWriter(
  db: Db,
  target: Pick<TargetRow, 'id' | 'lease_owner'>,
  leaseTime: () => RawBuilder<number>,
): ChainWriter {
  const write = async (changes: Partial<TargetRow>, now: number) => {
    const held = { id: target.id, leaseOwner: target.lease_owner ?? '' }
    if (!(await writeChainStep(db, held, changes, now, leaseTime())))
      throw new LeaseLostError('The lease on this target was lost; the chain stops here')
  }
  return {
    saveHead: (head, now) =>
      write(
        {
          remote_id: head.remoteId,
          url: head.url,
          upload_error: head.uploadError ?? null,
          published_at: now,
        },
        now,
      ),
    saveItems: (items, now) => write({ items: JSON.stringify(items) }, now),
  }
}

/** How delivering a chain ended. */
export type ChainEnd =
  | { kind: 'done' }
  /** The network refused an item for good: the chain stops there. */
  | { kind: 'refused'; error: string }
  /** An item's call may or may not have taken effect, and a lookup cannot tell (or the network cannot be asked). */
  | { kind: 'unknown'; error: string }
  /** An item's lookup could not ask the network, or a failure that certainly did nothing: try again later. */
  | { kind: 'failure'; failure: unknown }

export interface ChainInput {
  adapter: NetworkAdapter
  /** The target's items, updated in place as they go out (kept across a credentials refresh). */
  items: DeliveryItem[]
  target: TargetRow
  profile: Profile
  credentials: Credentials
  head: { remoteId: string; url: string }
  writer: ChainWriter
  now(): number
  signal: AbortSignal
  /** Told just before an item's publishing call (the target's history says the attempt reached out). */
  onSend?: () => void
  /** The target's Mastodon options, which every item of its thread carries too. */
  mastodon?: ItemRequest['mastodon']
}

/** The items a target still has to deliver (none when it has none). */
export const chainItems = (target: Pick<TargetRow, 'items'>) => readItems(target.items)

/** True when the target has items not yet live. */
export const chainOpen = (target: Pick<TargetRow, 'items'>) =>
  chainItems(target).some((item) => item.status !== 'published')

/** The publishing request of one item: its copy and media, the post it answers, and how it saves progress. */
function itemRequest(
  input: ChainInput,
  at: {
    item: DeliveryItem
    index: number
    parent: ChainInput['head']
    altTexts: ReturnType<typeof readAltTexts>
  },
) {
  const { item, index, parent, altTexts } = at
  const { target, items, writer } = input
  return {
    targetId: target.id,
    index,
    role: item.role,
    profile: input.profile,
    credentials: input.credentials,
    content: item.content,
    mediaUrls: item.mediaUrls,
    media: mediaItems(item.mediaUrls, altTexts),
    root: input.head,
    parent: item.role === 'firstComment' ? input.head : parent,
    signal: input.signal,
    ...(input.mastodon ? { mastodon: input.mastodon } : {}),
    ...(item.progress ? { progress: { ...item.progress } } : {}),
    saveProgress: async (entries: Record<string, string>) => {
      item.progress = { ...item.progress, ...entries }
      await writer.saveItems(items, input.now())
    },
  }
}

export async function deliverChain(input: ChainInput): Promise<ChainEnd> {
  const { adapter, target, writer, signal, items } = input
  const network = target.platform
  const refusal = (index: number, message: string) => {
    const live = items.filter((i) => i.status === 'published').length
    const what = itemLabel(items[index] as DeliveryItem, index, items)
    return `The ${what} was refused by ${network}: ${message}. The post${live > 0 ? ` and the ${live} item${live > 1 ? 's' : ''} after it are` : ' is'} live (see items); fix it with update_post and publish_post_now sends from it.`
  }
  if (!adapter.publishItem) {
    const index = items.findIndex((i) => i.status !== 'published')
    if (index < 0) return { kind: 'done' }
    return {
      kind: 'refused',
      error: refusal(index, `publishing ${network} replies or comments is not available`),
    }
  }
  const altTexts = readAltTexts(target.media_alt_texts)
  let parent = input.head
  for (const [index, item] of items.entries()) {
    const request = itemRequest(input, { item, index, parent, altTexts })
    if (item.status === 'published' && item.remoteId) {
      if (item.role === 'thread') parent = { remoteId: item.remoteId, url: item.url ?? '' }
      continue
    }
    let sending = false
    try {
      let result: PublishResult | undefined
      if (item.startedAt !== undefined && item.releasedAt === undefined) {
        // An earlier call for this item went unanswered: ask the network before sending it again (unless a
        // person, after a lookup that could not decide, reset the post: sending again is their decision).
        if (!adapter.findItem)
          return {
            kind: 'unknown',
            error: `The ${itemLabel(item, index, items)} may or may not be on ${network}; check the profile, then reset_stuck_post and publish_post_now`,
          }
        const answer = await adapter.findItem({
          ...request,
          since: item.startedAt,
          excludeRemoteIds: items.flatMap((i) => (i.remoteId ? [i.remoteId] : [])),
        })
        if (answer.kind === 'ambiguous') return { kind: 'unknown', error: answer.reason }
        if (answer.kind === 'found') result = answer.result
      }
      if (!result) {
        if (signal.aborted)
          throw new PublishFailure('transient', 'The send was cancelled before the item went out')
        item.startedAt = input.now()
        item.status = 'pending'
        delete item.error
        delete item.releasedAt
        await writer.saveItems(items, input.now())
        sending = true
        input.onSend?.()
        result = await adapter.publishItem(request)
      }
      item.status = 'published'
      item.remoteId = result.remoteId
      item.url = result.url
      item.publishedAt = input.now()
      delete item.startedAt
      delete item.error
      delete item.progress
      await writer.saveItems(items, input.now())
      if (item.role === 'thread') parent = { remoteId: result.remoteId, url: result.url }
    } catch (error) {
      if (error instanceof PublishFailure && error.kind === 'invalid_content') {
        item.status = 'failed'
        item.error = error.message
        delete item.startedAt
        await writer.saveItems(items, input.now()).catch(() => undefined)
        return { kind: 'refused', error: refusal(index, error.message) }
      }
      // Certainly did nothing: the item is not in doubt. A 429 is not certain: a network may count its
      // limit on the way out, after it made the comment (simulation seed 2), so the item keeps `startedAt`
      // and the next attempt looks for it before sending again, as a post's 429 does.
      if (error instanceof PublishFailure && error.kind === 'transient' && sending) {
        delete item.startedAt
        await writer.saveItems(items, input.now()).catch(() => undefined)
      }
      return { kind: 'failure', failure: error }
    }
  }
  return { kind: 'done' }
}
