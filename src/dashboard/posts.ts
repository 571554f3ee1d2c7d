import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { isNetwork } from '../domain/networks.js'
import { postStatuses } from '../domain/post-status.js'
import { httpStatusFor, toAppError } from '../errors.js'
import type { PostView } from '../posts/schemas.js'
import type { ToolRunner } from '../tools/runner.js'
import { runAs } from './caller.js'
import { csrfField, escapeHtml, networkLabels, page, problemPage, sendHtml } from './html.js'
import { csrfMatches, redirectToLogin, refuseCsrf, type SignedIn, signedIn } from './request.js'

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
}

function queuePage(who: SignedIn, result: ListResult, status: string) {
  const filters = ['all', ...postStatuses]
    .map((s) => {
      const text = `${s} (${result.counts[s] ?? 0})`
      return s === status
        ? `<strong aria-current="page">${escapeHtml(text)}</strong>`
        : `<a href="/posts?status=${s}">${escapeHtml(text)}</a>`
    })
    .join(' · ')
  const rows = result.posts
    .map(
      (
        p,
      ) => `<tr><td><a href="/posts/${escapeHtml(p.id)}">${escapeHtml(excerpt(p.content) || '(no text)')}</a></td>
<td>${escapeHtml(p.status)}</td><td>${escapeHtml(p.platforms.map(label).join(', '))}</td>
<td>${escapeHtml(`${p.scheduleDate} ${p.scheduleTime} ${p.timezone}`)}</td></tr>`,
    )
    .join('\n')
  const { page: current, totalPages } = result.pagination
  const link = (n: number, text: string) => `<a href="/posts?status=${status}&amp;page=${n}">${text}</a>`
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
<nav aria-label="Filter by status"><p>${filters}</p></nav>
${
  result.posts.length
    ? `<div class="scroll"><table><thead><tr><th scope="col">Post</th><th scope="col">Status</th><th scope="col">Networks</th><th scope="col">Slot</th></tr></thead><tbody>
${rows}</tbody></table></div><p>${pager}</p>`
    : '<p class="muted">No posts here yet. Create one with create_post over REST or MCP.</p>'
}`,
    { signedIn: { email: who.user.email, csrfToken: who.session.csrfToken } },
  )
}

/** The actions a post's state allows, each a CSRF-protected form that calls one tool. */
function actions(post: PostView, csrf: string) {
  const form = (action: string, text: string) =>
    `<form method="post" action="/posts/${escapeHtml(post.id)}/${action}" class="inline">${csrfField(csrf)}<button type="submit">${text}</button></form>`
  const failed = post.targets.some((t) => t.status === 'failed')
  const out: string[] = []
  if (post.status === 'scheduled' || post.status === 'draft') out.push(form('publish', 'Publish now'))
  if ((post.status === 'failed' || post.status === 'published') && failed)
    out.push(form('publish', 'Retry the failed profiles'))
  if (post.status === 'processing') out.push(form('reset', 'Reset stuck sending'))
  if (post.status === 'scheduled' || post.status === 'failed') out.push(form('draft', 'Move to drafts'))
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

function postPage(
  who: SignedIn,
  post: PostView,
  message?: { notice?: string; problem?: string },
  analytics?: PostAnalytics,
) {
  const rows = post.targets
    .map(
      (
        t,
      ) => `<tr><td>${escapeHtml(label(t.platform))}</td><td>@${escapeHtml(t.username.replace(/^@+/, ''))}</td>
<td>${escapeHtml(t.status)}</td>
<td>${t.url ? `<a href="${escapeHtml(t.url)}" rel="noopener noreferrer">${escapeHtml(t.url)}</a>` : ''}</td>
<td>${escapeHtml([t.error, t.uploadError].filter(Boolean).join(' · '))}</td></tr>`,
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
<p><strong>${escapeHtml(post.status)}</strong> · slot ${escapeHtml(`${post.scheduleDate} ${post.scheduleTime} ${post.timezone}`)} · ${post.attempts} attempt${post.attempts === 1 ? '' : 's'}</p>
<blockquote>${escapeHtml(post.content)}</blockquote>
${post.mediaUrls.length ? `<p>Media: ${post.mediaUrls.map((u) => escapeHtml(u)).join(', ')}</p>` : ''}
${post.lastError ? `<p class="muted">Last error: ${escapeHtml(post.lastError)}</p>` : ''}
<h2>Delivery per profile</h2>
<div class="scroll"><table><thead><tr><th scope="col">Network</th><th scope="col">Profile</th><th scope="col">Status</th><th scope="col">Link</th><th scope="col">Error</th></tr></thead><tbody>
${rows}</tbody></table></div>
<p>${actions(post, who.session.csrfToken)}</p>
${analyticsSection(post, analytics, who.session.csrfToken)}`,
    { signedIn: { email: who.user.email, csrfToken: who.session.csrfToken } },
  )
}

export function registerPostRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const run = runAs(runner)

  scope.get<{ Querystring: { status?: string; page?: string } }>('/posts', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/posts')
    const status = ['all', ...postStatuses].includes(request.query.status ?? '')
      ? request.query.status!
      : 'all'
    const pageNumber = Math.max(1, Number.parseInt(request.query.page ?? '1', 10) || 1)
    const result = await run<ListResult>(who, 'list_posts', { status, page: pageNumber, limit: PAGE_SIZE })
    return sendHtml(reply, 200, queuePage(who, result, status))
  })

  const showPost = async (
    reply: Parameters<typeof sendHtml>[0],
    who: SignedIn,
    id: string,
    status: number,
    message?: { notice?: string; problem?: string },
  ) => {
    try {
      const post = await run<PostView>(who, 'get_post', { id })
      const analytics = post.targets.some((t) => t.status === 'published')
        ? await run<PostAnalytics>(who, 'get_post_analytics', { id })
        : undefined
      return sendHtml(reply, status, postPage(who, post, message, analytics))
    } catch (error) {
      const appError = toAppError(error)
      return sendHtml(
        reply,
        appError.code === 'not_found' ? 404 : 400,
        problemPage('Post not found', appError.message, {
          signedIn: { email: who.user.email, csrfToken: who.session.csrfToken },
          next: '<p><a href="/posts">All posts</a></p>',
        }),
      )
    }
  }

  scope.get<{ Params: { id: string } }>('/posts/:id', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, `/posts/${encodeURIComponent(request.params.id)}`)
    return showPost(reply, who, request.params.id, 200)
  })

  const postActions: Record<
    string,
    { tool: string; args: (id: string) => Record<string, unknown>; done: string }
  > = {
    publish: { tool: 'publish_post_now', args: (id) => ({ id }), done: 'Sending now.' },
    reset: {
      tool: 'reset_stuck_post',
      args: (id) => ({ id }),
      done: 'Released; retry the failed profiles when ready.',
    },
    draft: { tool: 'update_post', args: (id) => ({ id, status: 'draft' }), done: 'Moved to drafts.' },
    delete: { tool: 'delete_post', args: (id) => ({ id }), done: 'Deleted.' },
    analytics: {
      tool: 'get_post_analytics',
      args: (id) => ({ id, refresh: true }),
      done: 'Analytics read from the networks now.',
    },
  }

  scope.post<{ Params: { id: string; action: string } }>('/posts/:id/:action', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/posts')
    if (!csrfMatches(request, who.session.csrfToken)) return refuseCsrf(reply)
    const action = postActions[request.params.action]
    const { id } = request.params
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
