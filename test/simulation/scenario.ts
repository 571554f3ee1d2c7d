import type { Network } from '../../src/domain/networks.js'
import { RESET_MESSAGE } from '../../src/domain/post-status.js'
import { readItems } from '../../src/domain/thread-items.js'
import type { FaultRates } from './faults.js'
import { type Copy, countCopies, countItemCopies } from './oracle.js'
import { Prng } from './prng.js'
import { PROFILES, type SimWorker, type World } from './world.js'

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

interface SimPost {
  id: string
  tag: string
  network: Network
  content: string
  price: number
  /** Credits the tools said they charged for this post. */
  charged: number
  deleted: boolean
  resets: number
  /** Tags of its thread items (X, Bluesky, Threads) or of its first comment (the others), in delivery order. */
  items: string[]
  /** `thread` (each item answers the one before, the first the post) or `firstComment` (answers the post). */
  role: 'thread' | 'firstComment' | undefined
}

const DOCUMENTED_PRICE = (network: Network) => (network === 'twitter' ? 5 : 1)
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const THREAD_NETWORKS = new Set<Network>(['twitter', 'bluesky', 'threads'])
/** Threads and first comments are on unless HERALD_SIMULATION_CHAINS=0. */
const CHAINS = process.env.HERALD_SIMULATION_CHAINS !== '0'
const OK_STATUSES = new Set([200, 400, 404, 409])

/** Runs one seed against the world and checks what the networks hold afterwards. */
export async function runSeed(world: World, seed: number, trace: string[] = []): Promise<SeedReport> {
  const rng = new Prng(seed)
  const steps = rng.fork('steps')
  const pick = rng.fork('picks')
  // Threads and first comments draw from a stream of their own: the rest of a seed's schedule is unchanged.
  const chains = rng.fork('chains')
  const { h, clock, faults } = world
  const events: Record<string, number> = {}
  const violations: string[] = []
  const count = (kind: string) => {
    events[kind] = (events[kind] ?? 0) + 1
  }
  const realStart = Date.now()
  const note = (line: string) =>
    trace.push(
      `[+${Math.round((clock.now() - started) / 1000)}s] ${line}${process.env.HERALD_SIMULATION_TIMING ? ` (${Date.now() - realStart} ms)` : ''}`,
    )
  // Every seed starts at 09:00 UTC of a day of its own: the networks' windows and daily allowances are fresh,
  // and a seed's schedule does not depend on where the seed before it left the clock.
  clock.set((Math.floor(clock.now() / DAY) + 1) * DAY + 9 * 60 * MINUTE)
  const started = clock.now()
  const healed = await world.heal()
  if (healed.length) {
    // A refresh whose answer a fault lost (the network rotated the token) leaves the profile to reconnect.
    count('profile reconnected after a lost token refresh')
    note(`reconnected ${healed.join(', ')}`)
  }

  const intensity = steps.pick([0.05, 0.15, 0.3, 0.5])
  const rates: FaultRates = { publishing: intensity, reads: intensity * 0.8, other: intensity * 0.3 }
  faults.begin(rng.fork('faults'), rates)

  const posts: SimPost[] = []
  let made = 0
  let workerNo = 0
  const workers: SimWorker[] = []
  const newWorker = () => {
    const w = world.worker(`sim-${seed}-w${++workerNo}`)
    workers.push(w)
    return w
  }
  newWorker()
  const alive = () => workers.filter((w) => !w.dead)

  /** Claims and sends until nothing more is due, on every live worker at once (they race). */
  const run = async (only: SimWorker[] = alive()) => {
    for (let round = 0; round < 40; round++) {
      const claimed = await Promise.all(
        only.filter((w) => !w.dead).map((w) => w.worker.tick().catch(() => 0)),
      )
      await Promise.all(only.map((w) => w.worker.idle()))
      if (claimed.every((n) => n === 0)) return
    }
  }

  const schedule = (minutes: number) => {
    const at = new Date(clock.now() + minutes * MINUTE)
    return {
      scheduleDate: at.toISOString().slice(0, 10),
      scheduleTime: at.toISOString().slice(11, 16),
      timezone: 'UTC',
    }
  }

  const createPost = async () => {
    const network = pick.pick(PROFILES).network
    const tag = `s${seed}n${made++}z`
    const content = `Simulated ${network} post ${tag} ${pick.pick(['hello', 'news', 'today', 'update'])}`
    const media =
      network === 'youtube'
        ? [`${world.media.url}/clip.mp4`]
        : network === 'instagram' || pick.chance(0.25)
          ? [`${world.media.url}/photo-${tag}.jpg`]
          : []
    const now = pick.chance(0.75)
    // About 40% of posts carry a thread (X, Bluesky, Threads) or a first comment (the others);
    // HERALD_SIMULATION_CHAINS=0 leaves them out (they draw from a stream of their own, so the rest of a
    // seed's schedule does not change).
    const chained = chains.chance(0.4) && CHAINS
    const role = !chained ? undefined : THREAD_NETWORKS.has(network) ? 'thread' : 'firstComment'
    const items = Array.from({ length: role === 'thread' ? chains.int(2, 4) : role ? 1 : 0 }, (_, k) =>
      tag.replace(/^s/, 'r').replace(/z$/, `i${k}q`),
    )
    const withPicture = items.map(() => role === 'thread' && chains.chance(0.2))
    const answer = await h.call('create_post', {
      content,
      targetAccounts: [{ platform: network, profileId: world.connections.get(network)!.profileId }],
      ...(media.length ? { mediaUrls: media } : {}),
      ...(role === 'thread'
        ? {
            thread: items.map((itemTag, k) => ({
              content: `Reply ${k + 2} ${itemTag}`,
              ...(withPicture[k] ? { mediaUrls: [`${world.media.url}/photo-${itemTag}.jpg`] } : {}),
            })),
          }
        : role === 'firstComment'
          ? { firstComment: `First comment ${items[0]}` }
          : {}),
      ...(now ? { publishImmediately: true } : schedule(pick.int(1, 90))),
    })
    count('create_post')
    if (answer.status !== 200) {
      // A clear refusal (a profile a lost token refresh left to reconnect, say) is an answer; a 5xx is not.
      if (!OK_STATUSES.has(answer.status))
        violations.push(
          `create_post for ${network} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
        )
      note(`create_post ${network} ${tag} -> ${answer.status} ${answer.body?.error?.code}`)
      return
    }
    const id = answer.body.postIds[0] as string
    posts.push({
      id,
      tag,
      network,
      content,
      price: DOCUMENTED_PRICE(network),
      charged: Number(answer.body.credits?.charged ?? 0),
      deleted: false,
      resets: 0,
      items,
      role,
    })
    note(
      `create_post ${network} ${tag}${role ? ` +${items.length} ${role}` : ''} ${now ? 'now' : 'scheduled'} -> ${id}`,
    )
    if (role) count(role === 'thread' ? 'post with a thread' : 'post with a first comment')
  }

  /** One tool call from the agent, on a post of this seed. */
  const toolCall = async () => {
    const post = posts.length ? pick.pick(posts) : undefined
    if (!post) return createPost()
    const kind = pick.pick([
      'publish_post_now',
      'publish_post_now',
      'reset_stuck_post',
      'reset_stuck_post',
      'update_post',
      'reschedule_post',
      'delete_post',
      'multicall',
    ] as const)
    const single = (tool: string) => {
      switch (tool) {
        case 'update_post':
          return { id: post.id, content: `${post.content} edit${pick.int(1, 99)}` }
        case 'reschedule_post':
          return { id: post.id, ...schedule(pick.int(5, 120)) }
        default:
          return { id: post.id }
      }
    }
    // Copies the networks hold before a paid resend: a resend charged for a post already there is a double charge.
    const before = stillToGo(post)
    if (kind === 'multicall') {
      const tools = [
        pick.pick(['reset_stuck_post', 'update_post', 'reschedule_post']),
        pick.pick(['publish_post_now', 'delete_post', 'reset_stuck_post']),
      ]
      const answer = await h.call('multicall', {
        calls: tools.map((tool) => ({ tool, arguments: single(tool) })),
        stopOnError: false,
      })
      count('multicall')
      note(`multicall ${tools.join('+')} ${post.tag} -> ${answer.status}`)
      if (answer.status !== 200) {
        violations.push(`multicall answered ${answer.status}: ${JSON.stringify(answer.body)}`)
        return
      }
      for (const [i, result] of (answer.body.results as any[]).entries()) {
        if (result.ok) account(tools[i]!, post, result.result, before)
        else if (result.error?.code === 'internal')
          violations.push(`${tools[i]} in a multicall failed: ${JSON.stringify(result.error)}`)
      }
      return
    }
    const answer = await h.call(kind, single(kind))
    count(kind)
    note(
      `${kind} ${post.tag} -> ${answer.status}${answer.status === 200 ? '' : ` ${answer.body?.error?.code}`}`,
    )
    if (!OK_STATUSES.has(answer.status)) {
      violations.push(`${kind} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
      return
    }
    if (answer.status === 200) account(kind, post, answer.body, before)
  }

  /** How many of the post and its items the network does not hold yet (what a resend may charge for). */
  const stillToGo = (post: SimPost) =>
    (countCopies(world.h, post.network, post.tag).length > 0 ? 0 : 1) +
    post.items.filter((tag) => countItemCopies(world.h, post.network, tag).length === 0).length

  const account = (tool: string, post: SimPost, body: any, toGoBefore: number) => {
    if (tool === 'delete_post') post.deleted = true
    if (tool === 'reset_stuck_post') post.resets += 1
    // reschedule_post states its price in its message only ("... (1 credits for re-sending ...)").
    const stated = /\((\d+) credits for re-sending/.exec(String(body?.message ?? ''))
    const charged = Number(body?.credits?.charged ?? stated?.[1] ?? 0)
    if (charged > 0) {
      post.charged += charged
      // A resend pays for what is still to go out: the post unless it is live, and each item not live yet.
      if (charged % post.price !== 0 || charged > post.price * (1 + post.items.length))
        violations.push(
          `${tool} of ${post.tag} charged ${charged}, the documented price is ${post.price} a post or item`,
        )
      if (charged > post.price * toGoBefore)
        violations.push(
          `${tool} of ${post.tag} charged ${charged} for a resend while ${post.network} held all but ${toGoBefore} of it`,
        )
    }
  }

  // The seed's story: posts, agent calls racing the workers, network and process faults.
  const stepCount = steps.int(3, 9)
  for (let i = 0; i < stepCount; i++) {
    const step = steps.pick([
      'create',
      'create',
      'run',
      'run',
      'tools',
      'tools',
      'jump',
      'kill',
      'pause',
      'race',
    ] as const)
    switch (step) {
      case 'create':
        await createPost()
        await run()
        break
      case 'run':
        await run()
        break
      case 'tools': {
        // Tool calls at the same time as the workers send.
        const n = steps.int(1, 3)
        await Promise.all([run(), ...Array.from({ length: n }, () => toolCall())])
        await run()
        break
      }
      case 'jump': {
        const ms = steps.pick([30_000, 2 * MINUTE, 15 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE])
        clock.advance(ms)
        count('clock jump')
        note(`clock jumps ${ms / 1000}s`)
        await run()
        break
      }
      case 'race': {
        if (alive().length < 2) newWorker()
        count('two workers racing')
        note('two workers race')
        await createPost()
        await run()
        break
      }
      case 'kill': {
        const victim = alive()[0]!
        const at = victim.calls + steps.int(1, 8)
        const after = steps.chance(0.5)
        victim.armKill(at, after)
        if (steps.chance(0.6)) await createPost()
        await run()
        victim.disarm()
        if (victim.dead) {
          count('worker killed')
          note(`worker ${victim.id} killed at its call ${at} (${after ? 'after' : 'before'} the request)`)
          await victim.stop()
          newWorker()
          // The lease runs out, and the sweep of a live worker finds it.
          clock.advance(h.app.config.worker.leaseMs + steps.int(1, 120) * 1000)
          await new Promise((resolve) => setTimeout(resolve, 40))
          await run()
        }
        break
      }
      case 'pause': {
        const sleeper = alive()[0]!
        const at = sleeper.calls + steps.int(1, 8)
        const held = sleeper.armPause(at)
        if (steps.chance(0.7)) await createPost()
        const going = run([sleeper])
        const reached = await Promise.race([held.then(() => true), going.then(() => false)])
        if (reached) {
          count('worker paused past its lease')
          note(`worker ${sleeper.id} paused at its call ${at}`)
          clock.advance(h.app.config.worker.leaseMs + steps.int(1, 300) * 1000)
          const other = alive().find((w) => w !== sleeper) ?? newWorker()
          await new Promise((resolve) => setTimeout(resolve, 40))
          // The agent sees a stuck post and acts, while another worker runs.
          if (steps.chance(0.6)) await Promise.all([toolCall(), toolCall()])
          await run([other])
          sleeper.resume()
          note(`worker ${sleeper.id} resumed`)
        }
        sleeper.disarm()
        await going
        await run()
        break
      }
    }
  }

  // Drain: no more faults; time runs on until nothing of this seed is due.
  faults.end()
  for (const w of workers) w.disarm()
  for (let round = 0; round < 60; round++) {
    clock.advance(round < 5 ? 2 * MINUTE : 60 * MINUTE)
    // The first round lets the workers' sweeps see leases the jump expired.
    if (round === 0) await new Promise((resolve) => setTimeout(resolve, 20))
    await run()
    const due = await h.app.store.db
      .selectFrom('targets')
      .select('id')
      .where('post_id', 'in', posts.map((p) => p.id).concat('none'))
      .where('status', '=', 'pending')
      .where('lease_owner', 'is', null)
      .where('run_at', 'is not', null)
      .execute()
    if (due.length === 0) break
  }
  note('drained')
  for (const w of workers) await w.stop()
  note('stopped')

  const deliveries = await check(world, posts, violations)
  return { seed, deliveries, faults: faults.log.length, events, violations, trace: [...trace, ...faults.log] }
}

/** The oracle: what each network holds, against what Herald recorded and charged. */
async function check(world: World, posts: SimPost[], violations: string[]): Promise<number> {
  const { h } = world
  const now = world.clock.now()
  let deliveries = 0
  for (const post of posts) {
    const copies: Copy[] = countCopies(h, post.network, post.tag)
    const where = `${post.network} post ${post.tag} (${post.id})`
    if (copies.length > 1) violations.push(`${where}: the network holds ${copies.length} copies`)
    // Each thread item or first comment: at most one copy on the network, whatever happened to the post.
    const itemCopies = post.items.map((tag) => countItemCopies(h, post.network, tag))
    for (const [k, held] of itemCopies.entries())
      if (held.length > 1)
        violations.push(`${where}: the network holds ${held.length} copies of its ${post.role} item ${k + 1}`)
    const targets = await h.app.store.db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', post.id)
      .execute()
    const row = await h.app.store.db
      .selectFrom('posts')
      .select(['status', 'last_error'])
      .where('id', '=', post.id)
      .executeTakeFirst()
    if (!row) {
      if (!post.deleted) violations.push(`${where}: the post is gone though nobody deleted it`)
      else if (copies.length > 0) violations.push(`${where}: deleted in Herald, but the network holds it`)
      deliveries += 1
      continue
    }
    for (const target of targets) {
      deliveries += 1
      const stuck = target.status === 'pending' && target.lease_owner !== null
      if (target.status === 'published') {
        if (copies.length !== 1)
          violations.push(`${where}: published, but the network holds ${copies.length} copies`)
        const copy = copies[0]
        if (copy && !copy.ids.includes(target.remote_id ?? ''))
          violations.push(
            `${where}: published as ${target.remote_id}, the network's copy is ${copy.ids.join('|')}`,
          )
        // Instagram and Threads give the profile's page when the permalink read fails (documented fallback),
        // here the simulator's page of it.
        const profilePage = /\/sandbox\/(meta\/web\/instagram\/[^/]+\/|threads\/web\/@[^/]+)$/.test(
          target.url ?? '',
        )
        if (copy && !profilePage && !copy.urlKeys.some((key) => target.url?.includes(key)))
          violations.push(
            `${where}: published with url ${target.url}, which names none of ${copy.urlKeys.join('|')}`,
          )
        // Every item is there once, answering the right parent, under the remote id Herald recorded.
        const recorded = readItems(target.items)
        if (recorded.length !== post.items.length)
          violations.push(
            `${where}: published with ${recorded.length} items, ${post.items.length} were asked for`,
          )
        for (const [k, held] of itemCopies.entries()) {
          const item = `${post.role} item ${k + 1}`
          const parent = post.role === 'thread' && k > 0 ? itemCopies[k - 1]?.[0]?.id : target.remote_id
          if (held.length !== 1) {
            violations.push(`${where}: published, but the network holds ${held.length} copies of its ${item}`)
            continue
          }
          if (held[0]!.parent !== parent)
            violations.push(`${where}: its ${item} answers ${held[0]!.parent}, not ${parent}`)
          if (recorded[k]?.status !== 'published' || recorded[k]?.remoteId !== held[0]!.id)
            violations.push(
              `${where}: its ${item} is recorded ${recorded[k]?.status} as ${recorded[k]?.remoteId}, the network's is ${held[0]!.id}`,
            )
        }
      } else if (target.status === 'failed') {
        // A person's reset says "may or may not have reached the network": that one may be there. A chain
        // that stopped at an item keeps its live post (its remote id stays on the target).
        const byReset = target.error === RESET_MESSAGE
        const chainStopped = post.items.length > 0 && target.remote_id !== null
        if (chainStopped && copies[0] && !copies[0].ids.includes(target.remote_id ?? ''))
          violations.push(
            `${where}: failed after its post went out as ${target.remote_id}, the network's copy is ${copies[0].ids.join('|')}`,
          )
        if (copies.length > (byReset || chainStopped ? 1 : 0))
          violations.push(`${where}: failed (${target.error}), but the network holds ${copies.length}`)
      } else if (stuck) {
        if (!target.error && !row.last_error) violations.push(`${where}: stuck without saying why`)
        if ((target.lease_expires_at ?? 0) >= now && target.stuck_at === null)
          violations.push(`${where}: still leased by ${target.lease_owner} after every worker stopped`)
      } else if (target.status === 'pending') {
        if (target.run_at === null && row.status !== 'draft')
          violations.push(`${where}: pending with no due time (post ${row.status})`)
        else
          violations.push(
            `${where}: still pending after the drain (due ${new Date(target.run_at ?? 0).toISOString()}, ${target.error ?? ''})`,
          )
      }
    }
    // Credits: what the ledger took for this post is what the tools said they charged, at documented prices.
    const ledger = await h.app.store.db
      .selectFrom('credit_ledger')
      .select(['delta', 'reason'])
      .where('reference', '=', post.id)
      .execute()
    const taken = -ledger.reduce((sum, entry) => sum + Number(entry.delta), 0)
    if (taken !== post.charged)
      violations.push(`${where}: the ledger took ${taken} credits, the tools said ${post.charged}`)
    if (post.charged % post.price !== 0 || post.charged === 0)
      violations.push(`${where}: charged ${post.charged}, not a multiple of its price ${post.price}`)
  }
  return deliveries
}
