import type { FastifyInstance } from 'fastify'
import { approvalStates } from '../../core/approval.js'
import { isNetwork } from '../../core/networks.js'
import { postStatuses } from '../../core/post-status.js'
import type { AppContext } from '../../modules/app-context.js'
import { waitsForApproval } from '../../modules/publishing/approval-store.js'
import { approvalReview, approvePost, rejectPost } from '../../modules/publishing/approvals.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolArgs } from '../tools/registry.js'
import type { ToolRunner } from '../tools/runner.js'
import { approvalSection } from './approval-views.js'
import { actorOf, runAs, toolsAs } from './caller.js'
import { onboardingSection, simulatedNotice } from './first-run/onboarding.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, networkLabels, page, problemPage, sendHtml } from './html.js'
import {
  analyticsSection,
  history,
  mediaGallery,
  type NeedsReconnect,
  type PostAnalytics,
  postHead,
  postTitle,
  profileCards,
} from './post-page.js'
import { handleOf, localMediaOf } from './post-parts.js'
import { registerPostExport } from './posts-export.js'
import { type ListFilters, postsListBody } from './posts-list.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'

/**
 * The queue and a post's delivery, read and changed through the same tools an agent calls (list_posts,
 * get_post, publish_post_now, reset_stuck_post, update_post, delete_post), as the signed-in person in
 * their workspace: no rule of states or prices is written here.
 */

/** Composes per page of the list. */
const PAGE_SIZE = 20

const label = (platform: string) => (isNetwork(platform) ? networkLabels[platform] : platform)

/** The actions a post's state allows, each a CSRF-protected form that calls one tool. */
function actions(post: PostView, csrf: string) {
  const form = (action: string, text: string) =>
    // Deleting cannot be undone, so it looks unlike the rest.
    `<form method="post" action="/posts/${escapeHtml(post.id)}/${action}" class="inline">${csrfField(csrf)}<button type="submit"${action === 'delete' ? ' class="danger"' : ''}>${text}</button></form>`
  const pending = post.approval?.state === 'pending'
  const out: string[] = []
  if (post.status === 'scheduled' || post.status === 'draft' || post.status === 'failed')
    out.push(`<a class="button" href="/posts/${escapeHtml(post.id)}/edit">Edit</a>`)
  // Nothing publishes a post waiting for approval but its approval (src/core/approval.ts).
  if ((post.status === 'scheduled' || post.status === 'draft') && !pending)
    out.push(form('publish', 'Publish now'))
  // A failed profile's retry sits on its card, beside the network's words (src/interfaces/dashboard/post-page.ts).
  if (post.status === 'processing') out.push(form('reset', 'Reset stuck sending'))
  if (post.status === 'scheduled' || post.status === 'failed') out.push(form('draft', 'Move to drafts'))
  if (pending) out.push(form('draft', 'Withdraw the request (keep as a draft)'))
  if (post.status === 'scheduled' || post.status === 'draft') out.push(form('delete', 'Delete'))
  return out.join(' ')
}

function postPage(
  app: AppContext,
  who: SignedIn,
  view: { post: PostView; compose: PostView[]; needsReconnect: NeedsReconnect },
  message?: { notice?: string; problem?: string },
  analytics?: PostAnalytics,
  review?: { price: number; publishImmediately: boolean },
) {
  const { post } = view
  const csrf = who.session.csrfToken
  const local = localMediaOf(app.config.publicBaseUrl)
  const notice = message?.notice
    ? `<div class="notice" role="status"><p>${escapeHtml(message.notice)}</p></div>`
    : ''
  const problem = message?.problem
    ? `<div class="problem" role="alert"><p>${escapeHtml(message.problem)}</p></div>`
    : ''
  const target = post.targets[0]
  return page(
    postTitle(post),
    `${postHead(post)}
${notice}${problem}
${approvalSection(app, post, { owner: who.workspace.role === 'owner', csrf, price: review?.price, immediate: review?.publishImmediately ?? false })}
<blockquote class="post-copy">${escapeHtml(post.content)}</blockquote>
${mediaGallery(post, local)}
${profileCards(view.compose, post.id, { csrf, needsReconnect: view.needsReconnect })}
<section aria-labelledby="actions-head"><h2 id="actions-head">${target ? `Actions for ${escapeHtml(`${label(target.platform)} ${handleOf(target.username)}`)}` : 'Actions'}</h2>
<div class="post-actions">${actions(post, csrf)}</div></section>
${history(view.compose)}
${analyticsSection(post, analytics, csrf)}`,
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
  const tools = toolsAs(runner)
  const showPost: ShowPost = (reply, who, id, status, message) =>
    showPostPage(app, tools, { reply, who, id, status, message })

  scope.get<{ Querystring: Record<string, string | undefined> }>('/posts', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/posts')
    const filters = filtersOf(request.query)
    const pageNumber = Math.max(1, Number.parseInt(request.query.page ?? '1', 10) || 1)
    const [list, profiles] = await Promise.all([
      tools(who, 'list_posts', { ...listArgs(filters), byCompose: true, page: pageNumber, limit: PAGE_SIZE }),
      tools(who, 'get_connected_accounts', {}),
    ])
    const notice = simulatedNotice(request.query as Record<string, unknown>)
    const onboarding = `${notice ? `<div class="notice" role="status"><p>${escapeHtml(notice)}</p></div>` : ''}${await onboardingSection(app, who)}`
    const body = postsListBody(who.workspace.name, list, {
      filters,
      profiles,
      local: localMediaOf(app.config.publicBaseUrl),
      onboarding,
    })
    return sendHtml(reply, 200, page('Posts', body, { signedIn: account(who) }))
  })

  scope.get<{ Params: { id: string } }>('/posts/:id', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, `/posts/${encodeURIComponent(request.params.id)}`)
    return showPost(reply, who, request.params.id, 200)
  })

  registerPostExport(scope, app)
  registerEditRoutes(scope, app, run, showPost)
  registerPostActions(scope, app, run, showPost)
}

/** The list's filters from the query string; anything unknown is left out rather than refused. */
export function filtersOf(query: Record<string, string | undefined>): ListFilters {
  const text = (key: string, max = 200) => (query[key] ?? '').trim().slice(0, max)
  const day = (key: string) => (/^\d{4}-\d{2}-\d{2}$/.test(text(key)) ? text(key) : '')
  const legacyApproval = (approvalStates as readonly string[]).includes(query.approval ?? '')
    ? `approval:${query.approval}`
    : ''
  const statuses = ['all', ...postStatuses, ...approvalStates.map((a) => `approval:${a}`)]
  const status = legacyApproval || (statuses.includes(text('status')) ? text('status') : 'all')
  return {
    status,
    network: isNetwork(text('network')) ? text('network') : '',
    profile: text('profile'),
    from: day('from'),
    to: day('to'),
    q: text('q'),
  }
}

/** The filters as list_posts takes them. */
function listArgs(filters: ListFilters): Omit<ToolArgs<'list_posts'>, 'workspaceId'> {
  const approval = filters.status.startsWith('approval:')
    ? filters.status.slice('approval:'.length)
    : undefined
  return {
    status: approval ? 'all' : (filters.status as ToolArgs<'list_posts'>['status']),
    ...(approval ? { approval: approval as ToolArgs<'list_posts'>['approval'] } : {}),
    ...(filters.network ? { network: filters.network as ToolArgs<'list_posts'>['network'] } : {}),
    ...(filters.profile ? { profileId: filters.profile } : {}),
    ...(filters.from ? { from: filters.from } : {}),
    ...(filters.to ? { to: filters.to } : {}),
    ...(filters.q ? { search: filters.q } : {}),
  }
}

type Run = ReturnType<typeof runAs>
type Tools = ReturnType<typeof toolsAs>
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
  tools: Tools,
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
    const post = await tools(who, 'get_post', { id })
    const [compose, health, analytics, review] = await Promise.all([
      tools(who, 'list_posts', { composeId: post.composeId ?? post.id, all: true }),
      post.status === 'failed' || post.status === 'published'
        ? tools(who, 'get_account_health', {})
        : undefined,
      post.targets.some((t) => t.status === 'published')
        ? tools(who, 'get_post_analytics', { id })
        : undefined,
      approvalReview(app, { workspaceId: who.workspace.id }, id),
    ])
    const lost = new Set(
      (health?.connections ?? [])
        .filter((c) => c.needsReconnect || c.expired)
        .map((c) => `${c.platform}:${c.profileId}`),
    )
    const needsReconnect: NeedsReconnect = (t) => lost.has(`${t.platform}:${t.profileId}`)
    // In the order they were made (ids are time-ordered), the compose's first profile first.
    const siblings =
      compose.posts.length > 0 ? [...compose.posts].sort((a, b) => (a.id < b.id ? -1 : 1)) : [post]
    return sendHtml(
      reply,
      status,
      postPage(app, who, { post, compose: siblings, needsReconnect }, message, analytics, review),
    )
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
