import twitterText from 'twitter-text'

/**
 * Copy as X gives it back, made comparable with the copy Herald sent. X stores the text NFC-normalised,
 * rewrites every link to t.co (the original in `entities.urls[].expanded_url`, a scheme added when the
 * author left it out), escapes `& < >` as HTML entities, ends a post with media with a t.co link to the
 * media, and cuts a long post's `text` (the whole of it in `note_post`, `note_tweet` in older names).
 */

export interface UrlEntity {
  url?: string
  expanded_url?: string
  media_key?: string
}

export interface TimelinePost {
  id: string
  text: string
  created_at?: string
  entities?: { urls?: UrlEntity[] }
  note_post?: { text: string; entities?: { urls?: UrlEntity[] } }
  note_tweet?: { text: string; entities?: { urls?: UrlEntity[] } }
  attachments?: { media_keys?: string[] }
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
}

/** The text the author wrote, as far as X's answer tells it: whole, links expanded, entities decoded. */
export function writtenText(post: TimelinePost): string {
  const note = post.note_post ?? post.note_tweet
  let text = note?.text ?? post.text
  for (const entity of (note ? note.entities?.urls : post.entities?.urls) ?? []) {
    if (!entity.url) continue
    // The link X appends for the media is not part of what the author wrote.
    text = text.split(entity.url).join(entity.media_key ? '' : (entity.expanded_url ?? entity.url))
  }
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (match) => ENTITIES[match] ?? match)
}

/** A link as X may give it back: no scheme, host in lower case, no trailing slash. */
const canonicalLink = (url: string) => {
  const bare = url.replace(/^https?:\/\//i, '').replace(/\/$/, '')
  const slash = bare.indexOf('/')
  return slash < 0 ? bare.toLowerCase() : bare.slice(0, slash).toLowerCase() + bare.slice(slash)
}

/** One piece of comparable copy: a word run, or a link. */
export type CopyToken = { link: string } | { words: string }

/**
 * Copy as X compares it: NFC, links found the way X finds them and put in one canonical form, spacing
 * collapsed. Two copies compare equal when their tokens do.
 */
export function copyTokens(text: string): CopyToken[] {
  const nfc = text.normalize('NFC')
  const tokens: CopyToken[] = []
  const words = (part: string) => {
    const collapsed = part.replace(/\s+/g, ' ').trim()
    if (collapsed !== '') tokens.push({ words: collapsed })
  }
  let last = 0
  for (const { url, indices } of twitterText.extractUrlsWithIndices(nfc)) {
    words(nfc.slice(last, indices[0]))
    tokens.push({ link: canonicalLink(url) })
    last = indices[1]
  }
  words(nfc.slice(last))
  return tokens
}

export const tokensKey = (tokens: readonly CopyToken[]) =>
  tokens.map((token) => ('link' in token ? `<${token.link}>` : token.words)).join(' ')

/** True when the copy holds words besides its links: a copy of links alone may be anyone's. */
export const hasWords = (tokens: readonly CopyToken[]) => tokens.some((token) => 'words' in token)

/**
 * Whether X's post is the one Herald sent with `content`: the same tokens, allowing the links of media items
 * that failed to upload, which the publish appends on their own lines (spec rule 4).
 */
export function sameCopy(post: TimelinePost, content: string, mediaUrls: readonly string[]): boolean {
  const wanted = tokensKey(copyTokens(content))
  const written = writtenText(post)
  const seen = copyTokens(written)
  if (tokensKey(seen) === wanted) return true
  // A media URL X does not take for a link (an IP address, a host without a known TLD) stays plain text on
  // its own line, merged into the words before it: strip those lines as the publish appended them.
  for (let rest = written; ; ) {
    const url = mediaUrls.find((candidate) => rest.endsWith(`\n${candidate}`))
    if (!url) break
    rest = rest.slice(0, rest.length - url.length - 1)
    if (tokensKey(copyTokens(rest)) === wanted) return true
  }
  const appended = new Set(mediaUrls.map(canonicalLink))
  while (seen.length > 0) {
    const last = seen.at(-1)!
    if (!('link' in last) || !appended.has(last.link)) return false
    seen.pop()
    if (tokensKey(seen) === wanted) return true
  }
  return false
}
