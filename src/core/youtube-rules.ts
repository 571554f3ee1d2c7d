/**
 * The pure rules of spec §1 (youtube rules 1-7) and §8: which video is a Short, and how the title, description
 * and tags are derived from the copy. No I/O here: preflight, get_post, the adapter and the simulator read
 * the same rules.
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
export const SHORTS_HASHTAG = '#Shorts'

/** YouTube Shorts: at most 3 minutes (spec §8). */
export const SHORT_MAX_MS = 3 * 60 * 1000

/**
 * Spec §1 YouTube rule 3, pure: vertical or square, and at most 3 minutes. A video whose duration or size
 * the container does not state is not counted as a Short.
 */
export function isShortEligible(video: {
  width?: number | undefined
  height?: number | undefined
  durationMs?: number | undefined
}): boolean {
  const { width, height, durationMs } = video
  if (!width || !height || durationMs === undefined) return false
  return height >= width && durationMs <= SHORT_MAX_MS
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
