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
