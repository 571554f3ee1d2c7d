import type { Network } from '../core/networks.js'

/**
 * The seam through which a test (the fault simulation, a crash test) decides, call by call, how a network
 * simulator misbehaves. Every simulator asks its injector about each request it serves, before handling
 * it; the answer says whether the request is refused before anything happens or handled first (the post,
 * comment or container exists) and then answered badly, the way real networks fail.
 */

/** One request a simulator is about to handle. */
export interface SimulatedCall {
  network: Network
  /** The simulator's name for the operation: X's operationId, a Graph edge, an XRPC method, ... */
  operation: string
  /**
   * True when handling the call can make something visible or lasting on the network (publish, comment,
   * reply, make a container public, finish an upload that becomes a video). Reads and token calls are false.
   */
  effectful: boolean
  method: string
  /** Path under the simulator's prefix, without the query string. */
  path: string
  /**
   * The request's query string and parsed body as the simulator received them, so an injector can decide by
   * what a call carries (a reply rather than a post, the copy it publishes).
   */
  query?: unknown
  body?: unknown
  /** The call's `Idempotency-Key` header, when it carries one (Mastodon answers a repeated key with its first status). */
  idempotencyKey?: string
}

/** What the client sees instead of the normal answer. */
export type FaultAnswer =
  /** An HTTP answer with this status: a 5xx, a 429 with the network's own body and headers, ... */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** The connection is destroyed without an answer. */
  | { kind: 'reset' }
  /** No answer until the client gives up (its timeout or abort). */
  | { kind: 'hang' }

export interface Fault {
  /** `before`: nothing happens on the network; `after`: the request takes effect, then the answer is replaced. */
  timing: 'before' | 'after'
  answer: FaultAnswer
}

export interface FaultInjector {
  /** The fault to apply to this call, or undefined to serve it normally. */
  decide(call: SimulatedCall): Fault | undefined
  /**
   * For a read the simulator serves as one page of a list (a timeline, a Page's posts, comments): the most
   * rows this page may hold, fewer than asked or none, with the cursor to the rest as the network gives it.
   * X and Graph answer such pages when they filter a page after reading it; only a missing cursor ends
   * the list. Undefined serves the page as asked. Asked about every GET that `decide` did not refuse, and
   * every other call a simulator marks as a page of a list (TikTok lists videos with a POST).
   */
  shortPage?(call: SimulatedCall): number | undefined
  /**
   * How long after it is made a post, reply or comment first shows in the network's listings (a profile's
   * timeline, a Page's posts, a post's comments), in ms of the simulator's clock: real networks serve those
   * lists from replicas and caches that trail the write, while a read by id or by a key the client holds
   * sees it at once. Default 0.
   */
  listingLagMs?(network: Network): number
  /**
   * False turns off the simulator's refusal of a post whose copy repeats one the profile already holds (X's
   * and LinkedIn's duplicate check, Facebook's within a minute): a second send of the same copy then makes a
   * second post, as on a network whose check missed it, so a test counting copies sees every resend.
   * Default true.
   */
  refusesDuplicates?(network: Network): boolean
}

/** The injector of a simulator nobody programmed: every call is served normally. */
export const noFaults: FaultInjector = { decide: () => undefined }

/**
 * True when a record made at `createdAt` shows in `network`'s listings at `now` (see `listingLagMs`). Without
 * a lag every record shows, whatever its time (tests seed records dated ahead of the clock).
 */
export const listedAt = (
  injector: FaultInjector | undefined,
  network: Network,
  createdAt: number,
  now: number,
): boolean => {
  const lag = injector?.listingLagMs?.(network) ?? 0
  return lag <= 0 || now - createdAt >= lag
}

/** Whether `network`'s simulator refuses a repeated copy (see `refusesDuplicates`). */
export const refusesDuplicates = (injector: FaultInjector | undefined, network: Network): boolean =>
  injector?.refusesDuplicates?.(network) ?? true
