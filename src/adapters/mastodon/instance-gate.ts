import { PublishFailure } from '../adapter.js'

/**
 * Keeps one slow or hostile instance from holding up the others: every instance is a host some person
 * typed, and Herald talks to thousands of them through the same worker slots. Each instance gets at most
 * {@link GateOptions.inFlight} requests at once (a further one waits its turn, for at most
 * {@link GateOptions.queueWaitMs}, then gives up before sending); and an instance that has left
 * {@link GateOptions.strikes} requests in a row without an answer rests for {@link GateOptions.restMs},
 * during which its calls fail at once, before anything is sent. Both refusals are `transient` with nothing
 * sent, so the worker tries again later and the slot goes to another instance now.
 */

export interface GateOptions {
  inFlight: number
  queueWaitMs: number
  strikes: number
  restMs: number
  now(): number
}

export const defaultGateOptions = {
  inFlight: 4,
  queueWaitMs: 10_000,
  strikes: 5,
  restMs: 30_000,
} as const

interface HostState {
  running: number
  waiting: Array<() => void>
  /** Requests in a row that got no answer. */
  silent: number
  restUntil: number
}

export interface InstanceGate {
  /** Runs `call` when `host` has a free place (waiting for one, or refusing before anything is sent). */
  run<T>(host: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T>
  /** Counts a request that got no answer (a timeout, a reset) against `host`. */
  silence(host: string): void
  /** Counts an answer from `host`: it is not silent any more. */
  spoke(host: string): void
}

const notSent = (host: string, why: string) =>
  new PublishFailure('transient', `${host} ${why}; Herald tries again later`, { code: 'InstanceBusy' })

export function createInstanceGate(options: GateOptions): InstanceGate {
  const hosts = new Map<string, HostState>()
  const stateOf = (host: string) => {
    let state = hosts.get(host)
    if (!state) {
      state = { running: 0, waiting: [], silent: 0, restUntil: 0 }
      hosts.set(host, state)
    }
    return state
  }
  const release = (host: string, state: HostState) => {
    state.running -= 1
    const next = state.waiting.shift()
    if (next) next()
    // A host with nothing to remember is forgotten, so the map holds only instances in use or resting.
    else if (state.running === 0 && state.silent === 0 && state.restUntil <= options.now()) hosts.delete(host)
  }

  const enter = (host: string, state: HostState, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      const timeout = AbortSignal.timeout(options.queueWaitMs)
      const stop = signal ? AbortSignal.any([signal, timeout]) : timeout
      const turn = () => {
        stop.removeEventListener('abort', giveUp)
        state.running += 1
        resolve()
      }
      const giveUp = () => {
        state.waiting = state.waiting.filter((waiter) => waiter !== turn)
        reject(notSent(host, `has ${options.inFlight} requests from Herald still open`))
      }
      stop.addEventListener('abort', giveUp, { once: true })
      state.waiting.push(turn)
    })

  return {
    async run(host, signal, call) {
      const state = stateOf(host)
      if (state.restUntil > options.now())
        throw notSent(host, 'left several requests in a row unanswered and is given a rest')
      if (state.running < options.inFlight) state.running += 1
      else await enter(host, state, signal)
      try {
        return await call()
      } finally {
        release(host, state)
      }
    },
    silence(host) {
      const state = stateOf(host)
      state.silent += 1
      if (state.silent >= options.strikes) {
        state.restUntil = options.now() + options.restMs
        state.silent = 0
      }
    },
    spoke(host) {
      const state = hosts.get(host)
      if (state) state.silent = 0
    },
  }
}
