import { looksLikeVideoUrl, urlExtension } from '../../core/media-url.js'
import { buildDescription, buildTags, buildTitle } from '../../core/youtube-rules.js'
import { PublishFailure, type YouTubeDetails } from '../adapter.js'
import { YOUTUBE_WEB_URL, type YouTubeSettings } from './auth.js'

export {
  buildDescription,
  buildTags,
  buildTitle,
  hashtags,
  isShortEligible,
  tagListLength,
} from '../../core/youtube-rules.js'
/**
 * One definition of each rule for the whole service: which URL is a video is the media pipeline's, the
 * title, description, tags and Shorts rules are core's (preflight and get_post read them too).
 */
export { looksLikeVideoUrl }

/** Spec §8: the largest file Herald uploads to YouTube. */
export const VIDEO_MAX_BYTES = 256 * 1024 * 1024
/** "People & Blogs", the fixed category of spec §1 rule 7. */
export const CATEGORY_PEOPLE_AND_BLOGS = '22'

/** Content types of the video extensions (the ones Herald can probe), keyed as `urlExtension` returns them. */
const VIDEO_CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/x-m4v',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
}

export const MEDIA_REQUIRED_MESSAGE = 'YouTube Shorts needs a video'

/** The spec §7 `mediaRequired` failure. */
export function mediaRequired(): PublishFailure {
  return new PublishFailure('invalid_content', MEDIA_REQUIRED_MESSAGE, { code: 'mediaRequired' })
}

/**
 * Spec §1 rule 1 as preflight and the adapter both apply it, before any transfer: a YouTube target needs
 * exactly one attachment and it must look like a video. Returns the failure to report, or null when the
 * attachments are fine. Several attachments are refused too (YouTube takes one video per upload and
 * silently dropping the others would surprise the author).
 */
export function youtubeMediaProblem(mediaUrls: readonly string[]): PublishFailure | null {
  if (mediaUrls.length === 0) return mediaRequired()
  if (mediaUrls.length > 1)
    return new PublishFailure('invalid_content', 'YouTube takes exactly one video per post', {
      code: 'tooManyMedia',
    })
  return looksLikeVideoUrl(mediaUrls[0]!) ? null : mediaRequired()
}

/**
 * The MIME type sent as `X-Upload-Content-Type` and on the upload (spec §1 rule 2): the type the media
 * response declared when it is a video type, else the type of the URL's extension, else
 * `application/octet-stream` (which videos.insert also accepts).
 */
export function videoContentType(url: string, responseType: string | undefined): string {
  const declared = responseType?.split(';')[0]?.trim().toLowerCase()
  if (declared?.startsWith('video/')) return declared
  return VIDEO_CONTENT_TYPES[urlExtension(url)] ?? 'application/octet-stream'
}

/** The `snippet` and `status` parts of the videos.insert body (spec §1 rules 4-7). */
export interface VideoInsertBody {
  snippet: { title: string; description: string; tags?: string[]; categoryId: string }
  status: { privacyStatus: 'public' | 'unlisted' | 'private'; selfDeclaredMadeForKids: boolean }
}

/**
 * The metadata sent when the upload session opens. Throws the spec §7 `invalidTitle` failure when no title
 * can be derived (the copy and the explicit title are empty once angle brackets are stripped).
 */
export function buildVideoInsertBody(content: string, youtube: YouTubeDetails | undefined): VideoInsertBody {
  const title = buildTitle(content, youtube?.title)
  if (!title) throw new PublishFailure('invalid_content', 'Video title rejected', { code: 'invalidTitle' })
  const tags = buildTags(content)
  return {
    snippet: {
      title,
      description: buildDescription(content, youtube?.description),
      ...(tags.length > 0 ? { tags } : {}),
      categoryId: CATEGORY_PEOPLE_AND_BLOGS,
    },
    status: {
      privacyStatus: youtube?.privacyStatus ?? 'public',
      selfDeclaredMadeForKids: false,
    },
  }
}

/** Spec §1 rule 9: the Shorts watch link of a video id. */
export function shortsUrl(settings: Pick<YouTubeSettings, 'webUrl'>, videoId: string): string {
  return `${settings.webUrl ?? YOUTUBE_WEB_URL}/shorts/${encodeURIComponent(videoId)}`
}
