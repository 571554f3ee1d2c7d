import type { Fault, FaultInjector, SimulatedCall } from '../../src/sandbox/fault-injector.js'

type Match = Partial<SimulatedCall> | ((call: SimulatedCall) => boolean)

/**
 * A fault injector a test programs by hand: each rule applies its fault to the next calls that match
 * (`times` of them, default 1), in the order the rules were added; every call the simulators asked about
 * is kept in `calls`.
 */
export interface ScriptedFaults extends FaultInjector {
  on(match: Match, fault: Fault, times?: number): void
  /**
   * The next `times` list pages that match (default 1) hold at most `rows` rows, 0 for an empty page, with
   * their cursor to the rest; `Infinity` times for every one. Rules apply in the order they were added.
   */
  shortPages(match: Match, rows: number, times?: number): void
  /** Every call asked about, in order. */
  readonly calls: SimulatedCall[]
  /** Forgets the rules and short pages (the calls stay). */
  clear(): void
}

const matcher = (match: Match) =>
  typeof match === 'function'
    ? match
    : (call: SimulatedCall) =>
        Object.entries(match).every(([key, value]) => call[key as keyof SimulatedCall] === value)

export function scriptedFaults(): ScriptedFaults {
  const rules: { matches: (call: SimulatedCall) => boolean; fault: Fault; left: number }[] = []
  const pages: { matches: (call: SimulatedCall) => boolean; rows: number; left: number }[] = []
  const calls: SimulatedCall[] = []
  return {
    calls,
    on(match, fault, times = 1) {
      rules.push({ matches: matcher(match), fault, left: times })
    },
    shortPages(match, rows, times = 1) {
      pages.push({ matches: matcher(match), rows, left: times })
    },
    clear() {
      rules.length = 0
      pages.length = 0
    },
    shortPage(call) {
      const rule = pages.find((candidate) => candidate.left > 0 && candidate.matches(call))
      if (!rule) return undefined
      rule.left--
      return rule.rows
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
