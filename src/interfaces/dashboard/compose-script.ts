/**
 * Compose's script, served by Herald as /dashboard/compose.js (the CSP allows no inline script). It fills
 * the browser's time zone into a fresh form, uploads files, and runs the live check: as the person edits,
 * the form is sent (debounced, with its CSRF token) to /compose/preflight, which runs preflight_post and
 * answers the check and the preview. "Create post" is enabled only while the latest check passed for
 * exactly what is in the form now, and, for YouTube, the visibility is confirmed.
 */
export const COMPOSE_SCRIPT = `const form = document.getElementById('compose')
const create = document.getElementById('create')
const check = document.getElementById('check')
const preview = document.getElementById('preview')
const zone = document.getElementById('timezone')
const privacy = document.getElementById('youtube-privacy')
const confirm = document.getElementById('youtube-confirm')

if (zone && zone.hasAttribute('data-browser-default')) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (browserZone) {
    if (![...zone.options].some((o) => o.value === browserZone)) zone.add(new Option(browserZone, browserZone), 0)
    zone.value = browserZone
  }
}

/** The form as the check sees it: everything but the YouTube confirmation, which only gates the button. */
const contents = () => {
  const fields = new URLSearchParams(new FormData(form))
  fields.delete('youtubeConfirm')
  return fields.toString()
}
const youtubePicked = () =>
  [...form.querySelectorAll('input[name="profile"]:checked')].some((box) => box.value.startsWith('youtube:'))

let checkedContents = null
let passed = false
let latest = 0
let timer

const youtubeFields = document.getElementById('youtube')
const slot = document.getElementById('slot')
const updateButton = () => {
  if (youtubeFields) youtubeFields.hidden = !youtubePicked()
  // The date, time and zone matter only for a scheduled post; they stay in the form (and keep their values).
  if (slot) slot.hidden = form.querySelector('input[name="when"]:checked')?.value !== 'schedule'
  const confirmed = !youtubePicked() || (confirm && confirm.checked)
  create.disabled = !(passed && checkedContents === contents() && confirmed)
}

/** A lone image keeps its own shape, within the range its network shows. */
const cropImages = () => {
  for (const image of preview.querySelectorAll('img[data-min]')) {
    const fit = () => {
      if (!image.naturalWidth || !image.naturalHeight) return
      const own = image.naturalWidth / image.naturalHeight
      const ratio = Math.min(Number(image.dataset.max), Math.max(Number(image.dataset.min), own))
      image.style.aspectRatio = String(ratio)
    }
    if (image.complete) fit()
    else image.addEventListener('load', fit)
  }
}

const runCheck = async () => {
  const sent = contents()
  const serial = ++latest
  check.setAttribute('aria-busy', 'true')
  let answer
  try {
    const response = await fetch('/compose/preflight', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: sent,
    })
    answer = await response.json()
  } catch {
    answer = { ok: false, checkHtml: '<p class="problem">The check could not run; is Herald reachable?</p>' }
  }
  if (serial !== latest) return
  check.removeAttribute('aria-busy')
  check.innerHTML = answer.checkHtml || '<p class="problem">The check could not run.</p>'
  if (answer.previewHtml !== undefined) {
    preview.innerHTML = answer.previewHtml
    cropImages()
  }
  checkedContents = sent
  passed = answer.ok === true
  updateButton()
}

const edited = () => {
  updateButton()
  clearTimeout(timer)
  if (checkedContents !== contents()) timer = setTimeout(runCheck, 300)
}

form.addEventListener('input', edited)
form.addEventListener('change', edited)

privacy?.addEventListener('change', () => {
  confirm.checked = false
  confirm.value = privacy.value
  document.getElementById('youtube-visibility').textContent = privacy.options[privacy.selectedIndex].text
  updateButton()
})
confirm?.addEventListener('change', updateButton)

form.addEventListener('submit', (event) => {
  if (event.submitter === create) {
    updateButton()
    if (create.disabled) event.preventDefault()
  }
})

// "Add to thread" adds an empty post at the end of the thread here (without script, the form is sent back
// with one more).
const addItem = document.getElementById('add-item')
addItem?.addEventListener('click', (event) => {
  event.preventDefault()
  const items = document.querySelectorAll('.thread-item')
  const last = items[items.length - 1]
  const copy = last.cloneNode(true)
  for (const field of copy.querySelectorAll('textarea')) field.value = ''
  const label = copy.querySelector('label')
  if (label && label.firstChild) label.firstChild.textContent = 'Post ' + (items.length + 2) + ' of the thread '
  last.after(copy)
  copy.querySelector('textarea').focus()
})

const upload = document.getElementById('upload')
const status = document.getElementById('upload-status')
upload?.addEventListener('change', async () => {
  const file = upload.files[0]
  if (!file) return
  status.textContent = 'Uploading ' + file.name + '…'
  const query = new URLSearchParams({ name: file.name, csrf: upload.dataset.csrf })
  const answer = await fetch('/compose/upload?' + query, { method: 'POST', headers: { 'content-type': file.type }, body: file })
  const body = await answer.json().catch(() => ({}))
  if (!answer.ok) {
    status.textContent = body.message || 'The upload was refused.'
    return
  }
  const urls = document.getElementById('media-urls')
  urls.value = (urls.value.trim() ? urls.value.trim() + '\\n' : '') + body.url
  status.textContent = 'Uploaded ' + file.name + '.'
  edited()
})

const start = new URLSearchParams(new FormData(form))
if (start.get('content') || start.getAll('profile').length) runCheck()
else updateButton()
`
