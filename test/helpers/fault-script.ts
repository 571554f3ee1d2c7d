import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'

/**
 * A fault injector a test programs by hand: each rule applies its fault to the next calls that match
 * (`times` of them, default 1), in the order the rules were added; every call the simulators asked about
 * is kept in `calls`.
 */
export interface ScriptedFaults extends FaultInjector {
  on(match: Partial<SimulatedCall> | ((call: SimulatedCall) => boolean), fault: Fault, times?: number): void
  /** Every call asked about, in order. */
  readonly calls: SimulatedCall[]
  /** Forgets the rules (the calls stay). */
  clear(): void
}

export function scriptedFaults(): ScriptedFaults {
  const rules: { matches: (call: SimulatedCall) => boolean; fault: Fault; left: number }[] = []
  const calls: SimulatedCall[] = []
  return {
    calls,
    on(match, fault, times = 1) {
      const matches =
        typeof match === 'function'
          ? match
          : (call: SimulatedCall) =>
              Object.entries(match).every(([key, value]) => call[key as keyof SimulatedCall] === value)
      rules.push({ matches, fault, left: times })
    },
    clear() {
      rules.length = 0
    },
    decide(call) {
      calls.push(call)
      const rule = rules.find((candidate) => candidate.left > 0 && candidate.matches(call))
      if (!rule) return undefined
      rule.left--
      return rule.fault
    },
  }
}

/** The faults the simulator tests apply to publishing calls. */
export const afterEffect500: Fault = { timing: 'after', answer: { kind: 'status', status: 500 } }
export const before500: Fault = { timing: 'before', answer: { kind: 'status', status: 500 } }
