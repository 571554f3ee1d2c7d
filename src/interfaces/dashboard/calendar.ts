import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Network } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { freeOpenings } from '../../modules/publishing/posting-queues.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { runAs } from './caller.js'
import { emptyState } from './first-run/empty-state.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, networkLabels, page, problemPage, sendHtml } from './html.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'

/**
 * The calendar: scheduled and published posts on FullCalendar's month and week views, in the viewer's
 * time zone. Dragging a scheduled post to another slot calls reschedule_post; clicking one opens it.
 */

const require = createRequire(import.meta.url)
const fullcalendarDir = path.dirname(require.resolve('fullcalendar/package.json'))

/** The browser files of FullCalendar (the library, its classic theme and their styles), served as is. */
const vendorFiles: Record<string, { file: string; type: string }> = {
  'fullcalendar.js': { file: 'all/global.js', type: 'text/javascript' },
  'fullcalendar-theme.js': { file: 'themes/classic/global.js', type: 'text/javascript' },
  'fullcalendar.css': { file: 'skeleton.css', type: 'text/css' },
  'fullcalendar-theme.css': { file: 'themes/classic/theme.css', type: 'text/css' },
  'fullcalendar-palette.css': { file: 'themes/classic/palette.css', type: 'text/css' },
}

const CALENDAR_SCRIPT = `const data = JSON.parse(document.getElementById('calendar-events').textContent)
const form = document.getElementById('reschedule')
const pad = (n) => String(n).padStart(2, '0')
const calendar = new FullCalendar.Calendar(document.getElementById('calendar'), {
  initialView: 'dayGridMonth',
  headerToolbar: { start: 'prev,next today', center: 'title', end: 'dayGridMonth,timeGridWeek' },
  // A button's name holds the word it shows (by default "Today" is named "This month").
  buttonHints: { today: 'Today' },
  timeZone: 'local',
  events: data,
  eventClick: (info) => {
    info.jsEvent.preventDefault()
    window.location.href = info.event.extendedProps.compose || '/posts/' + info.event.id
  },
  eventDrop: (info) => {
    const start = info.event.start
    form.elements.id.value = info.event.id
    form.elements.scheduleDate.value = start.getFullYear() + '-' + pad(start.getMonth() + 1) + '-' + pad(start.getDate())
    form.elements.scheduleTime.value = pad(start.getHours()) + ':' + pad(start.getMinutes())
    form.elements.timezone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
    form.submit()
  },
})
calendar.render()
`

interface CalendarEvent {
  id: string
  title: string
  start: string
  editable: boolean
  classNames?: string[]
  /** Free queue slots: Compose for that profile and time. */
  extendedProps?: { compose: string }
}

/** One event per post that has a moment: its slot, or when it went out. */
export function calendarEvents(posts: PostView[]): CalendarEvent[] {
  return posts
    .map((p) => {
      const start = p.status === 'published' ? (p.publishedAt ?? p.dueAt) : p.dueAt
      if (!start) return undefined
      const networks = p.platforms.map((n) => networkLabels[n]).join(', ')
      const text = p.content.length > 40 ? `${p.content.slice(0, 39)}…` : p.content
      const pending = p.approval?.state === 'pending'
      return {
        id: p.id,
        title: `${text} (${networks}, ${pending ? 'pending approval' : p.status})`,
        start,
        // A post waiting for approval moves the slot it asks for (reschedule_post).
        editable: p.status === 'scheduled' || pending,
        ...(pending ? { classNames: ['pending'] } : {}),
      }
    })
    .filter((e): e is CalendarEvent => e !== undefined)
}

/** The free posting times of every profile's queue, as events that open Compose for that slot. */
export function freeSlotEvents(
  slots: Array<{
    date: string
    time: string
    timezone: string
    dueAt: number
    platform: Network
    username: string
    profileId: string
  }>,
): CalendarEvent[] {
  return slots.map((s) => ({
    id: `free-${s.platform}-${s.profileId}-${s.dueAt}`,
    title: `Free: ${networkLabels[s.platform]} @${s.username.replace(/^@+/, '')}`,
    start: new Date(s.dueAt).toISOString(),
    editable: false,
    classNames: ['free-slot'],
    extendedProps: {
      compose: `/compose?${new URLSearchParams({ profile: `${s.platform}:${s.profileId}`, date: s.date, time: s.time, timezone: s.timezone })}`,
    },
  }))
}

/** How far ahead the calendar shows free queue slots. */
const FREE_SLOT_WEEKS = 6

function calendarPage(who: SignedIn, events: CalendarEvent[], notice?: string) {
  // The events travel as JSON in a data block that never runs; `<` is escaped so no text ends the block.
  const json = JSON.stringify(events).replace(/</g, '\\u003c')
  return page(
    'Calendar',
    `<link rel="stylesheet" href="/dashboard/vendor/fullcalendar.css"><link rel="stylesheet" href="/dashboard/vendor/fullcalendar-palette.css"><link rel="stylesheet" href="/dashboard/vendor/fullcalendar-theme.css">
<h1>Calendar</h1>
${notice ? `<div class="notice" role="status"><p>${escapeHtml(notice)}</p></div>` : ''}
${
  events.length === 0
    ? emptyState(
        'Nothing on the calendar yet. Scheduled and published posts appear here on their day, with the free times of your posting queues.',
        { href: '/compose', label: 'Schedule a post' },
      )
    : `<p class="muted">Scheduled and published posts in your time zone, and the free times of each profile's <a href="/queue">posting queue</a> (dashed; click one to compose a post for it). Drag a scheduled post to another day or time to reschedule it; click a post to open it.</p>`
}
<div id="calendar"></div>
<noscript><p>The calendar needs JavaScript; <a href="/posts">the posts list</a> works without it.</p></noscript>
<form id="reschedule" method="post" action="/calendar/reschedule" hidden>${csrfField(who.session.csrfToken)}
<input type="hidden" name="id"><input type="hidden" name="scheduleDate"><input type="hidden" name="scheduleTime"><input type="hidden" name="timezone"></form>
<script type="application/json" id="calendar-events">${json}</script>
<script src="/dashboard/vendor/fullcalendar.js"></script><script src="/dashboard/vendor/fullcalendar-theme.js"></script><script src="/dashboard/calendar.js"></script>`,
    { signedIn: account(who) },
  )
}

export function registerCalendarRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const run = runAs(runner)

  for (const [name, { file, type }] of Object.entries(vendorFiles)) {
    const body = readFileSync(path.join(fullcalendarDir, file))
    scope.get(`/dashboard/vendor/${name}`, async (_request, reply) =>
      reply
        .header('content-type', `${type}; charset=utf-8`)
        .header('cache-control', 'public, max-age=86400')
        .send(body),
    )
  }
  scope.get('/dashboard/calendar.js', async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').send(CALENDAR_SCRIPT),
  )

  const events = async (who: SignedIn) => {
    const now = app.clock.now()
    const [posts, free] = await Promise.all([
      run<{ posts: PostView[] }>(who, 'list_posts', { all: true }),
      freeOpenings(app.store.db, who.workspace.id, now, now + FREE_SLOT_WEEKS * 7 * 86_400_000),
    ])
    return [...calendarEvents(posts.posts), ...freeSlotEvents(free)]
  }

  scope.get('/calendar', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/calendar')
    return sendHtml(reply, 200, calendarPage(who, await events(who)))
  })

  scope.post('/calendar/reschedule', async (request, reply) => {
    const who = signedInOf(request)
    try {
      await run(who, 'reschedule_post', {
        id: field(request, 'id'),
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
          next: '<p><a href="/calendar">Back to the calendar</a></p>',
        }),
      )
    }
    return reply.redirect('/calendar', 303)
  })
}
