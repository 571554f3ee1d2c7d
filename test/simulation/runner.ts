import { likelyCause } from './causes.js'
import { runSeed, type SeedReport } from './scenario.js'
import { startWorld, type World } from './world.js'

/** Seeds run in one world before it is replaced (the simulators and the database only grow). */
const SEEDS_PER_WORLD = 100
/** How long one seed may run before it counts as hung (a send that never ends is itself a finding). */
const SEED_DEADLINE_MS = Number(process.env.HERALD_SIMULATION_SEED_DEADLINE_MS ?? 60_000)

export interface RunSummary {
  seeds: number
  deliveries: number
  faults: Record<string, number>
  events: Record<string, number>
  failed: SeedReport[]
  durationMs: number
  text: string
}

/** The command that replays one seed: alone, or (`from`) after the seeds that ran before it in its world. */
export const replayCommand = (seed: number, from?: number) =>
  from === undefined || from === seed
    ? `npm run simulate -- --seed ${seed}`
    : `npm run simulate -- --from ${from} --seeds ${seed - from + 1} (alone: --seed ${seed})`

export interface RunOptions {
  verbose?: boolean
  progress?: (line: string) => void
  /**
   * Worlds run side by side in this process (each its own Herald, simulators and clock; seeds in order
   * within one). A seed spends most of its time waiting on sockets, so lanes share the CPU well.
   */
  lanes?: number
  /** Consecutive seeds per world (default 100). */
  seedsPerWorld?: number
  /** Once aborted, no new seed starts; the summary counts the seeds that finished. */
  signal?: AbortSignal
}

export async function runSeeds(seeds: readonly number[], options: RunOptions = {}): Promise<RunSummary> {
  const started = Date.now()
  const failed: SeedReport[] = []
  const events: Record<string, number> = {}
  const totalFaults: Record<string, number> = {}
  let deliveries = 0
  let done = 0
  // Consecutive seeds share a world, a fresh one per chunk: a seed's history is the seeds before it in its
  // chunk, whatever the lanes do, so `--from <chunk start> --seeds <n>` replays it exactly.
  const chunks: number[][] = []
  const perWorld = options.seedsPerWorld ?? SEEDS_PER_WORLD
  for (let i = 0; i < seeds.length; i += perWorld) chunks.push(seeds.slice(i, i + perWorld))

  const lane = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let world: World | undefined
      let first = chunk[0] as number
      const retire = async () => {
        if (!world) return
        for (const [kind, n] of world.faults.counts) totalFaults[kind] = (totalFaults[kind] ?? 0) + n
        const closing = world
        world = undefined
        // A world whose seed hung may never close cleanly; it is left behind after a moment.
        await Promise.race([closing.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())])
      }
      try {
        for (const seed of chunk) {
          if (options.signal?.aborted) break
          if (!world) {
            world = await startWithRetries()
            first = seed
          }
          const current = world
          const trace: string[] = []
          const report = await withWatchdog(
            current.within(() => runSeed(current, seed, trace)),
            seed,
            () => [...trace, ...current.faults.log],
          ).catch(
            (error: Error): SeedReport => ({
              seed,
              deliveries: 0,
              faults: 0,
              events: {},
              violations: [`the simulation itself failed: ${error.stack ?? error}`],
              trace: [...trace, ...current.faults.log],
            }),
          )
          report.history = first
          deliveries += report.deliveries
          done += 1
          for (const [kind, n] of Object.entries(report.events)) events[kind] = (events[kind] ?? 0) + n
          if (report.violations.length > 0) {
            failed.push(report)
            options.progress?.(describeFailure(report))
            // A seed that hung leaves its world in an unknown state: the next seed starts a fresh one.
            if (report.violations.some((v) => v.startsWith('the seed did not finish'))) await retire()
          } else if (options.verbose) {
            options.progress?.(`seed ${seed}: ok, ${report.deliveries} deliveries, ${report.faults} faults`)
            for (const line of report.trace) options.progress?.(`  ${line}`)
          }
          if (done % 500 === 0)
            options.progress?.(
              `${done}/${seeds.length} seeds, ${deliveries} deliveries, ${failed.length} failing, ${Math.round((Date.now() - started) / 1000)} s`,
            )
        }
      } finally {
        await retire()
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.lanes ?? 1, seeds.length)) }, lane))

  failed.sort((a, b) => a.seed - b.seed)
  const durationMs = Date.now() - started
  const faultTotal = Object.values(totalFaults).reduce((a, b) => a + b, 0)
  const lines = [
    `simulation: ${done} seeds${done < seeds.length ? ` (of ${seeds.length} asked; stopped early)` : ''}, ${deliveries} deliveries checked, ${faultTotal} network faults injected, ${failed.length} failing, ${(durationMs / 1000).toFixed(1)} s`,
    '  network faults by kind:',
    ...Object.entries(totalFaults)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `    ${kind}: ${n}`),
    '  process faults and tool calls:',
    ...Object.entries(events)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `    ${kind}: ${n}`),
    ...(failed.length
      ? [
          '  failing seeds:',
          ...failed.map(
            (r) =>
              `    ${r.seed}: ${r.violations[0]} [${likelyCause(r)}] (${replayCommand(r.seed, r.history)})`,
          ),
        ]
      : []),
  ]
  return {
    seeds: done,
    deliveries,
    faults: totalFaults,
    events,
    failed,
    durationMs,
    text: lines.join('\n'),
  }
}

export function describeFailure(report: SeedReport): string {
  return [
    `seed ${report.seed} FAILED (likely: ${likelyCause(report)}):`,
    ...report.violations.map((v) => `  - ${v}`),
    '  what happened:',
    ...report.trace.map((line) => `    ${line}`),
    `  replay: ${replayCommand(report.seed, report.history)}`,
  ].join('\n')
}

async function withWatchdog(
  running: Promise<SeedReport>,
  seed: number,
  soFar: () => string[],
): Promise<SeedReport> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<SeedReport>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          seed,
          deliveries: 0,
          faults: 0,
          events: {},
          violations: [
            `the seed did not finish in ${SEED_DEADLINE_MS / 1000} s: a send or a tool call never ended`,
          ],
          trace: soFar(),
        }),
      SEED_DEADLINE_MS,
    )
  })
  try {
    return await Promise.race([running, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** A world, tried three times: a loaded machine can be too slow for a first start. */
async function startWithRetries(): Promise<World> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWorld()
    } catch (error) {
      if (attempt >= 3) throw error
    }
  }
}
