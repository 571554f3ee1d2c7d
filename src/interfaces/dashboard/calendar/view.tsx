import type { VNode } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { networkLabels } from '../../../core/networks.js'
import { assetUrl } from '../ui/assets.js'
import { icon, networkIcon, type UiIcon } from '../ui/icons.js'
import { StatusChip } from '../ui/status-chip.js'
import { trusted } from '../ui/trusted.js'
import type { CalendarItem, FreeSlotItem, PostItem } from './items.js'
import { type CalendarView, dayParts, longDay, type Period } from './period.js'

/**
 * The calendar's body, rendered on the server: a month grid, a week of columns or an agenda list, with
 * links for the view and the period (so it reads and moves without JavaScript). Every item is a link: a
 * post to its page, a free queue slot to Compose at that time. The page's script (client/calendar.ts) adds
 * dragging a movable post to another day; each one also has a reschedule link for a keyboard.
 */

export interface CalendarProps {
  period: Period
  /** The zone times are shown in, and whether the person chose it (a `tz` link) rather than the browser. */
  zone: string
  zoneChosen: boolean
  /** Whether the zone is the fallback (no zone known from the browser yet). */
  zoneFallback: boolean
  today: string
  byDay: Map<string, CalendarItem[]>
  csrf: string
  /** This page's own address, where a reschedule comes back to. */
  self: string
  /** Nothing at all on the calendar: the empty state shows above the grid. */
  empty?: VNode | undefined
  notice?: string
}

/** Trusted, bundled SVG as decoration. */
const Svg = ({ html }: { html: string }) => (
  <span class="svg" aria-hidden="true">
    {trusted(html)}
  </span>
)

/** The calendar's address for a view and day, keeping a chosen zone. */
export function calendarHref(view: CalendarView, date: string | undefined, tz?: string) {
  const query = new URLSearchParams({ view, ...(date ? { date } : {}), ...(tz ? { tz } : {}) })
  return `/calendar?${query}`
}

const stateWords: Record<PostItem['state'], string> = {
  scheduled: 'scheduled',
  'pending approval': 'waiting for approval',
  rejected: 'rejected',
  publishing: 'publishing',
  published: 'published',
  'partly published': 'partly published',
  failed: 'failed',
  draft: 'draft',
}

/**
 * A state's chip, its words followed by a colon only a screen reader hears, so an event's name reads as one
 * sentence: "X 10:00 @acme Waiting for approval: the copy".
 */
const ChipWithColon = ({ state }: { state: PostItem['state'] }) => (
  <StatusChip state={state}>
    <span class="visually-hidden">:</span>
  </StatusChip>
)

function PostEvent({ item, self }: { item: PostItem; self: string }) {
  const scheduled = item.state === 'scheduled'
  const network = networkLabels[item.platform]
  const title = `${network} @${item.handle} · ${item.time} · ${stateWords[item.state]}\n${item.content}`
  const slotData = item.movable
    ? {
        'data-movable': '',
        'data-day': item.day,
        'data-slot-date': item.slot.date,
        'data-slot-time': item.slot.time,
        'data-slot-zone': item.slot.timezone,
      }
    : {}
  return (
    <li class="cal-item">
      <a
        class={`cal-event net-${item.platform} state-${item.state.replace(' ', '-')}`}
        href={`/posts/${encodeURIComponent(item.id)}`}
        title={title}
        data-id={item.id}
        draggable={item.movable ? false : undefined}
        {...slotData}
      >
        <span class="cal-meta">
          <Svg html={networkIcon(item.platform)} />
          <span class="cal-net-label">{network} </span>
          <time>{item.time}</time>{' '}
          <span class="handle">
            @{item.handle}
            {scheduled ? <span class="visually-hidden">, scheduled:</span> : null}
          </span>
          {scheduled ? null : (
            <span class="cal-state">
              <ChipWithColon state={item.state} />
            </span>
          )}
        </span>
        <span class="cal-copy">{item.content}</span>
      </a>
      {item.movable ? (
        <a
          class="cal-move"
          href={`/calendar/reschedule?${new URLSearchParams({ id: item.id, back: self })}`}
          title="Reschedule"
        >
          <Svg html={icon('calendar-clock')} />
          <span class="visually-hidden">
            Reschedule {network} @{item.handle} at {item.time}
          </span>
        </a>
      ) : null}
    </li>
  )
}

function FreeSlot({ item }: { item: FreeSlotItem }) {
  const network = networkLabels[item.platform]
  return (
    <li class="cal-item">
      <a
        class={`cal-slot net-${item.platform}`}
        href={item.compose}
        title={`Free slot · ${network} @${item.handle} · ${item.time}: compose a post for this time`}
      >
        <span class="cal-meta">
          <Svg html={networkIcon(item.platform)} />
          <time>{item.time}</time> <span class="cal-slot-label">Free slot</span>
        </span>
        <span class="handle">
          <span class="visually-hidden">{network} </span>@{item.handle}
        </span>
      </a>
    </li>
  )
}

function Items({ items, self }: { items: CalendarItem[] | undefined; self: string }) {
  if (!items?.length) return null
  return (
    <ul class="cal-items">
      {items.map((item) =>
        item.kind === 'post' ? <PostEvent item={item} self={self} /> : <FreeSlot item={item} />,
      )}
    </ul>
  )
}

function DayHead({ date, today }: { date: string; today: string }) {
  const parts = dayParts(date)
  return (
    <h3 class="cal-day-head">
      <span class="wd">{parts.weekday} </span>
      <span class="dn" aria-current={date === today ? 'date' : undefined}>
        {parts.day}
      </span>
      <span class="mo"> {parts.month}</span>
    </h3>
  )
}

function dayClass(date: string, props: CalendarProps, month?: string) {
  return [
    'cal-day',
    month && date.slice(0, 7) !== month ? 'outside' : '',
    date === props.today ? 'today' : '',
    date < props.today ? 'past' : '',
    props.byDay.get(date)?.length ? 'busy' : '',
  ]
    .filter(Boolean)
    .join(' ')
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']

function DayGrid({ props }: { props: CalendarProps }) {
  const { period } = props
  const month = period.view === 'month' ? period.date.slice(0, 7) : undefined
  return (
    <div class={`cal-grid cal-${period.view}`}>
      <div class="cal-weekdays" aria-hidden="true">
        {WEEKDAYS.map((d) => (
          <span>{d}</span>
        ))}
      </div>
      <ol class="cal-days">
        {period.days.map((date) => (
          <li class={dayClass(date, props, month)} data-date={date}>
            <DayHead date={date} today={props.today} />
            <Items items={props.byDay.get(date)} self={props.self} />
          </li>
        ))}
      </ol>
      {month && !period.days.some((d) => d.startsWith(month) && props.byDay.get(d)?.length) ? (
        <p class="cal-nothing">Nothing this month.</p>
      ) : null}
    </div>
  )
}

function Agenda({ props }: { props: CalendarProps }) {
  const days = props.period.days.filter((date) => props.byDay.get(date)?.length)
  if (days.length === 0) return <p class="cal-nothing shown">Nothing in these four weeks.</p>
  return (
    <ol class="cal-agenda">
      {days.map((date) => (
        <li class={dayClass(date, props)} data-date={date}>
          <h3 class="cal-agenda-head" aria-current={date === props.today ? 'date' : undefined}>
            {longDay(date)}
            {date === props.today ? <span class="chip info">Today</span> : null}
          </h3>
          <Items items={props.byDay.get(date)} self={props.self} />
        </li>
      ))}
    </ol>
  )
}

const PERIOD_WORD: Record<CalendarView, string> = { month: 'month', week: 'week', agenda: 'four weeks' }

function NavButton({ href, iconName, words }: { href: string; iconName: UiIcon; words: string }) {
  return (
    <a class="button icon-only" href={href} title={words}>
      <Svg html={icon(iconName)} />
      <span class="visually-hidden">{words}</span>
    </a>
  )
}

function Toolbar({ props }: { props: CalendarProps }) {
  const { period } = props
  const tz = props.zoneChosen ? props.zone : undefined
  return (
    <div class="cal-bar">
      <div class="cal-nav">
        <NavButton
          href={calendarHref(period.view, period.previous, tz)}
          iconName="chevron-left"
          words={`Previous ${PERIOD_WORD[period.view]}`}
        />
        <a class="button" href={calendarHref(period.view, undefined, tz)}>
          Today
        </a>
        <NavButton
          href={calendarHref(period.view, period.next, tz)}
          iconName="chevron-right"
          words={`Next ${PERIOD_WORD[period.view]}`}
        />
        <h2 class="cal-title">{period.title}</h2>
      </div>
      <nav class="cal-views" aria-label="Calendar view">
        <ul>
          {(['month', 'week', 'agenda'] as const).map((view) => (
            <li>
              <a
                href={calendarHref(view, period.date, tz)}
                aria-current={view === period.view ? 'page' : undefined}
              >
                {view === 'month' ? 'Month' : view === 'week' ? 'Week' : 'Agenda'}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </div>
  )
}

function CalendarBody({ props }: { props: CalendarProps }) {
  return (
    <div
      class="calendar"
      data-zone={props.zone}
      data-zone-chosen={props.zoneChosen ? '' : undefined}
      data-view={props.period.view}
    >
      <div class="page-head">
        <h1>Calendar</h1>
      </div>
      {props.notice ? (
        <div class="notice" role="status">
          <p>{props.notice}</p>
        </div>
      ) : null}
      {props.empty ? <div>{props.empty}</div> : null}
      <Toolbar props={props} />
      <p class="muted cal-help">
        Times in {props.zone}
        {props.zoneFallback ? ' (your browser did not say its zone)' : ''}. Each post shows in its network's
        colour; the free times of your <a href="/queue">posting queues</a> are dashed and open a new post for
        that time. Drag a scheduled post to another day, or use its reschedule button.
      </p>
      {props.period.view === 'agenda' ? <Agenda props={props} /> : <DayGrid props={props} />}
      <form id="reschedule" method="post" action="/calendar/reschedule" hidden>
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="id" />
        <input type="hidden" name="scheduleDate" />
        <input type="hidden" name="scheduleTime" />
        <input type="hidden" name="timezone" />
        <input type="hidden" name="back" value={props.self} />
      </form>
      <script type="module" src={assetUrl('calendar.js')} />
    </div>
  )
}

/** The calendar page's body as HTML, for the dashboard's frame. */
export function renderCalendar(props: CalendarProps): string {
  return renderToString(<CalendarBody props={props} />)
}
