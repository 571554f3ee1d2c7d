import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { isNetwork, type Network } from '../domain/networks.js'
import { httpStatusFor, toAppError } from '../errors.js'
import type { FormBody } from '../lib/form.js'
import type { ToolRunner } from '../tools/runner.js'
import { runAs } from './caller.js'
import { csrfField, escapeHtml, networkLabels, page, sendHtml } from './html.js'
import { csrfMatches, redirectToLogin, refuseCsrf, type SignedIn, signedIn } from './request.js'

/**
 * Compose: the copy, the profiles, media by URL, per-network copy, YouTube details and the slot (or now).
 * "Check" runs preflight_post and shows its blockers, warnings and the credit cost against the balance;
 * "Create" runs create_post. Both are the tools an agent calls, as the signed-in person.
 */

/** What Compose accepts as an upload: the image and video types the networks take. */
export const UPLOAD_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'video/webm',
]
export const UPLOAD_LIMIT = 100 * 1024 * 1024

interface Account {
  platform: Network
  username: string
  name: string
  profileId: string
}

interface Preflight {
  ok: boolean
  characterCount: number
  blockers: string[]
  warnings: string[]
  credits: { cost: number; balance: number; remainingAfter: number }
  limits: Record<string, number>
}

interface Draft {
  content: string
  profiles: string[]
  mediaUrls: string
  variants: Partial<Record<Network, string>>
  youtubeTitle: string
  youtubePrivacy: string
  when: 'now' | 'schedule'
  date: string
  time: string
  timezone: string
}

const list = (body: FormBody, name: string) => {
  const value = body[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
const one = (body: FormBody, name: string) => list(body, name)[0] ?? ''

function readDraft(body: FormBody): Draft {
  const variants: Draft['variants'] = {}
  for (const key of Object.keys(body)) {
    const network = key.startsWith('variant_') ? key.slice('variant_'.length) : ''
    if (isNetwork(network) && one(body, key).trim()) variants[network] = one(body, key)
  }
  return {
    content: one(body, 'content'),
    profiles: list(body, 'profile'),
    mediaUrls: one(body, 'mediaUrls'),
    variants,
    youtubeTitle: one(body, 'youtubeTitle'),
    youtubePrivacy: one(body, 'youtubePrivacy') || 'private',
    when: one(body, 'when') === 'schedule' ? 'schedule' : 'now',
    date: one(body, 'date'),
    time: one(body, 'time'),
    timezone: one(body, 'timezone') || 'UTC',
  }
}

/** The tools' arguments for a draft (the same for preflight_post and create_post). */
function toolArguments(draft: Draft) {
  const targetAccounts = draft.profiles.map((key) => {
    const [platform, ...rest] = key.split(':')
    return { platform, profileId: rest.join(':') }
  })
  const mediaUrls = draft.mediaUrls
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean)
  const youtube = draft.profiles.some((p) => p.startsWith('youtube:'))
    ? { title: draft.youtubeTitle, privacyStatus: draft.youtubePrivacy }
    : undefined
  return {
    content: draft.content,
    targetAccounts,
    ...(mediaUrls.length ? { mediaUrls } : {}),
    ...(Object.keys(draft.variants).length ? { variants: draft.variants } : {}),
    ...(youtube ? { youtube } : {}),
    ...(draft.when === 'now'
      ? { publishImmediately: true, timezone: draft.timezone }
      : { scheduleDate: draft.date, scheduleTime: draft.time, timezone: draft.timezone }),
  }
}

function composePage(
  who: SignedIn,
  accounts: Account[],
  draft: Draft,
  result: { preflight?: Preflight; problem?: string } = {},
) {
  const csrf = who.session.csrfToken
  const picked = new Set(draft.profiles)
  const boxes = accounts
    .map((a) => {
      const key = `${a.platform}:${a.profileId}`
      return `<label><input type="checkbox" name="profile" value="${escapeHtml(key)}"${picked.has(key) ? ' checked' : ''}> ${escapeHtml(networkLabels[a.platform])}: @${escapeHtml(a.username.replace(/^@+/, ''))} (${escapeHtml(a.name)})</label>`
    })
    .join('\n')
  const networks = [...new Set(accounts.map((a) => a.platform))]
  const variantFields = networks
    .map(
      (n) =>
        `<label>Copy for ${escapeHtml(networkLabels[n])} only (optional) <textarea name="variant_${n}" rows="2" cols="60">${escapeHtml(draft.variants[n] ?? '')}</textarea></label>`,
    )
    .join('\n')
  const youtube = networks.includes('youtube')
    ? `<fieldset><legend>YouTube</legend>
<label>Title <input type="text" name="youtubeTitle" maxlength="100" value="${escapeHtml(draft.youtubeTitle)}"></label>
<label>Visibility <select name="youtubePrivacy">${['private', 'unlisted', 'public']
        .map((p) => `<option value="${p}"${draft.youtubePrivacy === p ? ' selected' : ''}>${p}</option>`)
        .join('')}</select></label>
<p class="muted">Confirm the visibility before creating: a public upload is seen by everyone at once.</p></fieldset>`
    : ''
  const pf = result.preflight
  const check = pf
    ? `<section aria-labelledby="check-title"><h2 id="check-title">Check</h2>
<p class="${pf.ok ? 'notice' : 'problem'}" role="status">${pf.ok ? 'Ready to create.' : 'Not ready: fix the blockers below.'}
${pf.characterCount} characters. It costs <strong>${pf.credits.cost}</strong> credits of ${pf.credits.balance}.</p>
${pf.blockers.length ? `<h3>Blockers</h3><ul>${pf.blockers.map((b) => `<li>${escapeHtml(b)}</li>`).join('')}</ul>` : ''}
${pf.warnings.length ? `<h3>Warnings</h3><ul>${pf.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''}
<p class="muted">Limits: ${Object.entries(pf.limits)
        .map(([n, l]) => `${escapeHtml(isNetwork(n) ? networkLabels[n] : n)} ${l}`)
        .join(', ')}</p></section>`
    : ''
  const problem = result.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(result.problem)}</p></div>`
    : ''
  return page(
    'Compose',
    `<h1>Compose</h1>
${problem}${check}
<form method="post" action="/compose">${csrfField(csrf)}
<label>Copy <textarea name="content" rows="5" cols="60" required>${escapeHtml(draft.content)}</textarea></label>
<fieldset><legend>Profiles</legend>
${boxes || '<p class="muted">No profile is connected yet: <a href="/channels">connect one</a>.</p>'}</fieldset>
<label>Media URLs, one per line (optional) <textarea name="mediaUrls" id="media-urls" rows="2" cols="60">${escapeHtml(draft.mediaUrls)}</textarea></label>
<label>Or upload a file (Herald hosts it and adds its URL above) <input type="file" id="upload" accept="${UPLOAD_TYPES.join(',')}" data-csrf="${escapeHtml(csrf)}"></label>
<p id="upload-status" class="muted" role="status"></p>
${variantFields}
${youtube}
<fieldset><legend>When</legend>
<label><input type="radio" name="when" value="now"${draft.when === 'now' ? ' checked' : ''}> Publish now</label>
<label><input type="radio" name="when" value="schedule"${draft.when === 'schedule' ? ' checked' : ''}> Schedule</label>
<label>Date <input type="date" name="date" value="${escapeHtml(draft.date)}"></label>
<label>Time <input type="time" name="time" value="${escapeHtml(draft.time)}"></label>
<label>Time zone <input type="text" name="timezone" id="timezone" value="${escapeHtml(draft.timezone)}"></label>
</fieldset>
<button type="submit" name="intent" value="check">Check</button>
<button type="submit" name="intent" value="create"${pf?.ok ? '' : ' disabled'}>Create post</button>
<p class="muted">Create is enabled once a check passes with this copy and these profiles.</p>
</form>
<script src="/dashboard/compose.js"></script>`,
    { signedIn: { email: who.user.email, csrfToken: csrf } },
  )
}

/** Fills the browser's time zone into an untouched form; the page works without it (UTC). */
const COMPOSE_SCRIPT = `const zone = document.getElementById('timezone')
if (zone && zone.value === 'UTC') {
  zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}
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
})
`

export function registerComposeRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const run = runAs(runner)
  const emptyDraft = (): Draft => ({
    content: '',
    profiles: [],
    mediaUrls: '',
    variants: {},
    youtubeTitle: '',
    youtubePrivacy: 'private',
    when: 'now',
    date: '',
    time: '',
    timezone: 'UTC',
  })

  scope.get('/dashboard/compose.js', async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').send(COMPOSE_SCRIPT),
  )

  // The file's bytes as the body, its type as the content type; the CSRF token travels in the query.
  scope.post<{ Querystring: { name?: string; csrf?: string } }>('/compose/upload', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return reply.code(401).send({ message: 'Sign in again, then upload.' })
    const sent = request.query.csrf ?? ''
    if (!sent || sent !== who.session.csrfToken)
      return reply.code(403).send({ message: 'This page expired; reload it and upload again.' })
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
    const bytes = request.body
    if (!UPLOAD_TYPES.includes(type) || !Buffer.isBuffer(bytes) || bytes.length === 0)
      return reply
        .code(415)
        .send({ message: 'Upload an image (PNG, JPEG, GIF, WebP) or a video (MP4, MOV, WebM).' })
    const name = (request.query.name ?? 'upload').replace(/[^A-Za-z0-9._-]+/g, '-').slice(-80) || 'upload'
    const staged = await app.media.stage({ bytes, contentType: type, name, workspaceId: who.workspace.id })
    try {
      await staged.commit(app.store.db)
    } catch (error) {
      await staged.discard()
      throw error
    }
    return reply.code(201).send({ url: staged.url })
  })

  scope.get('/compose', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/compose')
    const accounts = await run<Account[]>(who, 'get_connected_accounts', {})
    return sendHtml(reply, 200, composePage(who, accounts, emptyDraft()))
  })

  scope.post('/compose', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/compose')
    if (!csrfMatches(request, who.session.csrfToken)) return refuseCsrf(reply)
    const body = (request.body ?? {}) as FormBody
    const draft = readDraft(body)
    const accounts = await run<Account[]>(who, 'get_connected_accounts', {})
    const args = toolArguments(draft)
    try {
      const preflight = await run<Preflight>(who, 'preflight_post', args)
      if (one(body, 'intent') !== 'create' || !preflight.ok)
        return sendHtml(reply, 200, composePage(who, accounts, draft, { preflight }))
      const created = await run<{ postIds: string[] }>(who, 'create_post', args)
      const [first, ...others] = created.postIds
      return reply.redirect(others.length || !first ? '/posts' : `/posts/${encodeURIComponent(first)}`, 303)
    } catch (error) {
      const appError = toAppError(error)
      return sendHtml(
        reply,
        httpStatusFor(appError.code),
        composePage(who, accounts, draft, { problem: appError.message }),
      )
    }
  })
}
