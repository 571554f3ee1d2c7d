import type { Network } from '../../src/core/networks.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import type { MountedSandboxes } from '../../src/sandbox-mount.js'
import type { Harness } from '../helpers/harness.js'
import { countCopies, countItemCopies } from './copies.js'
import { carriedText, withoutLinks } from './faults.js'

/** A post's tag (`s<seed>n<post>z`) or a thread item's or first comment's (`r<seed>n<post>i<item>[e<edit>]q`). */
const TAG = /\b(?:s\d+n\d+z|r\d+n\d+i\d+(?:e\d+)?q)/g
const isItemTag = (tag: string) => tag.startsWith('r')

/**
 * Every publishing call of a seed, counted per post and per item (by the tags the call carries), as the
 * simulators see them arrive, before they are handled. A call for a post or item the network already holds
 * is a second publish whatever the network then answers: a duplicate refusal, a fault before the effect or a
 * refused reply would only hide it. A call that names the container or upload session the live copy was
 * made from, or the Bluesky record key it holds, is not one (the network cannot make a second post from it: it
 * answers that it is published, or that the key is taken).
 */
export class PublishingLedger {
  /** Publishing calls per tag. */
  readonly calls = new Map<string, number>()
  /** What each second publish was, in the order they came. */
  readonly resends: string[] = []
  /** Publishing calls so far, of any post. */
  total = 0

  constructor(private readonly h: Harness) {}

  observe(call: SimulatedCall): void {
    if (!call.effectful || call.method === 'DELETE') return
    this.total += 1
    const sandboxes = this.h.sandboxes
    if (!sandboxes) return
    const keyed = keyedCopy(sandboxes, call)
    const tags = new Set(`${carriedText(call)} ${withoutLinks(keyed?.text ?? '')}`.match(TAG) ?? [])
    for (const tag of tags) {
      this.calls.set(tag, (this.calls.get(tag) ?? 0) + 1)
      if (keyed?.published) continue
      const held = isItemTag(tag)
        ? countItemCopies(this.h, call.network, tag).length
        : countCopies(this.h, call.network, tag).length
      if (held > 0)
        this.resends.push(
          `${call.network} ${isItemTag(tag) ? 'item' : 'post'} ${tag}: ${call.method} ${call.operation} while the network held ${held} cop${held > 1 ? 'ies' : 'y'}`,
        )
    }
  }

  callsFor(tag: string): number {
    return this.calls.get(tag) ?? 0
  }
}

/**
 * The key a call publishes under (an Instagram or Threads container, a YouTube upload session, a Bluesky
 * record key, a Mastodon idempotency key), the copy the key stands for when the call does not carry it, and whether the key already
 * made its post.
 */
function keyedCopy(
  s: MountedSandboxes,
  call: SimulatedCall,
): { text: string; published: boolean } | undefined {
  const params = { ...asRecord(call.query), ...asRecord(call.body) }
  const network: Network = call.network
  if (typeof params.creation_id === 'string') {
    const containers =
      network === 'threads' ? s.threads.containers : network === 'instagram' ? s.meta.containers : undefined
    const container = containers?.get(params.creation_id)
    if (!container) return undefined
    const children = container.children.map((id) => JSON.stringify(containers?.get(id) ?? ''))
    return {
      text: `${JSON.stringify(container)} ${children.join(' ')}`,
      published: container.status === 'PUBLISHED',
    }
  }
  if (network === 'bluesky' && typeof params.rkey === 'string') {
    // A record key Herald chose: the repository refuses a second write under it.
    const taken = [...s.bluesky.records.values()].some(
      (r) => r.rkey === params.rkey && r.collection === params.collection,
    )
    return { text: '', published: taken }
  }
  if (network === 'mastodon' && call.idempotencyKey) {
    // An instance answers a key it still remembers with the status it made: no second status comes of it.
    const status = rememberedStatus(s, call.idempotencyKey)
    return status ? { text: status.text, published: true } : undefined
  }
  if (network === 'youtube' && typeof params.upload_id === 'string') {
    const session = s.youtube.sessions.get(params.upload_id)
    if (!session) return undefined
    return { text: JSON.stringify(session.metadata), published: session.videoId !== null }
  }
  return undefined
}

const asRecord = (value: unknown): Record<string, unknown> => {
  if (value instanceof URLSearchParams) return Object.fromEntries(value)
  if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value))
    return value as Record<string, unknown>
  return {}
}

/** The Mastodon status an instance still remembers under `key` (inside its window), when there is one. */
function rememberedStatus(s: MountedSandboxes, key: string) {
  for (const instance of s.mastodon.instances.values())
    for (const [owner, entry] of instance.keys)
      if (
        owner.endsWith(`:${key}`) &&
        s.mastodon.now() - entry.storedAt < instance.settings.idempotencyMs &&
        instance.statuses.has(entry.statusId)
      )
        return instance.statuses.get(entry.statusId)
  return undefined
}
