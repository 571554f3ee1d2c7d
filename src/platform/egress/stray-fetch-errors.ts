import type { Logger } from '../logger.js'

/**
 * A last line of defence for the service processes (API, worker, both): Node's bundled undici can reject a
 * promise nobody holds after a request it was streaming has ended. Its FormData body writer is an async
 * loop nothing awaits (nodejs/undici#5835); when the request is cancelled while that loop still runs, its
 * next `enqueue` fails with `TypeError [ERR_INVALID_STATE]: Invalid state: ReadableStream is already
 * closed`, and Node's default for an unhandled rejection ends the process, taking every in-flight send
 * with it. Herald no longer gives fetch such a body (src/platform/egress/multipart.ts); this guard makes sure a
 * dependency that does, or another path of the same bug, is logged instead of ending the process.
 *
 * Which Nodes have the bug: the Node 24 releases whose undici is 7.20 to 7.29 (24.21.0, with 7.29.1, does);
 * 24.22.3 (undici 7.30.2) and Node 22 (undici 6) do not. The guard stays while `engines` admits releases
 * that have it: it costs one listener and recognises nothing else.
 *
 * The request the error belongs to has already settled on its own (its fetch rejected, so its send took
 * an outcome); the stream was closed when the throw came, so there is nothing left to clean up. Any other
 * unhandled rejection is thrown again from the listener, which ends the process as Node's default does.
 */
export function isStrayFetchStreamError(reason: unknown): boolean {
  if (!(reason instanceof TypeError)) return false
  if ((reason as { code?: unknown }).code !== 'ERR_INVALID_STATE') return false
  if (!/ReadableStream is already closed|Controller is already closed/.test(reason.message)) return false
  return (reason.stack ?? '').includes('node:internal/deps/undici/')
}

/** Installs the guard on `process`; returns a function that removes it. */
export function guardStrayFetchErrors(logger: Logger): () => void {
  const listener = (reason: unknown) => {
    if (!isStrayFetchStreamError(reason)) throw reason
    logger.warn(
      { err: reason },
      "Node's fetch failed writing the body of a request that had already ended; the request's own send has its outcome, nothing else is affected",
    )
  }
  process.on('unhandledRejection', listener)
  return () => process.off('unhandledRejection', listener)
}
