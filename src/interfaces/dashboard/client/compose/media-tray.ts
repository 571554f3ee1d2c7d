/// <reference lib="dom" />

/**
 * Compose's media tray: the media addresses field (one per line, in order) drawn as thumbnails (a video as
 * its poster frame) that can be reordered (by dragging, or with buttons for a keyboard), removed, and added
 * to by picking or dropping files, each uploaded to Herald, which hosts it; each image has its alt text
 * field, keyed by its URL so the words follow it. The addresses field stays the one truth of the order.
 */

export interface TrayParts {
  field: HTMLTextAreaElement
  list: HTMLOListElement
  tray: HTMLElement
  input: HTMLInputElement
  status: HTMLElement
  /** Herald's own media addresses begin with this; only those are shown as pictures (the CSP). */
  hostedPrefix: string
  /** File name endings Herald takes as video (the server's list, given by the page). */
  videoEndings: string[]
  changed(): void
}

const urlsIn = (field: HTMLTextAreaElement) =>
  field.value
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean)

const nameOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

function button(text: string, label: string, act: () => void, extra = '') {
  const b = document.createElement('button')
  b.type = 'button'
  b.textContent = text
  b.setAttribute('aria-label', label)
  if (extra) b.className = extra
  b.addEventListener('click', act)
  return b
}

const isVideo = (url: string, parts: TrayParts) =>
  parts.videoEndings.some((end) => nameOf(url).toLowerCase().endsWith(end))

/** A hosted image as itself; a hosted video as its poster frame from Herald (the CSP); anything else a frame. */
function thumbOf(url: string, parts: TrayParts): HTMLElement {
  const video = isVideo(url, parts)
  const hosted = url.startsWith(parts.hostedPrefix)
  if (!video && hosted) {
    const img = document.createElement('img')
    img.src = new URL(url).pathname
    img.alt = ''
    return img
  }
  const frame = document.createElement('span')
  frame.className = 'thumb-frame'
  if (video && hosted) {
    frame.classList.add('video')
    const poster = document.createElement('img')
    poster.src = `/compose/poster/${url.slice(parts.hostedPrefix.length)}`
    poster.alt = ''
    poster.className = 'thumb-poster'
    // No frame could be made (no ffmpeg, an unreadable file): the generic frame, as for a video by address.
    poster.addEventListener('error', () => {
      frame.classList.remove('video')
      frame.textContent = '▶ Video'
    })
    const play = document.createElement('span')
    play.className = 'thumb-play'
    play.setAttribute('aria-hidden', 'true')
    play.textContent = '▶'
    frame.append(poster, play)
    return frame
  }
  frame.textContent = video ? '▶ Video' : 'Image'
  return frame
}

/** An image's alt text field (`alt:<url>`, posted with the form), named by the image's place in `item`. */
function altField(url: string, place: number, text: string, item: HTMLElement): HTMLElement {
  const label = document.createElement('label')
  label.className = 'thumb-alt'
  label.append(`Alt text for image ${place}`)
  const field = document.createElement('textarea')
  field.name = `alt:${url}`
  field.rows = 2
  field.maxLength = 5000
  field.value = text
  label.append(field)
  // Selecting words in the field must not start dragging the whole item.
  field.addEventListener('pointerdown', () => {
    item.draggable = false
  })
  for (const done of ['pointerup', 'pointercancel', 'focusout'])
    field.addEventListener(done, () => {
      item.draggable = true
    })
  return label
}

/** Uploads each file to Herald in turn, adding its hosted address; the first refusal stops the rest. */
async function uploadAll(parts: TrayParts, files: File[], write: (urls: string[]) => void) {
  const csrf = parts.input.dataset.csrf ?? ''
  for (const file of files) {
    parts.status.textContent = `Uploading ${file.name}…`
    const query = new URLSearchParams({ name: file.name, csrf })
    const answer = await fetch(`/compose/upload?${query}`, {
      method: 'POST',
      headers: { 'content-type': file.type || 'application/octet-stream' },
      body: file,
    }).catch(() => undefined)
    const body = ((await answer?.json().catch(() => ({}))) ?? {}) as { url?: string; message?: string }
    if (!answer?.ok || !body.url) {
      parts.status.textContent = body.message ?? `${file.name} could not be uploaded.`
      return
    }
    write([...urlsIn(parts.field), body.url])
    parts.status.textContent = `Uploaded ${file.name}.`
  }
}

export function createMediaTray(parts: TrayParts) {
  let dragged: number | undefined

  const write = (urls: string[]) => {
    parts.field.value = urls.join('\n')
    draw()
    parts.changed()
  }
  /** Moves an item, and keeps the focus on the button that moved it. */
  const move = (from: number, to: number, kind: 0 | 1) => {
    const urls = urlsIn(parts.field)
    if (to < 0 || to >= urls.length) return
    const [url] = urls.splice(from, 1)
    if (url !== undefined) urls.splice(to, 0, url)
    write(urls)
    parts.list.children[to]?.querySelectorAll('button')[kind]?.focus()
  }

  /** The alt texts written so far, by URL: they follow their image through a reorder or a redraw. */
  const alts = new Map<string, string>()
  const keepAlts = () => {
    for (const field of parts.list.querySelectorAll<HTMLTextAreaElement>('textarea[name^="alt:"]'))
      alts.set(field.name.slice('alt:'.length), field.value)
  }

  function draw(kept: Record<string, string> = {}) {
    keepAlts()
    for (const [url, text] of Object.entries(kept)) alts.set(url, text)
    const urls = urlsIn(parts.field)
    parts.list.replaceChildren(
      ...urls.map((url, i) => {
        const item = document.createElement('li')
        item.className = 'thumb'
        item.draggable = true
        const name = document.createElement('span')
        name.className = 'thumb-name'
        name.textContent = `${i + 1}. ${nameOf(url)}`
        const tools = document.createElement('span')
        tools.className = 'thumb-tools'
        tools.append(
          button('←', `Move ${nameOf(url)} earlier`, () => move(i, i - 1, 0)),
          button('→', `Move ${nameOf(url)} later`, () => move(i, i + 1, 1)),
          button(
            '×',
            `Remove ${nameOf(url)}`,
            () => write(urlsIn(parts.field).filter((_, j) => j !== i)),
            'danger',
          ),
        )
        item.append(thumbOf(url, parts), name, tools)
        if (!isVideo(url, parts)) item.append(altField(url, i + 1, alts.get(url) ?? '', item))
        item.addEventListener('dragstart', () => {
          dragged = i
        })
        item.addEventListener('dragover', (event) => event.preventDefault())
        item.addEventListener('drop', (event) => {
          event.preventDefault()
          event.stopPropagation()
          if (dragged !== undefined && dragged !== i) move(dragged, i, 0)
          dragged = undefined
        })
        return item
      }),
    )
  }

  parts.input.addEventListener('change', () => {
    const files = [...(parts.input.files ?? [])]
    parts.input.value = ''
    void uploadAll(parts, files, write)
  })
  parts.tray.addEventListener('dragover', (event) => {
    event.preventDefault()
    parts.tray.classList.add('dropping')
  })
  parts.tray.addEventListener('dragleave', () => parts.tray.classList.remove('dropping'))
  parts.tray.addEventListener('drop', (event) => {
    event.preventDefault()
    parts.tray.classList.remove('dropping')
    const files = [...(event.dataTransfer?.files ?? [])]
    if (files.length) void uploadAll(parts, files, write)
  })
  parts.field.addEventListener('input', () => draw())
  draw()
  return { draw }
}
