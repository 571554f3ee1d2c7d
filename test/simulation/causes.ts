import type { SeedReport } from './scenario.js'

/**
 * A first guess at why a seed failed, read from its trace and violations, so a long run's failures can be
 * grouped. The guess names the path the review of 27 November found by hand (numbered as it numbered them)
 * or an earlier one; it is checked by replaying the seed.
 */
/** A violation that says a post or item went out twice (or was refused as a duplicate of its live copy). */
const TWICE =
  /a second publish|copies of its|holds [2-9] copies|holds item .* which an edit replaced|failed \(.*duplicate.*\), but the network holds/i

export function likelyCause(report: SeedReport): string {
  const trace = report.trace.join('\n')
  const found = report.violations.join('\n')
  if (found.includes('did not finish')) return 'a send or tool call that never ends'
  if (found.includes('simulation itself failed')) return 'the simulation itself'
  if (TWICE.test(found)) return sentTwice(report, trace, found)
  if (/deleted in Herald, but the network holds it|a draft, but the network holds it/.test(found))
    return /stopped gracefully/.test(trace)
      ? 'path 6: a graceful stop put a live post back to scheduled, then it was deleted or made a draft'
      : 'path 6: a live post deleted or made a draft (update_post status draft, then delete_post)'
  if (/failed \(by a reset\), but the network holds/.test(found))
    return 'reset_stuck_post declares failed a target whose post the network holds (the reset rule, see docs/simulation.md)'
  if (/charged .* for a resend while/.test(found) || /the ledger took/.test(found))
    return /lookups|out for a day/.test(trace)
      ? 'a paid resend after lookups were exhausted and a reset, of a post the network holds'
      : 'a paid resend of a post the network holds'
  if (/already published/.test(found) && /clock \d+s (ahead|behind)/.test(trace))
    return "path 8: a worker whose clock is off took another worker's healthy lease (the second send met the published container)"
  if (/already published/.test(found))
    return 'a container already published is taken as a refusal: the target fails while the network holds its post'
  if (/failed \(.*\), but the network holds/.test(found))
    return 'a target failed while the network holds its post'
  // Faults are the trace lines without a clock stamp: none at all means the only fault was the machine's.
  if (!report.trace.some((line) => !line.startsWith('[+')))
    return 'no fault injected: a client timeout on a loaded machine, the create still in flight when the lookup ran'
  return 'unclassified'
}

/** Which path sent a post or an item a second time, read from what the person did to that post. */
function sentTwice(_report: SeedReport, trace: string, found: string): string {
  const line = found.split('\n').find((v) => TWICE.test(v)) ?? found
  const tag = /s\d+n\d+z|r\d+n\d+i\d+(?:e\d+)?q/.exec(line)?.[0] ?? ''
  const item = /a second publish: \S+ item|copies of its|holds item/.test(line)
  const post = tag.replace(/^r(\d+n\d+)i.*$/, 's$1z')
  const did = (what: string) => new RegExp(`${what} ${post} -> 200`).test(trace)
  if (/item refused for good/.test(trace) && did('update_post items') && !item)
    return 'path 1: a reply or comment refused, the items edited, and publish_post_now sent the post again'
  if (item && did('reset_stuck_post') && did('update_post \\w+'))
    return 'path 2: an item in flight at a crash, a reset, an edit that dropped its in-flight mark, and the item again'
  if (!item && did('reset_stuck_post') && did('update_post copy'))
    return 'path 3: a reset (or lookups exhausted), a copy edit, and the lookup searched for the new copy'
  if (/clock \d+s (ahead|behind)/.test(trace))
    return "path 8: a worker whose clock is off took another worker's healthy lease"
  if (/killed|paused/.test(trace))
    return 'path 8: a lookup right after a dead worker missed a post the listing did not show yet'
  if (/item refused for good/.test(trace)) return 'a refused reply or comment, then a second send'
  return 'a second send of a post or item'
}
