import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * What this Node's own fetch (the undici bundled in it) throws, made for real on 127.0.0.1, for tests that
 * build such errors by hand to hold an adapter's error mapping to them (src/adapters/network-errors.ts
 * reads the code along the error's `cause` chain). A test checks its hand-made error against these, so the
 * shape it assumes is the shape of the Node it runs on, not only of the one it was written on.
 *
 * Seen alike on Node 22.23.5 (undici 6.29.1), 24.21.0 (7.29.1) and 24.22.3 (7.30.2):
 * - a refused connection: `TypeError: fetch failed`, its cause an Error with code `ECONNREFUSED`;
 * - a connection closed after the request went out: `TypeError: fetch failed`, its cause a SocketError
 *   with code `UND_ERR_SOCKET` ("other side closed");
 * - an aborted fetch rejects with the signal's own reason.
 */

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the fetch to fail')
    },
    (error: unknown) => error,
  )
}

async function withServer<T>(listener: http.RequestListener, use: (url: string) => Promise<T>): Promise<T> {
  const server = http.createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A fetch to a loopback port nobody listens on (the port of a server just closed). */
export async function refusedFetchError(): Promise<unknown> {
  const url = await withServer(
    () => undefined,
    async (address) => address,
  )
  return rejectionOf(fetch(url))
}

/** A POST whose connection the server closes once the request has arrived, before any answer. */
export function cutFetchError(): Promise<unknown> {
  return withServer(
    (request) => request.socket.destroy(),
    (url) => rejectionOf(fetch(url, { method: 'POST', body: 'x' })),
  )
}

/** A fetch the server never answers, aborted with `reason`: what fetch rejects with. */
export function abortedFetchError(reason: unknown): Promise<unknown> {
  return withServer(
    () => undefined,
    (url) => {
      const controller = new AbortController()
      setTimeout(() => controller.abort(reason), 20)
      return rejectionOf(fetch(url, { signal: controller.signal }))
    },
  )
}

/** The name, message and code of an error and of each error along its `cause` chain. */
export function causeChain(error: unknown): Array<{ name: unknown; message: unknown; code: unknown }> {
  const chain = []
  for (
    let current = error, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    depth++
  ) {
    const { name, message, code } = current as { name?: unknown; message?: unknown; code?: unknown }
    chain.push({ name, message, code })
    current = (current as { cause?: unknown }).cause
  }
  return chain
}

/** What an error mapping can read of a fetch error: its message, and each name and code along its causes. */
export function fetchErrorShape(error: unknown) {
  const chain = causeChain(error)
  return { message: chain[0]?.message, causes: chain.map(({ name, code }) => ({ name, code })) }
}
