import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * A check that runs, synchronously, right before every HTTP request an adapter makes on behalf of a send.
 * The worker runs each send inside {@link runGuarded} with a check that throws once its lease can no longer
 * be trusted (renewal failed, or the last renewal is older than the lease): a worker that stalled (paused
 * VM, SIGSTOP, a long busy wait) and woke up past its lease stops before its next call, which could make a
 * post public that another worker is now looking up or sending. A timer could not do this: after a stall
 * Node runs the I/O that completed meanwhile before any timer.
 */
const guards = new AsyncLocalStorage<() => void>()

export function runGuarded<T>(guard: () => void, send: () => Promise<T>): Promise<T> {
  return guards.run(guard, send)
}

/** Throws when the send this call belongs to must stop; a no-op outside a guarded send. */
export function checkSendGuard(): void {
  guards.getStore()?.()
}

/** `http` with the send guard checked before each request. */
export function guardedHttp(http: typeof fetch): typeof fetch {
  return (input, init) => {
    try {
      checkSendGuard()
    } catch (error) {
      return Promise.reject(error)
    }
    return http(input, init)
  }
}

export class LeaseExpiredError extends Error {
  override name = 'LeaseExpiredError'
}
