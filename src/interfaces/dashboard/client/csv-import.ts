/**
 * Import's file picker: the chosen CSV is sent as it is to /import/upload (the server checks it row by row)
 * and the page moves on to the check's report; a refusal is said beside the picker.
 */
const input = document.getElementById('csv-file') as HTMLInputElement | null
const status = document.getElementById('csv-status')

input?.addEventListener('change', async () => {
  const file = input.files?.[0]
  if (!file || !status) return
  status.textContent = `Checking ${file.name}…`
  const query = new URLSearchParams({ name: file.name, csrf: input.dataset.csrf ?? '' })
  const answer = await fetch(`/import/upload?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: file,
  })
  const body = (await answer.json().catch(() => ({}))) as { message?: string; url?: string }
  if (!answer.ok || !body.url) {
    status.textContent = body.message || 'The upload was refused.'
    return
  }
  window.location.href = body.url
})
