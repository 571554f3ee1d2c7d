import type { z } from 'zod'
import { createPost } from './create-post.js'
import { deletePost } from './delete-post.js'
import { generateImage } from './generate-image.js'
import { getAccountHealth } from './get-account-health.js'
import { getConnectedAccounts } from './get-connected-accounts.js'
import { getPost } from './get-post.js'
import { getPostAnalytics } from './get-post-analytics.js'
import { getProfileAnalytics } from './get-profile-analytics.js'
import { getUserInfo } from './get-user-info.js'
import { listPosts } from './list-posts.js'
import { listWorkspaces } from './list-workspaces.js'
import { multicall } from './multicall.js'
import { preflightPost } from './preflight-post.js'
import { publishPostNow } from './publish-post-now.js'
import { reschedulePost } from './reschedule-post.js'
import { resetStuckPost } from './reset-stuck-post.js'
import type { AnyTool } from './tool.js'
import { updatePost } from './update-post.js'

/** Every tool Herald serves, in the order the docs list them. A tool joins here when its handler is real. */
export const tools: readonly AnyTool[] = [
  preflightPost,
  createPost,
  publishPostNow,
  listPosts,
  getPost,
  getPostAnalytics,
  getProfileAnalytics,
  updatePost,
  reschedulePost,
  resetStuckPost,
  deletePost,
  getConnectedAccounts,
  getAccountHealth,
  generateImage,
  listWorkspaces,
  getUserInfo,
  multicall,
]

/** The tools by name, with each one's own input and output types (for a caller that wants them checked). */
export const toolsByName = {
  preflight_post: preflightPost,
  create_post: createPost,
  publish_post_now: publishPostNow,
  list_posts: listPosts,
  get_post: getPost,
  get_post_analytics: getPostAnalytics,
  get_profile_analytics: getProfileAnalytics,
  update_post: updatePost,
  reschedule_post: reschedulePost,
  reset_stuck_post: resetStuckPost,
  delete_post: deletePost,
  get_connected_accounts: getConnectedAccounts,
  get_account_health: getAccountHealth,
  generate_image: generateImage,
  list_workspaces: listWorkspaces,
  get_user_info: getUserInfo,
  multicall,
} as const

export type ToolName = keyof typeof toolsByName
/** What a caller may send to a tool: its input schema before defaults apply. */
export type ToolArgs<N extends ToolName> = z.input<(typeof toolsByName)[N]['input']>
/** What a tool answers: what its handler returns, as its output schema describes it. */
export type ToolResult<N extends ToolName> = z.input<(typeof toolsByName)[N]['output']>
