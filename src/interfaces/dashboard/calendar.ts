import type { FastifyInstance, FastifyRequest } from 'fastify'
import { addDays, isCivilDate } from '../../core/civil-date.js'
import { instantToSlot, isValidTimezone, slotToInstant } from '../../core/schedule.js'
import { parseCookies } from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { freeOpenings } from '../../modules/publishing/posting-queues.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { freeSlotItems, itemsByDay, postItems } from './calendar/items.js'
import { CALENDAR_VIEWS, type CalendarView, periodOf } from './calendar/period.js'
import { renderRescheduleForm } from './calendar/reschedule-page.js'
import { calendarHref, renderCalendar } from './calendar/view.js'
import { toolsAs } from './caller.js'
import { NextLink, page, problemPage, sendHtml } from './html.js'
import { sendPostNotFound } from './post-not-found.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { EmptyState } from './ui/parts.js'

/**
 * The calendar: scheduled and published posts (one item per profile) and the free times of the posting
 * queues, by month, week or as an agenda, rendered on the server. Moving a post, by dragging it or with its
 * reschedule form, calls reschedule_post; clicking one opens it; clicking a free time opens Compose for it.
 */

/** The cookie the calendar's script keeps the browser's time zone in (client/calendar.ts writes it). */
export const ZONE_COOKIE = 'herald_tz'

/**
 * The zone the calendar is shown in. The server cannot see the browser's zone, so the page's script writes
 * it to a cookie (and reloads once when it changed); a `tz` in the address wins over it (a link to the
 * calendar in another zone). Before either is known (the very first view, or a browser without
 * JavaScript) it is UTC, and the page says so: one zone for the whole grid keeps days and "today"
 * consistent, which placing each post by its own zone would not (two posts at the same instant, written in
 * two zones, could land on different days).
 */
function zoneOf(request: FastifyRequest<{ Querystring: CalendarQuery }>) {
  const asked = request.query.tz ?? ''
  if (isValidTimezone(asked)) return { zone: asked, chosen: true, fallback: false }
  const kept = parseCookies(request.headers.cookie)[ZONE_COOKIE] ?? ''
  if (isValidTimezone(kept)) return { zone: kept, chosen: false, fallback: false }
  return { zone: 'UTC', chosen: false, fallback: true }
}

interface CalendarQuery {
  view?: string
  date?: string
  tz?: string
  moved?: string
}

/** Where a reschedule comes back to: a calendar address, never another site or page. */
function calendarReturn(back: string, moved?: string): string {
  let url: URL
  try {
    url = new URL(back || '/calendar', 'http://herald.invalid')
  } catch {
    url = new URL('/calendar', 'http://herald.invalid')
  }
  const query =
    url.origin === 'http://herald.invalid' && url.pathname === '/calendar' ? url.searchParams : undefined
  const kept = new URLSearchParams(query)
  kept.delete('moved')
  if (moved) kept.set('moved', moved)
  const text = kept.toString()
  return `/calendar${text ? `?${text}` : ''}`
}

const shortCopy = (content: string) => (content.length > 60 ? `${content.slice(0, 59)}…` : content)

function movedNotice(posts: PostView[], id: string | undefined): string | undefined {
  const post = id ? posts.find((p) => p.id === id) : undefined
  if (!post) return undefined
  return `Rescheduled “${shortCopy(post.content)}”: it now goes out on ${post.scheduleDate} at ${post.scheduleTime} (${post.timezone}).`
}

async function calendarPage(
  app: AppContext,
  tools: ReturnType<typeof toolsAs>,
  who: SignedIn,
  request: FastifyRequest<{ Querystring: CalendarQuery }>,
) {
  const { zone, chosen, fallback } = zoneOf(request)
  const now = app.clock.now()
  const today = instantToSlot(now, zone).date
  const view: CalendarView = (CALENDAR_VIEWS as readonly string[]).includes(request.query.view ?? '')
    ? (request.query.view as CalendarView)
    : 'month'
  const asked = isCivilDate(request.query.date ?? '') ? request.query.date : undefined
  const period = periodOf(view, asked ?? today)
  const from = slotToInstant({ date: period.first, time: '00:00', timezone: zone })
  const to = slotToInstant({ date: addDays(period.last, 1), time: '00:00', timezone: zone })
  const [listed, openings] = await Promise.all([
    tools(who, 'list_posts', { all: true }),
    to > now ? freeOpenings(app.store.db, who.workspace.id, Math.max(from, now), to) : Promise.resolve([]),
  ])
  const posts = postItems(listed.posts, zone)
  const shown = [...posts, ...freeSlotItems(openings, zone)].filter(
    (item) => item.day >= period.first && item.day <= period.last,
  )
  const empty =
    posts.length === 0 && openings.length === 0
      ? EmptyState({
          text: 'Nothing on the calendar yet. Scheduled and published posts appear here on their day, with the free times of your posting queues.',
          action: { href: '/compose', label: 'Schedule a post' },
        })
      : undefined
  const notice = movedNotice(listed.posts, request.query.moved)
  const body = renderCalendar({
    period,
    zone,
    zoneChosen: chosen,
    zoneFallback: fallback,
    today,
    byDay: itemsByDay(shown),
    csrf: who.session.csrfToken,
    self: calendarHref(view, asked, chosen ? zone : undefined),
    ...(empty ? { empty } : {}),
    ...(notice ? { notice } : {}),
  })
  return page('Calendar', body, { signedIn: account(who) })
}

export function registerCalendarRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  const tools = toolsAs(runner)

  routes.get<{ Querystring: CalendarQuery }>('/calendar', async (request, reply, who) => {
    return sendHtml(reply, 200, await calendarPage(app, tools, who, request))
  })

  routes.get<{ Querystring: { id?: string; back?: string } }>(
    '/calendar/reschedule',
    async (request, reply, who) => {
      const back = calendarReturn(request.query.back ?? '')
      try {
        const post = await tools(who, 'get_post', { id: request.query.id ?? '' })
        const body = renderRescheduleForm(post, who.session.csrfToken, back)
        return sendHtml(reply, 200, page('Reschedule post', body, { signedIn: account(who) }))
      } catch (error) {
        return sendPostNotFound(reply, who, error, { href: back, label: 'Back to the calendar' })
      }
    },
  )

  routes.post('/calendar/reschedule', async (request, reply, who) => {
    const id = field(request, 'id')
    try {
      await tools(who, 'reschedule_post', {
        id,
        scheduleDate: field(request, 'scheduleDate'),
        scheduleTime: field(request, 'scheduleTime'),
        timezone: field(request, 'timezone') || undefined,
      })
    } catch (error) {
      const appError = toAppError(error)
      return sendHtml(
        reply,
        httpStatusFor(appError.code),
        problemPage('Not rescheduled', appError.message, {
          signedIn: account(who),
          next: NextLink({ href: calendarReturn(field(request, 'back')), label: 'Back to the calendar' }),
        }),
      )
    }
    return reply.redirect(calendarReturn(field(request, 'back'), id), 303)
  })
}
