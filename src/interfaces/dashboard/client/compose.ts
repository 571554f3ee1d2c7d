/// <reference lib="dom" />
import { createDraftStore } from './compose/draft-store.js'
import { createMediaTray } from './compose/media-tray.js'
import { createThread } from './compose/thread.js'
import { createTikTokPart } from './compose/tiktok.js'

/**
 * Compose in the browser: the copy tabs (All, then one per chosen network), the media tray, the thread, the
 * live check (the form sent, debounced, to /compose/preflight, whose answer fills the notes beside each
 * field, the summary and the previews), the buttons enabled only while the latest check passed for exactly
 * what is in the form, Ctrl/Cmd+Enter for the highlighted button, and the draft kept across reloads.
 */

interface Answer {
  ok: boolean
  priceLine?: string
  checkHtml?: string
  previewHtml?: string
  fields?: Record<string, string>
  tabs?: Record<string, { count: number; limit: number; blocked: boolean }>
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null

type Tabs = ReturnType<typeof createTabs>
type TikTokPart = ReturnType<typeof createTikTokPart>

const chosenBoxes = (form: HTMLFormElement) =>
  [...form.querySelectorAll<HTMLInputElement>('input[name="profile"]')].filter((b) => b.checked)
const chosenNetworks = (form: HTMLFormElement) =>
  new Set(chosenBoxes(form).map((b) => b.value.split(':')[0] ?? ''))

/** The form as the check sees it: everything but the YouTube confirmation, which only gates the buttons. */
function contentsOf(form: HTMLFormElement): string {
  const fields = new URLSearchParams(new FormData(form) as unknown as Record<string, string>)
  fields.delete('youtubeConfirm')
  return fields.toString()
}

function start(form: HTMLFormElement) {
  const draft = createDraftStore(form, form.dataset.draftKey ?? 'herald:compose')
  browserZone()
  const tabs = createTabs(form)
  const tiktok = createTikTokPart()
  const state = { checkedContents: null as string | null, passed: false }
  const update = () =>
    updateForm(form, { tabs, tiktok }, state.passed && state.checkedContents === contentsOf(form))
  const check = createLiveCheck(form, (answer, sent) => {
    applyAnswer(form, tabs, answer)
    state.checkedContents = sent
    state.passed = answer.ok === true
    update()
  })
  const edited = () => {
    update()
    draft.save()
    if (state.checkedContents !== contentsOf(form)) check.soon()
  }
  const { addItem, media } = attachEditors(form, edited)
  form.addEventListener('input', edited)
  form.addEventListener('change', edited)
  youtubeConfirmation(update)
  submitting(form, update, () => draft.clear())
  paneTabs(form)

  const kept = form.hasAttribute('data-fresh') ? draft.kept() : undefined
  if (kept) {
    draft.restore(kept, () => addItem?.click())
    media?.draw(
      Object.fromEntries(
        kept.filter(([name]) => name.startsWith('alt:')).map(([name, value]) => [name.slice(4), value]),
      ),
    )
    keptNotice(() => {
      draft.clear()
      location.reload()
    })
  }
  const begun = new URLSearchParams(new FormData(form) as unknown as Record<string, string>)
  if (begun.get('content') || begun.getAll('profile').length) check.now()
  update()
}

/** The thread's posts and the media tray, each telling the form when it changed. */
function attachEditors(form: HTMLFormElement, edited: () => void) {
  const thread = byId<HTMLOListElement>('thread-items')
  const addItem = byId<HTMLButtonElement>('add-item')
  if (thread && addItem) createThread(thread, addItem, edited)
  const field = byId<HTMLTextAreaElement>('media-urls')
  const list = byId<HTMLOListElement>('thumbs')
  const tray = byId<HTMLElement>('tray')
  const input = byId<HTMLInputElement>('upload')
  const status = byId<HTMLElement>('upload-status')
  const media =
    field && list && tray && input && status && form.contains(field)
      ? createMediaTray({
          field,
          list,
          tray,
          input,
          status,
          hostedPrefix: tray.dataset.hosted ?? `${location.origin}/media/`,
          videoEndings: (tray.dataset.videoEndings ?? '').split(' ').filter(Boolean),
          changed: edited,
        })
      : undefined
  return { addItem, media }
}

/** The button Ctrl/Cmd+Enter presses: Schedule with a time, the queue when every profile has one, else now. */
function primaryWhen(form: HTMLFormElement): string {
  const date = form.querySelector<HTMLInputElement>('input[name="date"]')
  const time = form.querySelector<HTMLInputElement>('input[name="time"]')
  if (date?.value && time?.value) return 'schedule'
  const picked = chosenBoxes(form)
  return picked.length && picked.every((b) => b.dataset.nextSlot) ? 'queue' : 'now'
}

/** The parts shown for the chosen networks, and the buttons enabled only for a passed, current check. */
function updateForm(form: HTMLFormElement, parts: { tabs: Tabs; tiktok: TikTokPart }, checkedNow: boolean) {
  const networks = chosenNetworks(form)
  parts.tabs.show(networks)
  parts.tiktok.update(networks)
  const threadPart = byId<HTMLElement>('thread')
  const threadNetworks = (threadPart?.dataset.networks ?? '').split(' ')
  if (threadPart) threadPart.hidden = networks.size > 0 && !threadNetworks.some((n) => networks.has(n))
  const commentPart = byId<HTMLElement>('comment')
  const commenting = (commentPart?.dataset.networks ?? '').split(' ')
  if (commentPart) commentPart.hidden = networks.size > 0 && !commenting.some((n) => networks.has(n))
  const youtube = byId<HTMLElement>('youtube')
  if (youtube) youtube.hidden = !networks.has('youtube')
  googleBusinessParts(form, networks)
  const pinterest = byId<HTMLElement>('pinterest')
  if (pinterest) pinterest.hidden = !networks.has('pinterest')
  const mastodon = byId<HTMLElement>('mastodon')
  if (mastodon) mastodon.hidden = !networks.has('mastodon')
  queueSlot(chosenBoxes(form))
  const confirmed =
    (!networks.has('youtube') || Boolean(byId<HTMLInputElement>('youtube-confirm')?.checked)) &&
    parts.tiktok.ready(networks)
  const timed = primaryWhen(form) === 'schedule'
  for (const b of form.querySelectorAll<HTMLButtonElement>('button[data-when]')) {
    const when = b.dataset.when
    b.disabled = !(checkedNow && confirmed) || (when === 'schedule' && !timed)
    b.classList.toggle('primary', when === primaryWhen(form))
  }
}

/**
 * The Google Business Profile part, shown once a location is chosen, with only the fields of the post type
 * picked (an event's and an offer's title and dates, an offer's code and terms, a button on the others).
 */
function googleBusinessParts(form: HTMLFormElement, networks: Set<string>) {
  const part = byId<HTMLElement>('googlebusiness')
  if (!part) return
  part.hidden = !networks.has('googlebusiness')
  const type = form.querySelector<HTMLInputElement>('input[name="gbpType"]:checked')?.value ?? 'update'
  for (const fields of part.querySelectorAll<HTMLElement>('[data-gbp-for]'))
    fields.hidden = !(fields.dataset.gbpFor ?? '').split(' ').includes(type)
}

/** The check's answer in its places: the summary, each field's note, the tabs' counts, the price, the previews. */
function applyAnswer(form: HTMLFormElement, tabs: Tabs, answer: Answer) {
  const check = byId<HTMLElement>('check')
  if (check) check.innerHTML = answer.checkHtml ?? '<p class="not-ready">The check could not run.</p>'
  for (const note of form.querySelectorAll<HTMLElement>('.field-note[data-field]'))
    note.innerHTML = answer.fields?.[note.dataset.field ?? ''] ?? ''
  tabs.counts(answer.tabs ?? {})
  const price = byId<HTMLElement>('price-line')
  if (price) price.textContent = answer.priceLine ?? 'Not ready: see the check by the buttons.'
  const preview = byId<HTMLElement>('preview')
  if (preview && answer.previewHtml !== undefined) {
    preview.innerHTML = answer.previewHtml
    cropImages(preview)
  }
}

/** The live check: the form sent after a pause in typing; only the latest answer is shown. */
function createLiveCheck(form: HTMLFormElement, answered: (answer: Answer, sent: string) => void) {
  let latest = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const run = async () => {
    const sent = contentsOf(form)
    const serial = ++latest
    const check = byId<HTMLElement>('check')
    check?.setAttribute('aria-busy', 'true')
    let answer: Answer
    try {
      const response = await fetch('/compose/preflight', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: sent,
      })
      answer = (await response.json()) as Answer
    } catch {
      answer = {
        ok: false,
        checkHtml: '<p class="not-ready">The check could not run; is Herald reachable?</p>',
      }
    }
    if (serial !== latest) return
    check?.removeAttribute('aria-busy')
    answered(answer, sent)
  }
  return {
    now: () => void run(),
    soon() {
      clearTimeout(timer)
      timer = setTimeout(run, 300)
    },
  }
}

/** A disabled button does not submit; Ctrl/Cmd+Enter presses the highlighted one; a sent post's draft is dropped. */
function submitting(form: HTMLFormElement, update: () => void, sent: () => void) {
  form.addEventListener('submit', (event) => {
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null
    if (!submitter?.dataset.when) return
    update()
    if (submitter.disabled) event.preventDefault()
    else sent()
  })
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return
    event.preventDefault()
    const button = form.querySelector<HTMLButtonElement>(`button[data-when="${primaryWhen(form)}"]`)
    if (button && !button.disabled) form.requestSubmit(button)
  })
}

/** A fresh form takes the browser's time zone. */
function browserZone() {
  const zone = byId<HTMLSelectElement>('timezone')
  if (!zone?.hasAttribute('data-browser-default')) return
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (!own) return
  if (![...zone.options].some((o) => o.value === own)) zone.add(new Option(own, own), 0)
  zone.value = own
}

/** The copy's tabs: All, then one per chosen network (arrow keys move between them). */
function createTabs(form: HTMLFormElement) {
  const list = form.querySelector<HTMLElement>('.copy-tabs')
  const tabs = () => [...(list?.querySelectorAll<HTMLButtonElement>('[role="tab"]') ?? [])]
  if (list) list.hidden = false
  form.classList.add('tabs-on')
  const select = (tab: HTMLButtonElement, focus = false) => {
    for (const t of tabs()) {
      const on = t === tab
      t.setAttribute('aria-selected', String(on))
      t.tabIndex = on ? 0 : -1
      const panel = byId<HTMLElement>(t.getAttribute('aria-controls') ?? '')
      if (panel) panel.hidden = !on
    }
    if (focus) tab.focus()
  }
  list?.addEventListener('click', (event) => {
    const tab = (event.target as HTMLElement).closest<HTMLButtonElement>('[role="tab"]')
    if (tab) select(tab)
  })
  list?.addEventListener('keydown', (event) => {
    const shown = tabs().filter((t) => !t.hidden)
    const at = shown.indexOf(document.activeElement as HTMLButtonElement)
    if (at < 0 || (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft')) return
    event.preventDefault()
    const next = shown[(at + (event.key === 'ArrowRight' ? 1 : shown.length - 1)) % shown.length]
    if (next) select(next, true)
  })
  const all = tabs()[0]
  if (all) select(all)
  return {
    show(networks: Set<string>) {
      for (const t of tabs()) {
        const network = t.dataset.network
        if (!network) continue
        t.hidden = !networks.has(network)
        if (t.hidden && t.getAttribute('aria-selected') === 'true' && all) select(all)
      }
    },
    counts(states: Record<string, { count: number; limit: number; blocked: boolean }>) {
      for (const t of tabs()) {
        const network = t.dataset.network
        if (!network) continue
        const state = states[network]
        const count = t.querySelector('.tab-count')
        if (count) count.textContent = state ? `${state.count} / ${state.limit}` : ''
        t.classList.toggle('blocked', Boolean(state && (state.blocked || state.count > state.limit)))
      }
    },
  }
}

/**
 * On a phone, the editor and the previews are two tabs, Edit and Preview (arrow keys, Home and End move
 * between them); the previews keep their region. On a wider screen both panes show and the tabs go.
 */
function paneTabs(form: HTMLFormElement) {
  const list = document.querySelector<HTMLElement>('.pane-tabs')
  const previews = byId<HTMLElement>('previews-pane')
  if (!list || !previews) return
  const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')]
  const panes = [form, previews]
  const phone = window.matchMedia('(max-width: 60rem)')
  let chosen = 0
  const apply = () => {
    list.hidden = !phone.matches
    for (const link of document.querySelectorAll<HTMLElement>('.to-preview')) link.hidden = phone.matches
    tabs.forEach((tab, i) => {
      tab.setAttribute('aria-selected', String(i === chosen))
      tab.tabIndex = i === chosen ? 0 : -1
      const pane = panes[i]
      if (!pane) return
      if (phone.matches) {
        pane.setAttribute('role', 'tabpanel')
        pane.setAttribute('aria-labelledby', tab.id)
        pane.hidden = i !== chosen
      } else {
        pane.removeAttribute('role')
        pane.removeAttribute('aria-labelledby')
        pane.hidden = false
      }
    })
    if (!phone.matches) previews.setAttribute('aria-label', 'Previews')
    else previews.removeAttribute('aria-label')
  }
  const select = (i: number, focus = false) => {
    chosen = (i + tabs.length) % tabs.length
    apply()
    if (focus) tabs[chosen]?.focus()
  }
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => select(i))
  })
  list.addEventListener('keydown', (event) => {
    const moves: Record<string, number> = {
      ArrowRight: chosen + 1,
      ArrowLeft: chosen - 1,
      Home: 0,
      End: tabs.length - 1,
    }
    const to = moves[event.key]
    if (to === undefined) return
    event.preventDefault()
    select(to, true)
  })
  phone.addEventListener('change', apply)
  apply()
}

/** Where "Add to queue" puts the post, from each chosen profile's next free time. */
function queueSlot(picked: HTMLInputElement[]) {
  const line = byId<HTMLElement>('queue-slot')
  if (!line) return
  if (picked.length === 0 || picked.some((b) => !b.dataset.nextSlot))
    line.textContent = 'Goes to each profile’s next free slot.'
  else if (picked.length === 1) line.textContent = `Next free slot: ${picked[0]?.dataset.nextSlot}.`
  else
    line.textContent = `Next free slots: ${picked.map((b) => `${b.getAttribute('aria-label')} ${b.dataset.nextSlot}`).join('; ')}.`
}

/** Changing YouTube's visibility takes the confirmation back. */
function youtubeConfirmation(update: () => void) {
  const privacy = byId<HTMLSelectElement>('youtube-privacy')
  const confirm = byId<HTMLInputElement>('youtube-confirm')
  privacy?.addEventListener('change', () => {
    if (!confirm) return
    confirm.checked = false
    confirm.value = privacy.value
    const shown = byId<HTMLElement>('youtube-visibility')
    if (shown) shown.textContent = privacy.options[privacy.selectedIndex]?.text ?? ''
    update()
  })
  confirm?.addEventListener('change', update)
}

/** A lone image keeps its own shape, within the range its network shows. */
function cropImages(preview: HTMLElement) {
  for (const image of preview.querySelectorAll<HTMLImageElement>('img[data-min]')) {
    const fitShape = () => {
      if (!image.naturalWidth || !image.naturalHeight) return
      const own = image.naturalWidth / image.naturalHeight
      const ratio = Math.min(Number(image.dataset.max), Math.max(Number(image.dataset.min), own))
      image.style.aspectRatio = String(ratio)
    }
    if (image.complete) fitShape()
    else image.addEventListener('load', fitShape)
  }
}

/** Says a kept draft was put back, with a button to throw it away. */
function keptNotice(discard: () => void) {
  const notice = byId<HTMLElement>('draft-status')
  if (!notice) return
  const words = notice.querySelector('span')
  if (words) words.textContent = 'Your draft from before was put back.'
  notice.hidden = false
  byId<HTMLButtonElement>('discard-draft')?.addEventListener('click', discard)
}

// Last, once every helper above is defined.
const form = byId<HTMLFormElement>('compose')
if (form) start(form)
