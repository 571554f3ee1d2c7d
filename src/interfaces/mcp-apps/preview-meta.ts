import { looksLikeVideo } from '../../core/network-rules.js'
import { type ConnectionInfo, resolveCopy } from '../../core/post-plan.js'
import { resolveYouTubeDetails } from '../../core/youtube-details.js'
import type { AppContext } from '../../modules/app-context.js'
import type { PostView } from '../../modules/publishing/schemas.js'
import { previewOf } from '../dashboard/approval-views.js'
import { type PreviewTarget, previewHtml } from '../dashboard/compose-previews.js'

/**
 * The compose view's previews, drawn on the server by the dashboard's own renderer (Compose and the approval
 * review show the same cards) and handed to the view in the result's `_meta`: the renderer reads Herald's
 * bundled icons from disk, so it cannot run inside the frame, and one renderer for both keeps them alike.
 */
export const PREVIEW_META_KEY = 'herald/previewHtml'

interface DraftArgs {
  content?: unknown
  variants?: unknown
  mediaUrl?: unknown
  mediaUrls?: unknown
}

interface ResolvedTarget {
  platform: ConnectionInfo['platform']
  profileId: string
  username: string
}

/** A preflight's previews: each resolved profile with the copy it would get, from the call's arguments. */
function draftPreview(app: AppContext, args: DraftArgs, targets: ResolvedTarget[]): PreviewTarget[] {
  const urls = Array.isArray(args.mediaUrls)
    ? args.mediaUrls.filter((u): u is string => typeof u === 'string')
    : typeof args.mediaUrl === 'string'
      ? [args.mediaUrl]
      : []
  const media = urls.map((url) => ({
    url,
    video: looksLikeVideo(url),
    ...(app.media.isHostedUrl(url) ? { src: new URL(url).pathname } : {}),
  }))
  const variants = (typeof args.variants === 'object' && args.variants ? args.variants : {}) as Record<
    string,
    string
  >
  const content = typeof args.content === 'string' ? args.content : ''
  return targets.map((t) => {
    const connection: ConnectionInfo = { id: '', status: 'active', ...t }
    const copy = resolveCopy(connection, undefined, variants, content)
    return {
      platform: t.platform,
      username: t.username,
      copy,
      media,
      youtube: t.platform === 'youtube' ? resolveYouTubeDetails(copy, undefined) : null,
    }
  })
}

/**
 * The previews' HTML for a preflight_post or create_post answer, its Herald paths made absolute (the frame
 * is on the host's origin, so `/media/...` would ask the host); undefined for any other answer.
 */
export function previewMeta(
  app: AppContext,
  toolName: string,
  args: Record<string, unknown>,
  result: unknown,
): Record<string, unknown> | undefined {
  const answer = result as { resolvedTargets?: ResolvedTarget[]; posts?: PostView[] }
  let targets: PreviewTarget[] | undefined
  if (toolName === 'preflight_post' && Array.isArray(answer.resolvedTargets))
    targets = draftPreview(app, args, answer.resolvedTargets)
  else if (toolName === 'create_post' && Array.isArray(answer.posts))
    targets = answer.posts.flatMap((post) => previewOf(app, post))
  if (!targets) return undefined
  // Only attribute values the renderer wrote start with `="/media/`: copy is escaped, so its quotes are &quot;.
  const html = previewHtml(targets).replaceAll('="/media/', `="${app.config.publicBaseUrl}/media/`)
  return { [PREVIEW_META_KEY]: html }
}
