import type { Network } from '../domain/networks.js'

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
   * the list. Undefined serves the page as asked. Asked about every GET that `decide` did not refuse.
   */
  shortPage?(call: SimulatedCall): number | undefined
}

/** The injector of a simulator nobody programmed: every call is served normally. */
export const noFaults: FaultInjector = { decide: () => undefined }
