import type { Day, Week } from './queue-days.js'
import { type OpenPost, QueueEntry } from './queue-entry.js'

/**
 * The week calendar the queue shows when the host gives it room (expanded): a week a row of seven days,
 * Monday first, each day's posts and free times as small cards in time order, today marked.
 */

const civil = (date: string, options: Intl.DateTimeFormatOptions) => {
  const day = new Date(`${date}T12:00:00Z`)
  return Number.isNaN(day.getTime()) ? date : day.toLocaleDateString('en-GB', { ...options, timeZone: 'UTC' })
}

export const dayName = (date: string) =>
  civil(date, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })

function WeekDay({ day, today, open }: { day: Day; today: string; open: OpenPost }) {
  const label = dayName(day.date)
  return (
    <li
      class={`weekday${day.date === today ? ' weekday-today' : ''}${day.entries.length ? '' : ' weekday-empty'}`}
    >
      <h3 aria-label={label}>
        <span class="weekday-name">{civil(day.date, { weekday: 'short' })}</span>
        <span class="weekday-date">{civil(day.date, { day: 'numeric' })}</span>
      </h3>
      {day.entries.length ? (
        <ul class="agenda compact">
          {day.entries.map((entry) => (
            <li>
              <QueueEntry entry={entry} compact open={open} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="sr-only">Nothing planned</p>
      )}
    </li>
  )
}

export function WeekCalendar({ weeks, today, open }: { weeks: Week[]; today: string; open: OpenPost }) {
  return (
    <>
      {weeks.map((week) => {
        const label = `Week of ${civil(week.monday, { day: 'numeric', month: 'long', year: 'numeric' })}`
        return (
          <section class="week" aria-label={label}>
            <h2>{label}</h2>
            <ol class="week-days">
              {week.days.map((day) => (
                <WeekDay day={day} today={today} open={open} />
              ))}
            </ol>
          </section>
        )
      })}
    </>
  )
}
