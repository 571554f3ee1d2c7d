import type { ConnectionInfo } from '../../core/post-plan.js'
import {
  checkQueue,
  describeSlots,
  type PostingQueue,
  type QueueOpening,
  queueOpenings,
} from '../../core/posting-queue.js'
import type { Db, Store } from '../../platform/db/db.js'
import {
  deleteQueue,
  lockQueues,
  queuesOf,
  saveQueue,
  takenInstants,
} from '../../platform/db/statements/posting-queues.js'
import { AppError, invalid, notFound } from '../../platform/errors.js'
import { loadConnectionInfos } from './rows.js'

/**
 * Posting queues: set and read a profile's weekly posting times, and take the next free one for a post
 * (`queue: true` on create_post). Which slots are taken is read from the posts themselves in the
 * transaction that writes the new post, with the profile's queue row locked, so two posts never take the
 * same slot of a profile through the queue.
 */

const DAY_MS = 86_400_000
/** Free slots are looked for this far ahead, four weeks of taken slots read at a time. */
export const QUEUE_HORIZON_MS = 731 * DAY_MS
const WINDOW_MS = 28 * DAY_MS

const label = (c: Pick<ConnectionInfo, 'platform' | 'username'>) =>
  `${c.platform} @${c.username.replace(/^@+/, '')}`

export interface QueueView {
  platform: string
  profileId: string
  username: string
  timezone: string
  /** The posting times as written: `daily 09:00`, `mon,wed 12:30`. */
  slots: string[]
  /** The next free posting times, as wall-clock slots with their instants. */
  next: Array<{ scheduleDate: string; scheduleTime: string; timezone: string; dueAt: string }>
}

/**
 * The first opening of a profile's queue after `after` that no post of that profile holds (and that is not
 * in `alsoTaken`, the openings a caller is about to take), or undefined when the horizon is full.
 */
export async function nextFreeOpening(
  db: Db,
  workspaceId: string,
  connectionId: string,
  queue: PostingQueue,
  after: number,
  alsoTaken?: ReadonlySet<number>,
): Promise<QueueOpening | undefined> {
  const end = after + QUEUE_HORIZON_MS
  for (let from = after; from < end; from += WINDOW_MS) {
    const to = Math.min(from + WINDOW_MS, end)
    const openings = queueOpenings(queue, from, to)
    if (openings.length === 0) continue
    const taken = (await takenInstants(db, workspaceId, [connectionId], from, to)).get(connectionId)
    const free = openings.find((o) => !taken?.has(o.dueAt) && !alsoTaken?.has(o.dueAt))
    if (free) return free
  }
  return undefined
}

/** The profiles among `connections` that have no posting queue, as a 400 naming each (nothing is created). */
export function refuseWithoutQueue(connections: ConnectionInfo[], queued: ReadonlySet<string>) {
  const missing = connections.filter((c) => !queued.has(c.id))
  if (missing.length === 0) return
  throw invalid(
    `queue: ${missing.map(label).join(', ')} ${missing.length > 1 ? 'have' : 'has'} no posting times; set them on the Queue page of the dashboard, or with herald queue set, or send scheduleDate and scheduleTime instead`,
    missing.map((c) => ({ path: 'queue', message: `${label(c)} has no posting queue` })),
  )
}

/** Which of the workspace's profiles have a posting queue. */
export async function profilesWithQueue(db: Db, workspaceId: string): Promise<Map<string, PostingQueue>> {
  return new Map((await queuesOf(db, workspaceId)).map((q) => [q.connectionId, q]))
}

/**
 * Takes each profile's next free slot, inside the caller's write transaction (the queue rows locked on
 * Postgres; SQLite has one writer). A profile without a queue, or whose next two years are full, is a 400.
 */
export async function takeQueueSlots(
  tx: Db,
  store: Store,
  workspaceId: string,
  connections: ConnectionInfo[],
  now: number,
): Promise<Map<string, QueueOpening>> {
  const queues = await lockQueues(
    tx,
    store,
    connections.map((c) => c.id),
  )
  refuseWithoutQueue(connections, new Set(queues.keys()))
  const slots = new Map<string, QueueOpening>()
  for (const connection of connections) {
    const queue = queues.get(connection.id) as PostingQueue
    const opening = await nextFreeOpening(tx, workspaceId, connection.id, queue, now + 1)
    if (!opening)
      throw invalid(`queue: every posting time of ${label(connection)} in the next two years is taken`, [
        { path: 'queue', message: `${label(connection)} has no free posting time` },
      ])
    slots.set(connection.id, opening)
  }
  return slots
}

/** Every queue of the workspace with its next free times, for the Queue page and GET /api/queues. */
export async function listQueues(db: Db, workspaceId: string, now: number, count = 5): Promise<QueueView[]> {
  const [queues, connections] = await Promise.all([
    queuesOf(db, workspaceId),
    loadConnectionInfos(db, workspaceId),
  ])
  const views: QueueView[] = []
  for (const queue of queues) {
    const connection = connections.find((c) => c.id === queue.connectionId)
    if (!connection) continue
    const next: QueueOpening[] = []
    const taken = new Set<number>()
    while (next.length < count) {
      const opening = await nextFreeOpening(db, workspaceId, connection.id, queue, now + 1, taken)
      if (!opening) break
      taken.add(opening.dueAt)
      next.push(opening)
    }
    views.push({
      platform: connection.platform,
      profileId: connection.profileId,
      username: connection.username,
      timezone: queue.timezone,
      slots: describeSlots(queue.slots),
      next: next.map((o) => ({
        scheduleDate: o.date,
        scheduleTime: o.time,
        timezone: o.timezone,
        dueAt: new Date(o.dueAt).toISOString(),
      })),
    })
  }
  return views.sort((a, b) => `${a.platform}${a.username}`.localeCompare(`${b.platform}${b.username}`))
}

/** The free slots of every queue of the workspace in [from, to) (the calendar shows them). */
export async function freeOpenings(
  db: Db,
  workspaceId: string,
  from: number,
  to: number,
): Promise<
  Array<QueueOpening & { platform: ConnectionInfo['platform']; username: string; profileId: string }>
> {
  const [queues, connections] = await Promise.all([
    queuesOf(db, workspaceId),
    loadConnectionInfos(db, workspaceId),
  ])
  const live = queues.filter((q) => connections.some((c) => c.id === q.connectionId))
  const taken = await takenInstants(
    db,
    workspaceId,
    live.map((q) => q.connectionId),
    from,
    to,
  )
  return live.flatMap((queue) => {
    const connection = connections.find((c) => c.id === queue.connectionId) as ConnectionInfo
    return queueOpenings(queue, from, to)
      .filter((o) => !taken.get(queue.connectionId)?.has(o.dueAt))
      .map((o) => ({
        ...o,
        platform: connection.platform,
        username: connection.username,
        profileId: connection.profileId,
      }))
  })
}

export interface QueueSetting {
  platform: string
  /** The profile: its id, or its username. */
  profile: string
  timezone: string
  /** Posting times as written (`daily 09:00`); an empty list removes the profile's queue. */
  slots: string[]
}

/**
 * Sets (replaces) a profile's posting times. Malformed or overlapping times and an unknown zone are a 400
 * naming each entry; a profile that is not connected is a 404. Editors and owners may both set them
 * (scheduling is an editor's work, DESIGN.md "Roles").
 */
export async function setQueue(db: Db, workspaceId: string, setting: QueueSetting, now: number) {
  const connections = await loadConnectionInfos(db, workspaceId)
  const wanted = setting.profile.replace(/^@+/, '').toLowerCase()
  const onNetwork = connections.filter((c) => c.platform === setting.platform)
  const matches = onNetwork.filter(
    (c) => c.profileId === setting.profile || c.username.replace(/^@+/, '').toLowerCase() === wanted,
  )
  if (matches.length !== 1)
    throw matches.length === 0
      ? notFound(`No connected ${setting.platform} profile is ${setting.profile}`)
      : invalid(
          `${matches.length} ${setting.platform} profiles match ${setting.profile}; name one by its profile id`,
        )
  const connection = matches[0] as ConnectionInfo
  if (setting.slots.length === 0) {
    await deleteQueue(db, connection.id)
    return { connection, queue: undefined }
  }
  const { queue, problems } = checkQueue({ timezone: setting.timezone, slots: setting.slots })
  if (problems.length > 0)
    throw new AppError(
      'invalid_request',
      `The posting times of ${label(connection)} were not saved: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    )
  await saveQueue(
    db,
    { connectionId: connection.id, workspaceId, timezone: queue.timezone, slots: queue.slots },
    now,
  )
  return { connection, queue }
}

/**
 * What `queue: true` would give each profile now, without taking anything (preflight_post and the CSV
 * check): its next free slot, or a blocker naming the profile. `alsoTaken` holds openings per profile that
 * earlier rows of the same check would take.
 */
export async function previewQueueSlots(
  db: Db,
  workspaceId: string,
  connections: ConnectionInfo[],
  now: number,
  alsoTaken?: ReadonlyMap<string, ReadonlySet<number>>,
): Promise<{ slots: Map<string, QueueOpening>; blockers: string[] }> {
  const queues = await profilesWithQueue(db, workspaceId)
  const slots = new Map<string, QueueOpening>()
  const blockers: string[] = []
  for (const connection of connections) {
    const queue = queues.get(connection.id)
    if (!queue) {
      blockers.push(
        `${label(connection)} has no posting queue: set its posting times on the Queue page or with herald queue set, or give a date and time`,
      )
      continue
    }
    const opening = await nextFreeOpening(
      db,
      workspaceId,
      connection.id,
      queue,
      now + 1,
      alsoTaken?.get(connection.id),
    )
    if (opening) slots.set(connection.id, opening)
    else blockers.push(`${label(connection)}: every posting time in the next two years is taken`)
  }
  return { slots, blockers }
}
