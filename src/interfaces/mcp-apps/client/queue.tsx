import { useState } from 'preact/hooks'
import { FREE_SLOTS_META_KEY, type FreeSlot } from '../views.js'
import { answerOf, errorOf, mountView, type ViewProps } from './parts/mount.js'
import { Chip, NetworkMark, PostStatus } from './parts/parts.js'
import { type PostView, postState, profileName } from './parts/words.js'

/**
 * The queue (list_posts): the listed posts as an agenda, day by day in slot order, each with its profiles'
 * networks and its state; choosing one asks the host for get_post and shows what happened to it.
 */

interface ListAnswer {
  posts: Array<PostView & { dueAt?: string }>
  pagination: { totalPosts: number; page: number; totalPages: number }
}

type Entry = { post: ListAnswer['posts'][number] } | { free: FreeSlot }

const whenOf = (entry: Entry) => ('post' in entry ? entry.post : entry.free)

/** The posts and the free posting times by day, each day's in time order (a post before a free time at the same minute). */
function byDay(posts: ListAnswer['posts'], free: readonly FreeSlot[]) {
  const entries: Entry[] = [...posts.map((post) => ({ post })), ...free.map((slot) => ({ free: slot }))]
  entries.sort((a, b) => {
    const at = (e: Entry) => `${whenOf(e).scheduleDate} ${whenOf(e).scheduleTime} ${'post' in e ? 0 : 1}`
    return at(a).localeCompare(at(b))
  })
  const days = new Map<string, Entry[]>()
  for (const entry of entries) {
    const day = whenOf(entry).scheduleDate
    days.set(day, [...(days.get(day) ?? []), entry])
  }
  return [...days.entries()]
}

/** The free posting times the result carries, when Herald handed them over. */
function freeSlotsOf(result: ViewProps['result']): FreeSlot[] {
  const slots = (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[FREE_SLOTS_META_KEY]
  return Array.isArray(slots) ? (slots as FreeSlot[]) : []
}

const dayName = (date: string) => {
  const day = new Date(`${date}T12:00:00Z`)
  if (Number.isNaN(day.getTime())) return date
  return day.toLocaleDateString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  })
}

/** A free posting time: dashed, and said in words. */
const FreeRow = ({ slot }: { slot: FreeSlot }) => (
  <li>
    <div class="row free">
      <span class="time">{slot.scheduleTime}</span>
      <span class="nets">
        <span class="net-name">
          <NetworkMark platform={slot.platform} />
          {profileName(slot.platform as PostView['targets'][number]['platform'], slot.username)}
        </span>
      </span>
      <span class="excerpt">Free slot</span>
    </div>
  </li>
)

function QueueView({ host, can, result }: ViewProps) {
  const [opened, setOpened] = useState<PostView | undefined>()
  const [problem, setProblem] = useState<string | undefined>()
  const refused = errorOf(result)
  if (refused)
    return (
      <p class="problem" role="alert">
        {refused}
      </p>
    )
  const answer = answerOf<ListAnswer>(result)
  if (!answer) return <p class="waiting">Waiting for Herald’s answer…</p>
  if (opened)
    return (
      <>
        <button type="button" class="link" onClick={() => setOpened(undefined)}>
          Back to the queue
        </button>
        <PostStatus host={host} post={opened} />
      </>
    )
  const open = async (id: string) => {
    setProblem(undefined)
    const got = await host.callTool('get_post', { id })
    const post = answerOf<PostView>(got)
    if (post) setOpened(post)
    else setProblem(errorOf(got) ?? 'Herald could not open that post.')
  }
  return (
    <>
      <h1>Posting queue</h1>
      <p class="muted">
        {answer.pagination.totalPosts} post{answer.pagination.totalPosts === 1 ? '' : 's'}
        {answer.pagination.totalPages > 1
          ? ` · page ${answer.pagination.page} of ${answer.pagination.totalPages}`
          : ''}
      </p>
      {problem ? (
        <p class="problem" role="alert">
          {problem}
        </p>
      ) : null}
      {answer.posts.length === 0 ? <p>No posts match.</p> : null}
      {byDay(answer.posts, freeSlotsOf(result)).map(([date, entries]) => (
        <section class="day" aria-label={dayName(date)}>
          <h2>{dayName(date)}</h2>
          <ul class="agenda">
            {entries.map((entry) => {
              if ('free' in entry) return <FreeRow slot={entry.free} />
              const { post } = entry
              const state = postState(post)
              const what = (
                <>
                  <span class="time">{post.scheduleTime}</span>
                  <span class="nets">
                    {post.targets.map((t) => (
                      <span class="net-name">
                        <NetworkMark platform={t.platform} />
                        {profileName(t.platform, t.username)}
                      </span>
                    ))}
                  </span>
                  <span class="excerpt">{post.content}</span>
                  <Chip tone={state.tone}>{state.words}</Chip>
                </>
              )
              return (
                <li>
                  {can.open ? (
                    <button type="button" class="row" onClick={() => void open(post.id)}>
                      {what}
                    </button>
                  ) : (
                    <div class="row">{what}</div>
                  )}
                </li>
              )
            })}
          </ul>
        </section>
      ))}
    </>
  )
}

mountView(QueueView)
