import { runSeeds } from './runner.js'

/**
 * `npm run simulate -- --seeds N [--from S] [--seed S] [--lanes K]`: runs seeds S, S+1, ... (or the one seed
 * given), K worlds side by side, and prints the seeds, faults and deliveries checked; a failing seed prints
 * the command that replays it. Stopped with SIGINT or SIGTERM, it sums up the seeds that finished.
 */
const args = process.argv.slice(2).filter((a) => a !== '--')
const value = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : undefined
}
const one = value('--seed')
const from = value('--from') ?? 1
const count = value('--seeds') ?? 100
const seeds = one !== undefined ? [one] : Array.from({ length: count }, (_, i) => from + i)
const verbose = args.includes('--verbose') || one !== undefined

// Stopped (Ctrl-C, SIGTERM): the seeds that finished are summed up all the same.
const stop = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stdout.write(`${signal}: finishing the seeds under way, then the summary\n`)
    stop.abort()
  })

// An exception nothing caught (in a real worker process it would take the process down) is printed and
// counted, and the run goes on: a long run is not lost to one, and the summary says how many there were.
let uncaught = 0
process.on('uncaughtException', (error) => {
  uncaught += 1
  process.stdout.write(`uncaught exception (${uncaught}): ${error.stack ?? error}\n`)
})

const summary = await runSeeds(seeds, {
  verbose,
  signal: stop.signal,
  lanes: value('--lanes') ?? 1,
  progress: (line) => process.stdout.write(`${line}\n`),
})
process.stdout.write(`${summary.text}\n  uncaught exceptions: ${uncaught}\n`)
process.exit(summary.failed.length > 0 || uncaught > 0 ? 1 : 0)
