import type { FastifyInstance } from 'fastify'
import { approvalStates } from '../../core/approval.js'
import { isNetwork } from '../../core/networks.js'
import { postStatuses } from '../../core/post-status.js'
import type { AppContext } from '../../modules/app-context.js'
import { waitsForApproval } from '../../modules/publishing/approval-store.js'
import { approvalReview, approvePost, rejectPost } from '../../modules/publishing/approvals.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { approvalSection } from './approval-views.js'
import { actorOf, runAs } from './caller.js'
import { emptyState } from './first-run/empty-state.js'
import { onboardingSection, simulatedNotice } from './first-run/onboarding.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, networkLabels, page, problemPage, sendHtml } from './html.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'

/**
 * The queue and a post's delivery, read and changed through the same tools an agent calls (list_posts,
 * get_post, publish_post_now, reset_stuck_post, update_post, delete_post), as the signed-in person in
 * their workspace: no rule of states or prices is written here.
 */

const PAGE_SIZE = 20

const label = (platform: string) => (isNetwork(platform) ? networkLabels[platform] : platform)
const excerpt = (text: string) => (text.length > 90 ? `${text.slice(0, 89)}…` : text)

interface ListResult {
  posts: PostView[]
  pagination: { page: number; totalPages: number; totalPosts: number }
  counts: Record<string, number>
  approvals?: { pending: number; rejected: number }
}

/** The status shown in the list: a draft waiting for approval (or rejected) says so. */
const shownStatus = (p: PostView) =>
  p.approval?.state === 'pending'
    ? 'pending approval'
    : p.approval?.state === 'rejected'
      ? 'rejected'
      : p.status

function queuePage(
  who: SignedIn,
  result: ListResult,
  status: string,
  approval: string | undefined,
  /** The onboarding checklist and its notices, above the list ('' once it has closed). */
  onboarding = '',
) {
  const selected = approval ? `approval:${approval}` : status
  const filter = (key: string, text: string, href: string) =>
    key === selected
      ? `<strong aria-current="page">${escapeHtml(text)}</strong>`
      : `<a href="${href}">${escapeHtml(text)}</a>`
  const filters = [
    ...['all', ...postStatuses].map((s) =>
      filter(s, `${s} (${result.counts[s] ?? 0})`, `/posts?status=${s}`),
    ),
    ...(result.approvals
      ? [
          filter(
            'approval:pending',
            `pending approval (${result.approvals.pending})`,
            '/posts?approval=pending',
          ),
          filter('approval:rejected', `rejected (${result.approvals.rejected})`, '/posts?approval=rejected'),
        ]
      : []),
  ].join(' · ')
  const rows = result.posts
    .map(
      (
        p,
      ) => `<tr><td><a href="/posts/${escapeHtml(p.id)}">${escapeHtml(excerpt(p.content) || '(no text)')}</a></td>
<td>${escapeHtml(shownStatus(p))}</td><td>${escapeHtml(p.platforms.map(label).join(', '))}</td>
<td>${escapeHtml(`${p.scheduleDate} ${p.scheduleTime} ${p.timezone}`)}</td></tr>`,
    )
    .join('\n')
  const { page: current, totalPages } = result.pagination
  const query = approval ? `approval=${approval}` : `status=${status}`
  const link = (n: number, text: string) => `<a href="/posts?${query}&amp;page=${n}">${text}</a>`
  const pager = [
    current > 1 ? link(current - 1, 'Newer') : '',
    `page ${current} of ${Math.max(1, totalPages)}`,
    current < totalPages ? link(current + 1, 'Older') : '',
  ]
    .filter(Boolean)
    .join(' · ')
  return page(
    'Posts',
    `<h1>Posts of ${escapeHtml(who.workspace.name)}</h1>
${onboarding}<nav aria-label="Filter by status"><p>${filters}</p></nav>
${
  result.posts.length
    ? `<div class="scroll" tabindex="0" role="region" aria-label="Posts"><table><thead><tr><th scope="col">Post</th><th scope="col">Status</th><th scope="col">Networks</th><th scope="col">Slot</th></tr></thead><tbody>
${rows}</tbody></table></div><p>${pager}</p>`
    : emptyList(result)
}`,
    { signedIn: account(who) },
  )
}

/** What an empty list says: what this page will show, and the one button that fills it. */
function emptyList(result: ListResult) {
  if ((result.counts.all ?? 0) > 0 || result.pagination.page > 1)
    return '<p class="muted">No posts match this filter. <a href="/posts">Show all posts</a></p>'
  return emptyState('No posts yet. Every post you write appears here, with how it went on each network.', {
    href: '/compose',
    label: 'Compose a post',
  })
}

/** The actions a post's state allows, each a CSRF-protected form that calls one tool. */
function actions(post: PostView, csrf: string) {
  const form = (action: string, text: string) =>
    `<form method="post" action="/posts/${escapeHtml(post.id)}/${action}" class="inline">${csrfField(csrf)}<button type="submit">${text}</button></form>`
  const failed = post.targets.some((t) => t.status === 'failed')
  const pending = post.approval?.state === 'pending'
  const out: string[] = []
  if (post.status === 'scheduled' || post.status === 'draft' || post.status === 'failed')
    out.push(`<a href="/posts/${escapeHtml(post.id)}/edit">Edit</a>`)
  // Nothing publishes a post waiting for approval but its approval (src/core/approval.ts).
  if ((post.status === 'scheduled' || post.status === 'draft') && !pending)
    out.push(form('publish', 'Publish now'))
  if ((post.status === 'failed' || post.status === 'published') && failed)
    out.push(form('publish', 'Retry the failed profiles'))
  if (post.status === 'processing') out.push(form('reset', 'Reset stuck sending'))
  if (post.status === 'scheduled' || post.status === 'failed') out.push(form('draft', 'Move to drafts'))
  if (pending) out.push(form('draft', 'Withdraw the request (keep as a draft)'))
  if (post.status === 'scheduled' || post.status === 'draft') out.push(form('delete', 'Delete'))
  return out.join(' ')
}

interface PostAnalytics {
  fetchedAt: string | null
  totals: Record<string, number | null>
  measured: number
  measurable: number
  notes: string[]
}

/** Stored readings (free) and the refresh form, which states its price before anything is spent. */
function analyticsSection(post: PostView, analytics: PostAnalytics | undefined, csrf: string) {
  if (!post.targets.some((t) => t.status === 'published')) return ''
  const figures = analytics
    ? Object.entries(analytics.totals)
        .filter(([, value]) => value !== null)
        .map(
          ([key, value]) => `<tr><th scope="row">${escapeHtml(key)}</th><td>${escapeHtml(value)}</td></tr>`,
        )
        .join('')
    : ''
  const when = analytics?.fetchedAt
    ? `Read ${escapeHtml(analytics.fetchedAt.slice(0, 16).replace('T', ' '))} UTC`
    : 'Never read yet'
  return `<h2>Analytics</h2>
<p class="muted">${when}; ${analytics?.measured ?? 0} of ${analytics?.measurable ?? 0} profiles with numbers. Stored readings are free.</p>
${figures ? `<table><tbody>${figures}</tbody></table>` : ''}
${(analytics?.notes ?? []).map((n) => `<p class="muted">${escapeHtml(n)}</p>`).join('')}
<form method="post" action="/posts/${escapeHtml(post.id)}/analytics">${csrfField(csrf)}
<button type="submit">Refresh analytics now (costs 1 credit)</button></form>`
}

/**
 * A target's thread posts and first comment, one row each under it, with their own delivery
 * (status, link, the network's words when one was refused).
 */
function itemRows(items: NonNullable<PostView['targets'][number]['items']>): string {
  let threadPost = 1
  return items
    .map((item) => {
      const what = item.kind === 'firstComment' ? 'First comment' : `Thread post ${++threadPost}`
      return `\n<tr class="item"><td></td><td>↳ ${escapeHtml(what)}</td>
<td>${escapeHtml(item.status)}</td>
<td>${item.url ? `<a href="${escapeHtml(item.url)}" rel="noopener noreferrer">${escapeHtml(item.url)}</a>` : ''}</td>
<td>${escapeHtml(item.error ?? '')}</td></tr>`
    })
    .join('')
}

function postPage(
  app: AppContext,
  who: SignedIn,
  post: PostView,
  message?: { notice?: string; problem?: string },
  analytics?: PostAnalytics,
  review?: { price: number; publishImmediately: boolean },
) {
  const rows = post.targets
    .map(
      (
        t,
      ) => `<tr><td>${escapeHtml(label(t.platform))}</td><td>@${escapeHtml(t.username.replace(/^@+/, ''))}</td>
<td>${escapeHtml(t.status)}</td>
<td>${t.url ? `<a href="${escapeHtml(t.url)}" rel="noopener noreferrer">${escapeHtml(t.url)}</a>` : ''}</td>
<td>${escapeHtml([t.error, t.uploadError].filter(Boolean).join(' · '))}</td></tr>${itemRows(t.items ?? [])}`,
    )
    .join('\n')
  const notice = message?.notice
    ? `<div class="notice" role="status"><p>${escapeHtml(message.notice)}</p></div>`
    : ''
  const problem = message?.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(message.problem)}</p></div>`
    : ''
  return page(
    'Post',
    `<p><a href="/posts">All posts</a></p>
<h1>Post ${escapeHtml(post.id)}</h1>
${notice}${problem}
<p><strong>${escapeHtml(post.status)}</strong> · slot ${escapeHtml(`${post.scheduleDate} ${post.scheduleTime} ${post.timezone}`)}${post.queued ? ' (from the posting queue)' : ''} · ${post.attempts} attempt${post.attempts === 1 ? '' : 's'}</p>
${approvalSection(app, post, { owner: who.workspace.role === 'owner', csrf: who.session.csrfToken, price: review?.price, immediate: review?.publishImmediately ?? false })}
<blockquote>${escapeHtml(post.content)}</blockquote>
${post.mediaUrls.length ? `<p>Media: ${post.mediaUrls.map((u) => escapeHtml(u)).join(', ')}</p>` : ''}
${post.lastError ? `<p class="muted">Last error: ${escapeHtml(post.lastError)}</p>` : ''}
<h2>Delivery per profile</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Delivery per profile"><table><thead><tr><th scope="col">Network</th><th scope="col">Profile</th><th scope="col">Status</th><th scope="col">Link</th><th scope="col">Error</th></tr></thead><tbody>
${rows}</tbody></table></div>
<p>${actions(post, who.session.csrfToken)}</p>
${analyticsSection(post, analytics, who.session.csrfToken)}`,
    { signedIn: account(who) },
  )
}

interface EditForm {
  content: string
  mediaUrls: string
  when: 'schedule' | 'now'
  date: string
  time: string
  timezone: string
}

/**
 * Editing a scheduled, draft or failed post: its copy, media and slot (the profiles stay; update_post takes
 * new ones over the API). Saving calls update_post; "submit" also asks for the post to go out: update_post
 * to scheduled, or publish_post_now, which wait for an owner when approvals apply to this person.
 */
function editPage(who: SignedIn, post: PostView, form: EditForm, waits: boolean, problem?: string) {
  const id = escapeHtml(post.id)
  const submit = waits
    ? 'Save and submit for approval'
    : form.when === 'now'
      ? 'Save and publish now'
      : 'Save and schedule'
  const note =
    post.approval?.state === 'rejected'
      ? `<div class="problem" role="alert"><p><strong>An owner sent it back:</strong></p><blockquote class="note">${escapeHtml(post.approval.note ?? '')}</blockquote></div>`
      : ''
  return page(
    'Edit post',
    `<p><a href="/posts/${id}">Back to the post</a></p>
<h1>Edit post</h1>
${note}${problem ? `<div class="problem" role="alert"><p>${escapeHtml(problem)}</p></div>` : ''}
<p class="muted">To ${escapeHtml(post.targets.map((t) => `${label(t.platform)} @${t.username.replace(/^@+/, '')}`).join(', '))}.</p>
<form method="post" action="/posts/${id}/edit">${csrfField(who.session.csrfToken)}
<label>Copy <textarea name="content" rows="6">${escapeHtml(form.content)}</textarea></label>
<label>Media URLs, one per line, in order <textarea name="mediaUrls" rows="2">${escapeHtml(form.mediaUrls)}</textarea></label>
<fieldset><legend>When</legend>
<label><input type="radio" name="when" value="schedule"${form.when === 'schedule' ? ' checked' : ''}> At a date and time</label>
<label>Date <input type="date" name="date" value="${escapeHtml(form.date)}"></label>
<label>Time <input type="time" name="time" value="${escapeHtml(form.time)}"></label>
<label>Time zone <input type="text" name="timezone" value="${escapeHtml(form.timezone)}"></label>
<label><input type="radio" name="when" value="now"${form.when === 'now' ? ' checked' : ''}> ${waits ? 'As soon as it is approved' : 'Now'}</label>
</fieldset>
<button type="submit" name="intent" value="save">Save</button>
<button type="submit" name="intent" value="submit">${submit}</button>
${waits ? '<p class="muted">Approvals are on: an owner approves the post before it goes out; its credits are charged then.</p>' : ''}
</form>`,
    { signedIn: account(who) },
  )
}

export function registerPostRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const run = runAs(runner)
  const showPost: ShowPost = (reply, who, id, status, message) =>
    showPostPage(app, run, { reply, who, id, status, message })

  scope.get<{ Querystring: { status?: string; page?: string; approval?: string } }>(
    '/posts',
    async (request, reply) => {
      const who = await signedIn(app, request)
      if (!who) return redirectToLogin(reply, '/posts')
      const status = ['all', ...postStatuses].includes(request.query.status ?? '')
        ? request.query.status!
        : 'all'
      const approval = (approvalStates as readonly string[]).includes(request.query.approval ?? '')
        ? request.query.approval
        : undefined
      const pageNumber = Math.max(1, Number.parseInt(request.query.page ?? '1', 10) || 1)
      const result = await run<ListResult>(who, 'list_posts', {
        status,
        page: pageNumber,
        limit: PAGE_SIZE,
        ...(approval ? { approval } : {}),
      })
      const notice = simulatedNotice(request.query as Record<string, unknown>)
      const onboarding = `${notice ? `<div class="notice" role="status"><p>${escapeHtml(notice)}</p></div>` : ''}${await onboardingSection(app, who)}`
      return sendHtml(reply, 200, queuePage(who, result, status, approval, onboarding))
    },
  )

  scope.get<{ Params: { id: string } }>('/posts/:id', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, `/posts/${encodeURIComponent(request.params.id)}`)
    return showPost(reply, who, request.params.id, 200)
  })

  registerEditRoutes(scope, app, run, showPost)
  registerPostActions(scope, app, run, showPost)
}

type Run = ReturnType<typeof runAs>
type Reply = Parameters<typeof sendHtml>[0]
type ShowPost = (
  reply: Reply,
  who: SignedIn,
  id: string,
  status: number,
  message?: { notice?: string; problem?: string },
) => Promise<unknown>

/** The post's page (with its analytics once published, and its approval review), or why it cannot be shown. */
async function showPostPage(
  app: AppContext,
  run: Run,
  {
    reply,
    who,
    id,
    status,
    message,
  }: {
    reply: Reply
    who: SignedIn
    id: string
    status: number
    message: { notice?: string; problem?: string } | undefined
  },
) {
  try {
    const post = await run<PostView>(who, 'get_post', { id })
    const analytics = post.targets.some((t) => t.status === 'published')
      ? await run<PostAnalytics>(who, 'get_post_analytics', { id })
      : undefined
    const review = await approvalReview(app, { workspaceId: who.workspace.id }, id)
    return sendHtml(reply, status, postPage(app, who, post, message, analytics, review))
  } catch (error) {
    const appError = toAppError(error)
    return sendHtml(
      reply,
      appError.code === 'not_found' ? 404 : 400,
      problemPage('Post not found', appError.message, {
        signedIn: account(who),
        next: '<p><a href="/posts">All posts</a></p>',
      }),
    )
  }
}

const formOf = (post: PostView, immediate: boolean): EditForm => ({
  content: post.content,
  mediaUrls: post.mediaUrls.join('\n'),
  when: immediate ? 'now' : 'schedule',
  date: post.scheduleDate,
  time: post.scheduleTime,
  timezone: post.timezone,
})

const waitsFor = (app: AppContext, who: SignedIn) =>
  waitsForApproval(app.store.db, { workspaceId: who.workspace.id, role: who.workspace.role })

/** Only what changed is sent: new copy replaces per-network copy, so unchanged copy is left alone. */
function changeOf(id: string, form: EditForm, post: PostView): Record<string, unknown> {
  const change: Record<string, unknown> = { id }
  if (form.content !== post.content) change.content = form.content
  const media = form.mediaUrls.split(/\s+/).filter(Boolean)
  if (media.join('\n') !== post.mediaUrls.join('\n')) change.mediaUrls = media
  if (form.when === 'schedule') {
    if (form.date !== post.scheduleDate) change.scheduleDate = form.date
    if (form.time !== post.scheduleTime) change.scheduleTime = form.time
    if (form.timezone !== post.timezone) change.timezone = form.timezone
  }
  return change
}

/** The edit form of a post, and its POST: save the changes, submit it for its slot, or send it now. */
function registerEditRoutes(scope: FastifyInstance, app: AppContext, run: Run, showPost: ShowPost) {
  scope.get<{ Params: { id: string } }>('/posts/:id/edit', async (request, reply) => {
    const who = await signedIn(app, request)
    const { id } = request.params
    if (!who) return redirectToLogin(reply, `/posts/${encodeURIComponent(id)}/edit`)
    let post: PostView
    try {
      post = await run<PostView>(who, 'get_post', { id })
    } catch {
      return showPost(reply, who, id, 404)
    }
    const review = await approvalReview(app, { workspaceId: who.workspace.id }, id)
    return sendHtml(
      reply,
      200,
      editPage(who, post, formOf(post, review?.publishImmediately ?? false), await waitsFor(app, who)),
    )
  })

  scope.post<{ Params: { id: string } }>('/posts/:id/edit', async (request, reply) => {
    const who = signedInOf(request)
    const { id } = request.params
    const form: EditForm = {
      content: field(request, 'content'),
      mediaUrls: field(request, 'mediaUrls'),
      when: field(request, 'when') === 'now' ? 'now' : 'schedule',
      date: field(request, 'date').trim(),
      time: field(request, 'time').trim(),
      timezone: field(request, 'timezone').trim() || 'UTC',
    }
    let post: PostView
    try {
      post = await run<PostView>(who, 'get_post', { id })
    } catch {
      return showPost(reply, who, id, 404)
    }
    const change = changeOf(id, form, post)
    const submit = field(request, 'intent') === 'submit'
    try {
      let message = 'Saved.'
      if (Object.keys(change).length > 1 || (submit && form.when === 'schedule')) {
        const updated = await run<{ message: string }>(who, 'update_post', {
          ...change,
          ...(submit && form.when === 'schedule' ? { status: 'scheduled' } : {}),
        })
        message = updated.message
      }
      if (submit && form.when === 'now')
        message = (await run<{ message: string }>(who, 'publish_post_now', { id })).message
      return showPost(reply, who, id, 200, { notice: message })
    } catch (error) {
      const appError = toAppError(error)
      if (appError.code === 'internal') throw error
      return sendHtml(
        reply,
        httpStatusFor(appError.code),
        editPage(who, post, form, await waitsFor(app, who), appError.message),
      )
    }
  })
}

const postActions: Record<
  string,
  { tool: string; args: (id: string) => Record<string, unknown>; done: string }
> = {
  publish: { tool: 'publish_post_now', args: (id) => ({ id }), done: 'Sending now.' },
  reset: {
    tool: 'reset_stuck_post',
    args: (id) => ({ id }),
    done: 'Released: Herald checks the network before anything is sent again.',
  },
  draft: { tool: 'update_post', args: (id) => ({ id, status: 'draft' }), done: 'Kept as a draft.' },
  delete: { tool: 'delete_post', args: (id) => ({ id }), done: 'Deleted.' },
  analytics: {
    tool: 'get_post_analytics',
    args: (id) => ({ id, refresh: true }),
    done: 'Analytics read from the networks now.',
  },
}

// An owner's decisions on a post waiting for approval (not tools: src/modules/publishing/approvals.ts).
// Approving names the version the owner reviewed on the post's page: a post changed since is refused.
const decisions: Record<
  string,
  (
    app: AppContext,
    who: SignedIn,
    id: string,
    form: { note: string; version: string },
  ) => Promise<{ message: string }>
> = {
  approve: (app, who, id, form) => approvePost(app, actorOf(who), id, { version: form.version || undefined }),
  'approve-now': (app, who, id, form) =>
    approvePost(app, actorOf(who), id, { publishNow: true, version: form.version || undefined }),
  reject: (app, who, id, form) => rejectPost(app, actorOf(who), id, form.note),
}

/** `POST /posts/:id/<action>`: a tool run on the post (publish, reset, draft, delete, analytics) or a decision. */
function registerPostActions(scope: FastifyInstance, app: AppContext, run: Run, showPost: ShowPost) {
  scope.post<{ Params: { id: string; action: string } }>('/posts/:id/:action', async (request, reply) => {
    const who = signedInOf(request)
    const action = postActions[request.params.action]
    const { id } = request.params
    const decide = decisions[request.params.action]
    if (decide) {
      try {
        const done = await decide(app, who, id, {
          note: field(request, 'note'),
          version: field(request, 'version'),
        })
        return showPost(reply, await signedIn(app, request).then((w) => w ?? who), id, 200, {
          notice: done.message,
        })
      } catch (error) {
        const appError = toAppError(error)
        if (appError.code === 'internal') throw error
        return showPost(reply, who, id, httpStatusFor(appError.code), { problem: appError.message })
      }
    }
    if (!action)
      return sendHtml(reply, 404, problemPage('Unknown action', 'That is not something a post can do.'))
    try {
      await run(who, action.tool, action.args(id))
    } catch (error) {
      // The tool's own words: a 409 says why the post's state does not allow it.
      const appError = toAppError(error)
      return showPost(reply, who, id, httpStatusFor(appError.code), { problem: appError.message })
    }
    if (request.params.action === 'delete') return reply.redirect('/posts', 303)
    return showPost(reply, who, id, 200, { notice: action.done })
  })
}
