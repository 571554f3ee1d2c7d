import { looksLikeVideoUrl, urlExtension } from '../../core/media-url.js'
import { isShortEligible } from '../../modules/media/probe.js'
import { PublishFailure, type YouTubeDetails } from '../adapter.js'
import { YOUTUBE_WEB_URL, type YouTubeSettings } from './auth.js'

/** One definition of each rule for the whole service: the media pipeline's. */
export { isShortEligible, looksLikeVideoUrl }

/**
 * The pure rules of spec §1 (youtube rules 1-7) and §8: which attachment is a video, and how the title,
 * description and tags are derived from the copy. No I/O here; preflight and the adapter share them.
 *
 * Length units. YouTube does not say whether its "characters" are code points or UTF-16 units, so titles
 * and tags are measured in UTF-16 code units (never fewer than code points: a value within the limit in
 * these units is within it in either reading) and cut only between grapheme clusters, so an emoji or an
 * accented letter is never split. The description is capped at 5,000 UTF-8 bytes: the API's own limit
 * ("maximum length of 5000 bytes"), which is never more than the spec's 5,000 characters.
 */

export const TITLE_MAX = 100
export const DESCRIPTION_MAX_BYTES = 5000
export const TAGS_MAX = 500
/** Spec §8: the largest file Herald uploads to YouTube. */
export const VIDEO_MAX_BYTES = 256 * 1024 * 1024
/** "People & Blogs", the fixed category of spec §1 rule 7. */
export const CATEGORY_PEOPLE_AND_BLOGS = '22'
export const SHORTS_HASHTAG = '#Shorts'

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

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** The longest prefix of `text` whose `measure` is at most `max`, cut between grapheme clusters. */
function cutGraphemes(text: string, max: number, measure: (s: string) => number): string {
  if (measure(text) <= max) return text
  let out = ''
  let size = 0
  for (const { segment } of segmenter.segment(text)) {
    const next = measure(segment)
    if (size + next > max) break
    out += segment
    size += next
  }
  return out
}

const utf16Length = (s: string) => s.length
const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8')

const stripAngleBrackets = (text: string) => text.replace(/[<>]/g, '')

/**
 * Spec §1 rule 4: the explicit `youtube.title` when it has any text, else the first non-empty line of the
 * copy; angle brackets stripped (YouTube refuses them), line breaks folded into spaces, trimmed, and cut to
 * 100 characters. Returns '' when nothing is left: the caller refuses that as `invalidTitle`.
 */
export function buildTitle(content: string, explicit?: string): string {
  const clean = (text: string) =>
    cutGraphemes(stripAngleBrackets(text).replace(/\s+/g, ' ').trim(), TITLE_MAX, utf16Length).trim()
  const fromExplicit = explicit === undefined ? '' : clean(explicit)
  if (fromExplicit) return fromExplicit
  for (const line of content.split(/\r\n|\r|\n/)) {
    const title = clean(line)
    if (title) return title
  }
  return ''
}

/** True when the text already carries the #Shorts hashtag (any case, as a whole tag). */
export function hasShortsHashtag(text: string): boolean {
  return /(^|[^\p{L}\p{N}_])#shorts(?![\p{L}\p{N}_])/iu.test(text)
}

/**
 * Spec §1 rule 5: the explicit `youtube.description` when given, else the whole copy; angle brackets
 * stripped (the API refuses them with `invalidDescription`); capped at 5,000 UTF-8 bytes; `#Shorts`
 * appended on its own paragraph unless the (capped) text already has it, cutting the text further so the
 * result still fits.
 */
export function buildDescription(content: string, explicit?: string): string {
  const base = stripAngleBrackets(explicit ?? content).trim()
  const capped = cutGraphemes(base, DESCRIPTION_MAX_BYTES, utf8Length)
  if (hasShortsHashtag(capped)) return capped
  const suffix = capped ? `\n\n${SHORTS_HASHTAG}` : SHORTS_HASHTAG
  const room = DESCRIPTION_MAX_BYTES - utf8Length(suffix)
  const body = cutGraphemes(capped, room, utf8Length).trimEnd()
  return body ? `${body}\n\n${SHORTS_HASHTAG}` : SHORTS_HASHTAG
}

/** The hashtags of a text, without `#`, in order of first appearance, deduplicated case-insensitively. */
export function hashtags(text: string): string[] {
  const seen = new Set<string>()
  const tags: string[] = []
  // A hashtag starts the text or follows whitespace or an opening bracket, so `page#anchor` is not one.
  for (const match of text.matchAll(/(?:^|[\s([{])#([\p{L}\p{M}\p{N}_]+)/gu)) {
    const tag = match[1]!
    if (/^\d+$/.test(tag)) continue
    const key = tag.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    tags.push(tag)
  }
  return tags
}

/**
 * How YouTube counts a tag list against its 500-character ceiling: each tag's length, plus 2 for the
 * quotes YouTube puts around a tag that contains a space, plus one comma between consecutive tags.
 */
export function tagListLength(tags: readonly string[]): number {
  let total = Math.max(0, tags.length - 1)
  for (const tag of tags) total += utf16Length(tag) + (tag.includes(' ') ? 2 : 0)
  return total
}

/**
 * Spec §1 rule 6: the copy's hashtags become tags, kept in order of appearance; a tag that would take the
 * list over 500 characters (counted as {@link tagListLength} does) is left out, and later, shorter tags
 * may still fit.
 */
export function buildTags(content: string): string[] {
  const kept: string[] = []
  for (const tag of hashtags(content)) {
    if (tagListLength([...kept, tag]) <= TAGS_MAX) kept.push(tag)
  }
  return kept
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
