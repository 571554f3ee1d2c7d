import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { avatarPaths } from '../../modules/connections/avatars.js'
import { waitsForApproval } from '../../modules/publishing/approval-store.js'
import { approvalReview, approvePost, rejectPost } from '../../modules/publishing/approvals.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolArgs, ToolResult } from '../tools/registry.js'
import type { ToolRunner } from '../tools/runner.js'
import { actorOf, toolsAs } from './caller.js'
import { onboardingSection, simulatedNotice } from './first-run/onboarding.js'
import { page, problemPage, sendHtml } from './html.js'
import { type EditForm, renderEditPage } from './post-edit-page.js'
import { localMediaOf } from './post-parts.js'
import { showPostPage } from './post-show.js'
import { registerPostExport } from './posts-export.js'
import { filtersOf, type ListFilters, postsListBody } from './posts-list.js'
import { account, field, type SignedIn, signedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { Messages } from './ui/parts.js'

/**
 * The queue and a post's delivery, read and changed through the same tools an agent calls (list_posts,
 * get_post, publish_post_now, reset_stuck_post, update_post, delete_post), as the signed-in person in
 * their workspace: no rule of states or prices is written here.
 */

/** Composes per page of the list. */
const PAGE_SIZE = 20

/** The edit page of a post in the dashboard's frame. */
function editPage(who: SignedIn, post: PostView, form: EditForm, waits: boolean, problem?: string) {
  const body = renderEditPage({ post, form, csrf: who.session.csrfToken, waits, problem })
  return page('Edit post', body, { signedIn: account(who) })
}

export function registerPostRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  const tools = toolsAs(runner)
  const showPost: ShowPost = (reply, who, id, status, message) =>
    showPostPage(app, tools, { reply, who, id, status, ...(message ? { message } : {}) })

  routes.get<{ Querystring: Record<string, string | undefined> }>('/posts', async (request, reply, who) => {
    const filters = filtersOf(request.query)
    const pageNumber = Math.max(1, Number.parseInt(request.query.page ?? '1', 10) || 1)
    const [list, profiles, pictures] = await Promise.all([
      tools(who, 'list_posts', { ...listArgs(filters), byCompose: true, page: pageNumber, limit: PAGE_SIZE }),
      tools(who, 'get_connected_accounts', {}),
      avatarPaths(app.store.db, who.workspace.id),
    ])
    const notice = simulatedNotice(request.query as Record<string, unknown>)
    const onboarding = (
      <>
        <Messages notice={notice} />
        {await onboardingSection(app, who)}
      </>
    )
    const body = postsListBody(who.workspace.name, list, {
      filters,
      profiles,
      local: localMediaOf(app.config.publicBaseUrl),
      onboarding,
      pictures,
    })
    return sendHtml(reply, 200, page('Posts', body, { signedIn: account(who) }))
  })

  routes.get<{ Params: { id: string } }>('/posts/:id', async (request, reply, who) => {
    return showPost(reply, who, request.params.id, 200)
  })

  registerPostExport(scope, app)
  registerEditRoutes(scope, app, tools, showPost)
  registerPostActions(scope, app, tools, showPost)
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

type Reply = Parameters<typeof sendHtml>[0]
type ShowPost = (
  reply: Reply,
  who: SignedIn,
  id: string,
  status: number,
  message?: { notice?: string; problem?: string },
) => Promise<unknown>

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
function changeOf(id: string, form: EditForm, post: PostView): Omit<ToolArgs<'update_post'>, 'workspaceId'> {
  const change: Omit<ToolArgs<'update_post'>, 'workspaceId'> = { id }
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
function registerEditRoutes(scope: FastifyInstance, app: AppContext, tools: Tools, showPost: ShowPost) {
  const routes = signedInRoutes(scope)
  routes.get<{ Params: { id: string } }>('/posts/:id/edit', async (request, reply, who) => {
    const { id } = request.params
    let post: PostView
    try {
      post = await tools(who, 'get_post', { id })
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

  routes.post<{ Params: { id: string } }>('/posts/:id/edit', async (request, reply, who) => {
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
      post = await tools(who, 'get_post', { id })
    } catch {
      return showPost(reply, who, id, 404)
    }
    const change = changeOf(id, form, post)
    const submit = field(request, 'intent') === 'submit'
    try {
      let message = 'Saved.'
      if (Object.keys(change).length > 1 || (submit && form.when === 'schedule')) {
        const updated = await tools(who, 'update_post', {
          ...change,
          ...(submit && form.when === 'schedule' ? { status: 'scheduled' } : {}),
        })
        message = updated.message
      }
      if (submit && form.when === 'now') message = (await tools(who, 'publish_post_now', { id })).message
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

type Tools = ReturnType<typeof toolsAs>

/** What publish_post_now did, in words: published, refused again, waiting for approval, or going out. */
function sentInWords(answer: ToolResult<'publish_post_now'>): string {
  if (answer.post.approval?.state === 'pending' && answer.credits.charged === 0)
    return 'Waiting for an owner’s approval: it goes out as soon as it is approved.'
  if (answer.post.status === 'published') return 'Published.'
  if (answer.post.status === 'failed') return 'Not published: the profile’s card says why.'
  return 'Sending now.'
}

/**
 * The tool each action on a post calls, typed by the tool's schemas, and the words that say it was done.
 * Retry is publish now for a failed profile: publish_post_now sends only what is not on the network.
 */
const postActions: Record<string, (tools: Tools, who: SignedIn, id: string) => Promise<string>> = {
  publish: async (tools, who, id) => sentInWords(await tools(who, 'publish_post_now', { id })),
  retry: async (tools, who, id) => sentInWords(await tools(who, 'publish_post_now', { id })),
  reset: async (tools, who, id) => {
    await tools(who, 'reset_stuck_post', { id })
    return 'Released: Herald checks the network before anything is sent again.'
  },
  draft: async (tools, who, id) => {
    await tools(who, 'update_post', { id, status: 'draft' })
    return 'Kept as a draft.'
  },
  delete: async (tools, who, id) => {
    await tools(who, 'delete_post', { id })
    return 'Deleted.'
  },
  analytics: async (tools, who, id) => {
    await tools(who, 'get_post_analytics', { id, refresh: true })
    return 'Analytics read from the networks now.'
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
function registerPostActions(scope: FastifyInstance, app: AppContext, tools: Tools, showPost: ShowPost) {
  const routes = signedInRoutes(scope)
  routes.post<{ Params: { id: string; action: string } }>(
    '/posts/:id/:action',
    async (request, reply, who) => {
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
      let done: string
      try {
        done = await action(tools, who, id)
      } catch (error) {
        // The tool's own words: a 409 says why the post's state does not allow it.
        const appError = toAppError(error)
        return showPost(reply, who, id, httpStatusFor(appError.code), { problem: appError.message })
      }
      if (request.params.action === 'delete') return reply.redirect('/posts', 303)
      return showPost(reply, who, id, 200, { notice: done })
    },
  )
}
