/// <reference lib="dom" />
import { addDays, daysBetween } from '../../../core/civil-date.js'

/**
 * The calendar page's script: it tells the server the browser's time zone (a cookie the page is rendered
 * by), and lets a mouse drag a scheduled post onto another day, which posts the page's reschedule form.
 * Everything else on the page is links and works without it; a keyboard moves a post with its reschedule
 * link instead.
 */

const ZONE_COOKIE = 'herald_tz'
const MOVABLE = 'a.cal-event[data-movable]'

function cookie(name: string): string | undefined {
  const entry = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`))
  return entry ? decodeURIComponent(entry.slice(name.length + 1)) : undefined
}

/**
 * Keeps the browser's zone in the cookie, and when the page was shown in another zone without the person
 * choosing it (a first visit, or after travelling), shows it again in theirs. It reloads only once the
 * cookie reads back, so a browser that refuses cookies stays on the page instead of reloading forever.
 */
function keepZone(root: HTMLElement) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (!zone || cookie(ZONE_COOKIE) === zone) return
  const secure = location.protocol === 'https:' ? '; secure' : ''
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Safari and older Firefox.
  document.cookie = `${ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/calendar; max-age=31536000; samesite=lax${secure}`
  if (cookie(ZONE_COOKIE) === zone && !root.hasAttribute('data-zone-chosen') && root.dataset.zone !== zone)
    location.reload()
}

/** Moves the post by as many days as it was dragged, keeping its own time and zone. */
function submitMove(form: HTMLFormElement, event: HTMLElement, day: string) {
  const { id, day: from, slotDate, slotTime, slotZone } = event.dataset
  if (!id || !from || !slotDate || !slotTime || !slotZone) return
  const shift = daysBetween(from, day)
  if (shift === 0) return
  const set = (name: string, value: string) => {
    ;(form.elements.namedItem(name) as HTMLInputElement).value = value
  }
  set('id', id)
  set('scheduleDate', addDays(slotDate, shift))
  set('scheduleTime', slotTime)
  set('timezone', slotZone)
  form.submit()
}

interface Drag {
  event: HTMLElement
  x: number
  y: number
  ghost?: HTMLElement
  over?: HTMLElement | undefined
}

/** A copy of the event that follows the pointer (positioned through the CSSOM, which the CSP allows). */
function ghostOf(event: HTMLElement): HTMLElement {
  const box = event.getBoundingClientRect()
  const ghost = event.cloneNode(true) as HTMLElement
  ghost.classList.add('drag-ghost')
  ghost.removeAttribute('href')
  ghost.setAttribute('aria-hidden', 'true')
  Object.assign(ghost.style, { left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px` })
  document.body.append(ghost)
  event.classList.add('dragging')
  return ghost
}

function dayAt(root: HTMLElement, x: number, y: number): HTMLElement | undefined {
  const day = document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-date]')
  return day && root.contains(day) ? day : undefined
}

function enableDrag(root: HTMLElement, form: HTMLFormElement) {
  let drag: Drag | undefined
  let dropped = false
  root.addEventListener('pointerdown', (e) => {
    // A finger scrolls the page; it moves a post with the reschedule link.
    if (e.button !== 0 || e.pointerType === 'touch') return
    const event = (e.target as Element).closest<HTMLElement>(MOVABLE)
    if (event) drag = { event, x: e.clientX, y: e.clientY }
  })
  document.addEventListener('pointermove', (e) => {
    if (!drag) return
    if (!drag.ghost) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 6) return
      drag.ghost = ghostOf(drag.event)
    }
    drag.ghost.style.transform = `translate(${e.clientX - drag.x}px, ${e.clientY - drag.y}px)`
    const over = dayAt(root, e.clientX, e.clientY)
    if (over === drag.over) return
    drag.over?.classList.remove('drop-target')
    over?.classList.add('drop-target')
    drag.over = over
  })
  const end = (submit: boolean) => {
    const ended = drag
    drag = undefined
    if (!ended?.ghost) return
    ended.ghost.remove()
    ended.event.classList.remove('dragging')
    ended.over?.classList.remove('drop-target')
    // The click that ends a drag is not a click on the post.
    dropped = true
    setTimeout(() => {
      dropped = false
    }, 0)
    const day = ended.over?.dataset.date
    if (submit && day) submitMove(form, ended.event, day)
  }
  document.addEventListener('pointerup', () => end(true))
  document.addEventListener('pointercancel', () => end(false))
  root.addEventListener(
    'click',
    (e) => {
      if (dropped) e.preventDefault()
    },
    true,
  )
}

const root = document.querySelector<HTMLElement>('.calendar')
const form = document.getElementById('reschedule')
if (root) {
  keepZone(root)
  if (form instanceof HTMLFormElement) enableDrag(root, form)
}
