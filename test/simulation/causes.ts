import type { SeedReport } from './scenario.js'

/**
 * A first guess at why a seed failed, read from its trace and violations, so a long run's failures can be
 * grouped. The paths are issue 22's numbers; a guess is checked by replaying the seed.
 */
export function likelyCause(report: SeedReport): string {
  const trace = report.trace.join('\n')
  const found = report.violations.join('\n')
  if (found.includes('did not finish')) return 'a send or tool call that never ends'
  if (found.includes('simulation itself failed')) return 'the simulation itself'
  if (/charged a resend while/.test(found) || /the ledger took/.test(found)) {
    if (/killed|paused/.test(trace))
      return 'path 8: an expired lease is stuck, so a person resets and pays to resend a post the network holds'
    return 'a paid resend of a post the network holds'
  }
  if (/429 after effect/.test(trace))
    return 'a 429 after the effect is taken as a refusal: resent blindly (duplicate refusal or second copy)'
  if (/read (5xx|429|late|reset)/.test(trace) && /(after effect|killed)/.test(trace))
    return 'path 1: a failing lookup after an unknown outcome leads to a blind resend'
  if (/paused/.test(trace)) return 'path 2: a paused worker resumes and sends after its lease ran out'
  if (/killed/.test(trace)) return 'path 8: a crash leaves the target stuck instead of looking it up'
  // Faults are the trace lines without a clock stamp: none at all means the only fault was the machine's.
  if (!report.trace.some((line) => !line.startsWith('[+')))
    return 'no fault injected: a client timeout on a loaded machine, the create still in flight when the lookup ran'
  return 'unclassified'
}
