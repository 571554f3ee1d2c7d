import { knownPrivacyLevels, type TikTokCreator } from '../../core/tiktok-rules.js'
import { type Credentials, PublishFailure } from '../adapter.js'
import { tiktokCall } from './api.js'
import type { TikTokContext } from './settings.js'

/**
 * `POST /v2/post/publish/creator_info/query/` (reference A.4.1), asked before every post: the nickname to
 * show, the privacy levels this creator may choose, the interaction switches turned off in the app, and the
 * longest video they may post. TikTok answers HTTP 200 with `spam_risk_too_many_posts`,
 * `spam_risk_user_banned_from_posting` or `reached_active_user_cap` in the envelope when the creator
 * cannot post now: those come back as the failure to record, before anything is uploaded.
 */
export async function readCreator(
  ctx: TikTokContext,
  credentials: Credentials,
  signal?: AbortSignal,
): Promise<TikTokCreator> {
  const { data } = await tiktokCall(ctx, {
    method: 'POST',
    path: '/v2/post/publish/creator_info/query/',
    body: {},
    token: credentials.accessToken,
    what: 'the creator info',
    signal,
  })
  return creatorOf(data)
}

/** TikTok's creator info as Herald's {@link TikTokCreator}. */
export function creatorOf(data: Record<string, unknown>): TikTokCreator {
  const levels = knownPrivacyLevels(data.privacy_level_options)
  if (levels.length === 0)
    throw new PublishFailure('transient', 'TikTok answered the creator info without any privacy level')
  const max = Number(data.max_video_post_duration_sec)
  return {
    nickname: typeof data.creator_nickname === 'string' ? data.creator_nickname : '',
    username: typeof data.creator_username === 'string' ? data.creator_username : '',
    ...(typeof data.creator_avatar_url === 'string' ? { avatarUrl: data.creator_avatar_url } : {}),
    privacyLevels: levels,
    commentsOff: data.comment_disabled === true,
    duetOff: data.duet_disabled === true,
    stitchOff: data.stitch_disabled === true,
    maxVideoSeconds: Number.isFinite(max) && max > 0 ? max : 600,
  }
}
