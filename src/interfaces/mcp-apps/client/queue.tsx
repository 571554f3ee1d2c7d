import { useState } from 'preact/hooks'
import { FREE_SLOTS_META_KEY, type FreeSlot } from '../views.js'
import { answerOf, errorOf, mountView, type ViewProps } from './parts/mount.js'
import { PostStatus } from './parts/parts.js'
import { byDay, byWeek, type Day, type QueuePost } from './parts/queue-days.js'
import { type OpenPost, QueueEntry } from './parts/queue-entry.js'
import { dayName, WeekCalendar } from './parts/queue-week.js'
import type { PostView } from './parts/words.js'

/**
 * The queue (list_posts): the listed posts and each profile's free posting times, as an agenda day by day
 * when the view is inline, and as a week calendar when the host gives it the room (expanded); choosing a
 * post asks the host for get_post and shows what happened to it.
 */

interface ListAnswer {
  posts: QueuePost[]
  pagination: { totalPosts: number; page: number; totalPages: number }
}

/** The free posting times the result carries, when Herald handed them over. */
function freeSlotsOf(result: ViewProps['result']): FreeSlot[] {
  const slots = (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[FREE_SLOTS_META_KEY]
  return Array.isArray(slots) ? (slots as FreeSlot[]) : []
}

/** Today in the person's own zone, as a civil date. */
const today = () => new Date().toLocaleDateString('en-CA')

const Agenda = ({ days, open }: { days: Day[]; open: OpenPost }) => (
  <>
    {days.map((day) => (
      <section class="day" aria-label={dayName(day.date)}>
        <h2>{dayName(day.date)}</h2>
        <ul class="agenda">
          {day.entries.map((entry) => (
            <li>
              <QueueEntry entry={entry} compact={false} open={open} />
            </li>
          ))}
        </ul>
      </section>
    ))}
  </>
)

/** How the queue is laid out: a week calendar when expanded (unless the person asked for the list), else the agenda. */
function useLayout(host: ViewProps['host']) {
  const [list, setList] = useState(false)
  const expanded = host.context.displayMode === 'fullscreen'
  const canExpand = !expanded && (host.context.availableDisplayModes ?? []).includes('fullscreen')
  return { week: expanded && !list, expanded, canExpand, list, setList }
}

function LayoutButtons({ host, layout }: { host: ViewProps['host']; layout: ReturnType<typeof useLayout> }) {
  if (layout.canExpand)
    return (
      <button type="button" class="link" onClick={() => void host.requestDisplayMode('fullscreen')}>
        See the week as a calendar
      </button>
    )
  if (!layout.expanded) return null
  return (
    <button type="button" class="link" onClick={() => layout.setList(!layout.list)}>
      {layout.list ? 'Show as a week calendar' : 'Show as a list'}
    </button>
  )
}

function QueueView({ host, can, result }: ViewProps) {
  const [opened, setOpened] = useState<PostView | undefined>()
  const [problem, setProblem] = useState<string | undefined>()
  const layout = useLayout(host)
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
  const open: OpenPost = can.open
    ? async (id) => {
        setProblem(undefined)
        const got = await host.callTool('get_post', { id })
        const post = answerOf<PostView>(got)
        if (post) setOpened(post)
        else setProblem(errorOf(got) ?? 'Herald could not open that post.')
      }
    : undefined
  const days = byDay(answer.posts, freeSlotsOf(result))
  const { totalPosts, page, totalPages } = answer.pagination
  return (
    <>
      <h1>Posting queue</h1>
      <p class="muted queue-head">
        <span>
          {totalPosts} post{totalPosts === 1 ? '' : 's'}
          {totalPages > 1 ? ` · page ${page} of ${totalPages}` : ''}
        </span>
        <LayoutButtons host={host} layout={layout} />
      </p>
      {problem ? (
        <p class="problem" role="alert">
          {problem}
        </p>
      ) : null}
      {answer.posts.length === 0 ? <p>No posts match.</p> : null}
      {layout.week ? (
        <WeekCalendar weeks={byWeek(days)} today={today()} open={open} />
      ) : (
        <Agenda days={days} open={open} />
      )}
    </>
  )
}

mountView(QueueView)
