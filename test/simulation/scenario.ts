import type { Network } from '../../src/core/networks.js'
import type { NetworkBehaviour } from './faults.js'
import { PublishingLedger } from './ledger.js'
import { checkEndState } from './oracle.js'
import { createPost, tend, toolCall } from './person.js'
import { Prng } from './prng.js'
import type { SeedContext, SimPost } from './seed-context.js'
import { FIRST_PROFILES, PROFILES, type SimWorker, type World } from './world.js'

/** What one seed did and found. */
export interface SeedReport {
  seed: number
  /** Targets whose end state was checked against what the networks hold. */
  deliveries: number
  faults: number
  /** Process faults and tool calls, by kind. */
  events: Record<string, number>
  violations: string[]
  /** What happened, step by step (printed for a failing seed). */
  trace: string[]
  /** The first seed of the world it ran in (the seeds from there to it are its history). */
  history?: number
}

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
/** Listing lags a seed's networks may have: at most 50 s, inside the minute Herald waits before a lookup. */
const LAGS = [0, 0, 5_000, 20_000, 40_000, 50_000]
/** How far a second worker's clock may be off: past the lease's 1 s margin, up to three leases. */
const SKEWS = [-25_000, 21_000, 25_000, 40_000, 90_000]

/** The workers of a seed, and how they run: every live one claims and sends at once (they race). */
class Fleet {
  readonly all: SimWorker[] = []
  private made = 0

  constructor(
    private readonly world: World,
    private readonly seed: number,
  ) {}

  add(skewMs?: number): SimWorker {
    const w = this.world.worker(`sim-${this.seed}-w${++this.made}`, skewMs ? { skewMs } : undefined)
    this.all.push(w)
    return w
  }

  alive(): SimWorker[] {
    return this.all.filter((w) => !w.dead && !w.stopped)
  }

  /** Claims and sends until nothing more is due. */
  async run(only: SimWorker[] = this.alive()): Promise<void> {
    for (let round = 0; round < 40; round++) {
      const claimed = await Promise.all(
        only.filter((w) => !w.dead && !w.stopped).map((w) => w.worker.tick().catch(() => 0)),
      )
      await Promise.all(only.map((w) => w.worker.idle()))
      if (claimed.every((n) => n === 0)) return
    }
  }
}

/** Runs one seed against the world and checks what the networks hold afterwards. */
export async function runSeed(world: World, seed: number, trace: string[] = []): Promise<SeedReport> {
  const rng = new Prng(seed)
  const steps = rng.fork('steps')
  const { clock, faults } = world
  const events: Record<string, number> = {}
  // Every seed starts at 09:00 UTC of a day of its own: the networks' windows and daily allowances are fresh,
  // and a seed's schedule does not depend on where the seed before it left the clock.
  clock.set((Math.floor(clock.now() / DAY) + 1) * DAY + 9 * 60 * MINUTE)
  const started = clock.now()
  const realStart = Date.now()
  let made = 0
  const ctx: SeedContext = {
    world,
    seed,
    pick: rng.fork('picks'),
    chains: rng.fork('chains'),
    newer: rng.fork('newer networks'),
    posts: [],
    violations: [],
    ledger: new PublishingLedger(world.h),
    count: (kind) => {
      events[kind] = (events[kind] ?? 0) + 1
    },
    note: (line) =>
      trace.push(
        `[+${Math.round((clock.now() - started) / 1000)}s] ${line}${process.env.HERALD_SIMULATION_TIMING ? ` (${Date.now() - realStart} ms)` : ''}`,
      ),
    nextPost: () => made++,
  }
  const healed = await world.heal()
  if (healed.length) {
    // A refresh whose answer a fault lost (the network rotated the token) leaves the profile to reconnect.
    ctx.count('profile reconnected after a lost token refresh')
    ctx.note(`reconnected ${healed.join(', ')}`)
  }

  const behaviour = networkBehaviour(steps)
  describeBehaviour(ctx, behaviour)
  faults.begin(rng.fork('faults'), behaviour)
  faults.watch = (call) => ctx.ledger.observe(call)
  const fleet = new Fleet(world, seed)
  fleet.add()
  try {
    const stepCount = steps.int(3, 9)
    for (let i = 0; i < stepCount; i++) await story(ctx, fleet, steps)
    await drain(ctx, fleet)
    const deliveries = await checkEndState(world, ctx.posts, ctx.ledger, ctx.violations)
    if (ctx.violations.length) tracePublishingCalls(ctx)
    return {
      seed,
      deliveries,
      faults: faults.log.length,
      events,
      violations: ctx.violations,
      trace: [...trace, ...faults.log],
    }
  } finally {
    faults.reset()
  }
}

/** How the seed's networks behave: fault rates, listing lags, duplicate checks, replies refused for good. */
function networkBehaviour(steps: Prng): NetworkBehaviour {
  const intensity = steps.pick([0.05, 0.15, 0.3, 0.5])
  const lags = steps.fork('lags')
  return {
    rates: { publishing: intensity, reads: intensity * 0.8, other: intensity * 0.3 },
    listingLagMs: Object.fromEntries(PROFILES.map(({ network }) => [network, lags.pick(LAGS)])),
    // Off in three seeds of four: a resend is then a second post for the copy count, not a refusal.
    duplicateChecks: steps.chance(0.25),
    itemRefusals: steps.pick([0, 0, 0.15, 0.4]),
    shortPages: steps.chance(0.3),
  }
}

function describeBehaviour(ctx: SeedContext, behaviour: NetworkBehaviour) {
  const lagged = Object.entries(behaviour.listingLagMs).filter(([, ms]) => ms > 0)
  ctx.note(
    `networks: faults ${behaviour.rates.publishing * 100}%, listing lag ${lagged.map(([n, ms]) => `${n} ${ms / 1000}s`).join(', ') || 'none'}, duplicate checks ${behaviour.duplicateChecks ? 'on' : 'off'}, replies refused ${behaviour.itemRefusals * 100}%${behaviour.shortPages ? ', short pages' : ''}`,
  )
  if (behaviour.itemRefusals > 0) ctx.count('seed refusing replies and comments')
  if (lagged.length) ctx.count('seed with a listing lag')
}

type Step =
  | 'create'
  | 'run'
  | 'tools'
  | 'tend'
  | 'jump'
  | 'kill'
  | 'pause'
  | 'race'
  | 'stop'
  | 'skew'
  | 'outage'

/** One step of the seed's story: posts, agent calls racing the workers, network and process faults. */
async function story(ctx: SeedContext, fleet: Fleet, steps: Prng): Promise<void> {
  const step = steps.pick<Step>([
    'create',
    'create',
    'create',
    'run',
    'run',
    'tools',
    'tools',
    'tend',
    'tend',
    'jump',
    'kill',
    'kill',
    'pause',
    'race',
    'stop',
    'skew',
    'outage',
  ])
  switch (step) {
    case 'create':
      await createPost(ctx)
      return fleet.run()
    case 'run':
      return fleet.run()
    case 'tools': {
      // Tool calls at the same time as the workers send.
      const n = steps.int(1, 3)
      await Promise.all([fleet.run(), ...Array.from({ length: n }, () => toolCall(ctx))])
      return fleet.run()
    }
    case 'tend':
      await tend(ctx)
      return fleet.run()
    case 'jump': {
      const ms = steps.pick([30_000, 2 * MINUTE, 15 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE])
      ctx.world.clock.advance(ms)
      ctx.count('clock jump')
      ctx.note(`clock jumps ${ms / 1000}s`)
      return fleet.run()
    }
    case 'race': {
      if (fleet.alive().length < 2) fleet.add()
      ctx.count('two workers racing')
      ctx.note('two workers race')
      await createPost(ctx)
      return fleet.run()
    }
    case 'kill':
      return kill(ctx, fleet, steps)
    case 'pause':
      return pause(ctx, fleet, steps)
    case 'stop':
      return gracefulStop(ctx, fleet, steps)
    case 'skew':
      return skewedWorker(ctx, fleet, steps)
    case 'outage':
      return outage(ctx, fleet, steps)
  }
}

/**
 * A worker killed at its n-th network call. While no live worker is left, nobody has swept its expired
 * lease: the person may act first (reset_stuck_post before the sweep); then a new worker starts, sweeps and
 * looks the post up, and the person may act again (after the sweep).
 */
async function kill(ctx: SeedContext, fleet: Fleet, steps: Prng) {
  const victim = fleet.alive()[0] ?? fleet.add()
  const at = victim.calls + steps.int(1, 8)
  const after = steps.chance(0.5)
  // Half the kills land as the answer to a publishing call comes back (the first, second or third from
  // now: a post, or an item after it): the post or item is out, unseen.
  const onPublishing = steps.chance(0.5)
  const nth = steps.int(1, 3)
  const before = steps.chance(0.5)
  const afterwards = steps.chance(0.4)
  // A live worker's sweep runs every half lease, so a dead lease is mostly found within 15 s of its end.
  const lapse = (steps.chance(0.7) ? steps.int(1, 15) : steps.int(16, 120)) * 1000
  if (onPublishing) victim.armKillAfterPublishing(() => ctx.ledger.total, nth)
  else victim.armKill(at, after)
  if (steps.chance(0.6)) await createPost(ctx)
  await fleet.run()
  victim.disarm()
  if (!victim.dead) return
  ctx.count('worker killed')
  ctx.note(
    `worker ${victim.id} killed ${onPublishing ? `as publishing call ${nth} from then answered` : `at its call ${at} (${after ? 'after' : 'before'} the request)`}`,
  )
  await victim.stop()
  // The lease runs out.
  ctx.world.clock.advance(ctx.world.h.app.config.worker.leaseMs + lapse)
  if (fleet.alive().length === 0 && before) {
    ctx.count('the person acts before any sweep')
    await tend(ctx)
  }
  fleet.add()
  // A live worker's sweep finds the lease.
  await new Promise((resolve) => setTimeout(resolve, 40))
  await fleet.run()
  if (afterwards) await tend(ctx)
}

/** A worker paused at its n-th call while the clock passes its lease; the person acts, another worker runs. */
async function pause(ctx: SeedContext, fleet: Fleet, steps: Prng) {
  const sleeper = fleet.alive()[0] ?? fleet.add()
  const at = sleeper.calls + steps.int(1, 8)
  const held = sleeper.armPause(at)
  if (steps.chance(0.7)) await createPost(ctx)
  const going = fleet.run([sleeper])
  const reached = await Promise.race([held.then(() => true), going.then(() => false)])
  if (reached) {
    ctx.count('worker paused past its lease')
    ctx.note(`worker ${sleeper.id} paused at its call ${at}`)
    ctx.world.clock.advance(ctx.world.h.app.config.worker.leaseMs + steps.int(1, 300) * 1000)
    const other = fleet.alive().find((w) => w !== sleeper) ?? fleet.add()
    await new Promise((resolve) => setTimeout(resolve, 40))
    // The agent sees a stuck post and acts, while another worker runs.
    if (steps.chance(0.6)) await Promise.all([steps.chance(0.5) ? tend(ctx) : toolCall(ctx), toolCall(ctx)])
    await fleet.run([other])
    sleeper.resume()
    ctx.note(`worker ${sleeper.id} resumed`)
  }
  sleeper.disarm()
  await going
  await fleet.run()
}

/**
 * A worker stopped gracefully (a deploy) just after it claimed what was due: it finishes its sends and
 * hands back the claims it had not started; the person calls tools before a new worker takes over.
 */
async function gracefulStop(ctx: SeedContext, fleet: Fleet, steps: Prng) {
  ctx.world.clock.advance(steps.pick([0, 2 * MINUTE, 15 * MINUTE]))
  // Several posts due at once on one network, more than it takes at a time, so some claims wait: on the
  // network of a post that is live with an item still to go, when there is one.
  const partly = await ctx.world.h.app.store.db
    .selectFrom('targets')
    .select('platform')
    .where('post_id', 'in', ctx.posts.map((p) => p.id).concat('none'))
    .where('status', '=', 'pending')
    .where('remote_id', 'is not', null)
    .execute()
  const network = (partly[0]?.platform as Network | undefined) ?? steps.pick(FIRST_PROFILES).network
  for (let n = steps.int(0, 5); n > 0; n--) await createPost(ctx, { network, now: false })
  ctx.world.clock.advance(90 * MINUTE)
  const leaving = fleet.alive()[0] ?? fleet.add()
  await leaving.worker.tick().catch(() => 0)
  await leaving.stop()
  ctx.count('worker stopped gracefully')
  ctx.note(`worker ${leaving.id} stopped gracefully`)
  if (steps.chance(0.5)) await tend(ctx)
  if (steps.chance(0.5)) await toolCall(ctx)
  if (fleet.alive().length === 0) fleet.add()
  await fleet.run()
}

/** A second worker on a machine whose clock is off by more than the lease's margin, from here on. */
async function skewedWorker(ctx: SeedContext, fleet: Fleet, steps: Prng) {
  const skewMs = steps.pick(SKEWS)
  fleet.add(skewMs)
  ctx.count('a worker with its clock off')
  ctx.note(`a worker starts with its clock ${Math.abs(skewMs) / 1000}s ${skewMs > 0 ? 'ahead' : 'behind'}`)
  if (steps.chance(0.7)) await createPost(ctx)
  await fleet.run()
}

/**
 * A network in trouble for a day: its publishing calls take effect and answer 503, its reads all fail, so
 * an unknown outcome's lookups run out (`lookups_exhausted`); then the person finds the stuck post.
 */
async function outage(ctx: SeedContext, fleet: Fleet, steps: Prng) {
  const own = ctx.posts.filter((p) => !p.deleted).map((p) => p.network)
  const network: Network =
    own.length && steps.chance(0.5) ? steps.pick(own) : steps.pick(FIRST_PROFILES).network
  ctx.world.faults.outage = network
  ctx.count('network outage of a day')
  ctx.note(`${network} is out for a day (writes land and answer 503, reads fail)`)
  if (steps.chance(0.8)) await createPost(ctx, { network, now: true })
  // Lookups back off to hours apart; a few long steps past the day let them run out.
  for (const hours of [1, 5, 6, 6, 6, 2]) {
    ctx.world.clock.advance(hours * 60 * MINUTE)
    await fleet.run()
  }
  ctx.world.faults.outage = undefined
  ctx.note(`${network} is back`)
  await tend(ctx)
  await fleet.run()
}

/** No more faults; time runs on until nothing of the seed is due, then every worker stops. */
async function drain(ctx: SeedContext, fleet: Fleet) {
  const { world } = ctx
  world.faults.end()
  for (const w of fleet.all) w.disarm()
  if (fleet.alive().length === 0) fleet.add()
  for (let round = 0; round < 60; round++) {
    world.clock.advance(round < 5 ? 2 * MINUTE : 60 * MINUTE)
    // The first round lets the workers' sweeps see leases the jump expired.
    if (round === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    await fleet.run()
    const due = await world.h.app.store.db
      .selectFrom('targets')
      .select('id')
      .where('post_id', 'in', ctx.posts.map((p) => p.id).concat('none'))
      .where('status', '=', 'pending')
      .where('stuck_at', 'is', null)
      // Due, or held by a worker that may still give it back (a claim a graceful stop releases): the drain
      // goes on until neither is left, so a lookup a stop handed back is not mistaken for one left behind.
      .where((eb) => eb.or([eb('run_at', 'is not', null), eb('lease_owner', 'is not', null)]))
      .execute()
    if (due.length === 0) break
  }
  ctx.note('drained')
  for (const w of fleet.all) await w.stop()
  ctx.note('stopped')
}

/** A failing seed's trace names every publishing call per post and item (the ledger's count). */
function tracePublishingCalls(ctx: SeedContext) {
  const line = (post: SimPost) =>
    `${post.tag} ${ctx.ledger.callsFor(post.tag)}${[...post.everItems.keys()].map((tag) => `, ${tag} ${ctx.ledger.callsFor(tag)}`).join('')}`
  ctx.note(`publishing calls: ${ctx.posts.map(line).join('; ') || 'none'}`)
}
