import type { Network } from '../../src/core/networks.js'
import type { PublishingLedger } from './ledger.js'
import type { Prng } from './prng.js'
import type { World } from './world.js'

/** One thread item or first comment as the person wrote it: its unique tag is in its copy. */
export interface SimItem {
  tag: string
  content: string
  mediaUrls?: string[]
}

/** A post of the seed as the person knows it: what they asked for, and what the tools said they charged. */
export interface SimPost {
  id: string
  tag: string
  network: Network
  content: string
  mediaUrls: string[]
  price: number
  /** Credits the tools said they charged for this post. */
  charged: number
  deleted: boolean
  resets: number
  /** The person told a reset the post (or its item in doubt) is on the network, without giving its address. */
  confirmed: boolean
  /** `thread` (each item answers the one before, the first the post) or `firstComment` (answers the post). */
  role: 'thread' | 'firstComment'
  /** Its thread items or first comment as they stand after the person's edits, in delivery order. */
  items: SimItem[]
  /** Every item the post ever had, by tag (an edit that replaced one leaves it here). */
  everItems: Map<string, SimItem>
  /** Edits made so far (each new item copy takes a tag of its own). */
  edits: number
}

/** What one seed's story, its person and its oracle share. */
export interface SeedContext {
  world: World
  seed: number
  /** The person's choices (which post, which tool, which edit). */
  pick: Prng
  /** Threads and first comments draw from a stream of their own. */
  chains: Prng
  /** Whether a new post goes to one of the newer networks, and which, from a stream of its own. */
  newer: Prng
  posts: SimPost[]
  violations: string[]
  ledger: PublishingLedger
  /** Counts a process fault or tool call by kind. */
  count(kind: string): void
  /** Adds a line to the seed's trace. */
  note(line: string): void
  /** The next post number of the seed (its tag is `s<seed>n<number>z`). */
  nextPost(): number
}

/** The networks whose posts take a thread (the others take a first comment). */
export const THREAD_NETWORKS = new Set<Network>(['twitter', 'bluesky', 'threads', 'mastodon'])

/** The networks whose posts take neither a thread nor a first comment. */
export const UNCHAINED_NETWORKS = new Set<Network>(['googlebusiness', 'tiktok', 'pinterest'])
