import type { AppContext } from '../../modules/app-context.js'
import { avatarPaths } from '../../modules/connections/avatars.js'
import { approvalReview } from '../../modules/publishing/approvals.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { ApprovalSection } from './approval-views.js'
import type { Tools } from './caller.js'
import { page, sendHtml } from './html.js'
import { sendPostNotFound } from './post-not-found.js'
import { type NeedsReconnect, postTitle, renderPostPage } from './post-page.js'
import { localMediaOf } from './post-parts.js'
import { account, type SignedIn } from './request.js'

/**
 * A post's page as the tools answer it: the post and every post of its compose with their histories
 * (get_post with history), the account health for the fix of a failed profile, the stored analytics once
 * published, and for a post waiting for approval what approving costs.
 */

type Reply = Parameters<typeof sendHtml>[0]

export interface ShowPostInput {
  reply: Reply
  who: SignedIn
  id: string
  status: number
  message?: { notice?: string | undefined; problem?: string | undefined } | undefined
}

/** The compose's posts in the order they were made (ids are time-ordered), each with its history. */
async function composeOf(tools: Tools, who: SignedIn, post: PostView): Promise<PostView[]> {
  const listed = await tools(who, 'list_posts', { composeId: post.composeId ?? post.id, all: true })
  const ids = listed.posts.map((p) => p.id).sort()
  if (!ids.includes(post.id)) return [post]
  return Promise.all(ids.map((id) => (id === post.id ? post : tools(who, 'get_post', { id, history: true }))))
}

/** Whether a profile's connection is lost, from the account health (read only when a fix may be offered). */
async function reconnectRule(tools: Tools, who: SignedIn, post: PostView): Promise<NeedsReconnect> {
  if (post.status !== 'failed' && post.status !== 'published') return () => false
  const health = await tools(who, 'get_account_health', {})
  const lost = new Set(
    health.connections
      .filter((c) => c.needsReconnect || c.expired)
      .map((c) => `${c.platform}:${c.profileId}`),
  )
  return (t) => lost.has(`${t.platform}:${t.profileId}`)
}

/** The post's page, or why it cannot be shown. */
export async function showPostPage(app: AppContext, tools: Tools, input: ShowPostInput) {
  const { reply, who, id } = input
  try {
    const post = await tools(who, 'get_post', { id, history: true })
    const [compose, needsReconnect, analytics, review, pictures] = await Promise.all([
      composeOf(tools, who, post),
      reconnectRule(tools, who, post),
      post.targets.some((t) => t.status === 'published')
        ? tools(who, 'get_post_analytics', { id })
        : undefined,
      approvalReview(app, { workspaceId: who.workspace.id }, id),
      avatarPaths(app.store.db, who.workspace.id),
    ])
    const csrf = who.session.csrfToken
    const approval = ApprovalSection({
      app,
      post,
      owner: who.workspace.role === 'owner',
      csrf,
      price: review?.price,
      immediate: review?.publishImmediately ?? false,
    })
    const body = renderPostPage({
      post,
      compose,
      needsReconnect,
      pictures,
      csrf,
      local: localMediaOf(app.config.publicBaseUrl),
      message: input.message,
      analytics,
      approval,
    })
    return sendHtml(reply, input.status, page(postTitle(post), body, { signedIn: account(who) }))
  } catch (error) {
    return sendPostNotFound(reply, who, error, { href: '/posts', label: 'All posts' })
  }
}
