import { createRequire } from 'node:module'

/**
 * What X does to a post's text before anyone reads it back, so that a lookup comparing copy can fail the
 * way it fails against X:
 *
 * - the text is stored NFC-normalised;
 * - every link twitter-text recognises (with or without a scheme) becomes a `https://t.co/…` link, with an
 *   `entities.urls` entry giving `expanded_url` (a scheme added when the author left it out) and a shortened
 *   `display_url`;
 * - `&`, `<` and `>` come back as `&amp;`, `&lt;` and `&gt;`;
 * - a post with media ends with one more t.co link, to the media, whose entity carries its `media_key`;
 * - a post over 280 weighted characters (premium) has `text` cut at about 275 followed by `…`, and the
 *   whole text (rendered the same way) in `note_post` (`note_tweet` in the older field names).
 *
 * Entity offsets count code points of the rendered text, as X's do.
 */

const twitterText = createRequire(import.meta.url)('twitter-text') as {
  parseTweet(text: string): { weightedLength: number }
  extractUrlsWithIndices(text: string): { url: string; indices: [number, number] }[]
}

export interface UrlEntity {
  start: number
  end: number
  url: string
  expanded_url: string
  display_url: string
  media_key?: string
}

export interface RenderedText {
  text: string
  urls: UrlEntity[]
}

export interface RenderedPost extends RenderedText {
  /** The whole text of a post over 280 weighted characters. */
  note?: RenderedText
}

/** X's standard limit: longer posts (premium) are cut in `text` and carried whole in the note field. */
const STANDARD_LIMIT = 280
/** Where a long post's `text` is cut, leaving room for the ellipsis. */
const CUT_AT = 275

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const codePoints = (text: string) => [...text].length

function displayUrl(expanded: string): string {
  const bare = expanded.replace(/^https?:\/\//i, '')
  return bare.length > 26 ? `${bare.slice(0, 26)}…` : bare
}

/** The text with its links made t.co links and `& < >` escaped, and the link entities. */
function renderLinks(text: string, newTco: () => string): RenderedText {
  let out = ''
  let last = 0
  const urls: UrlEntity[] = []
  for (const { url, indices } of twitterText.extractUrlsWithIndices(text)) {
    out += escapeHtml(text.slice(last, indices[0]))
    const tco = newTco()
    const start = codePoints(out)
    out += tco
    const expanded = /^https?:\/\//i.test(url) ? url : `http://${url}`
    urls.push({
      start,
      end: start + codePoints(tco),
      url: tco,
      expanded_url: expanded,
      display_url: displayUrl(expanded),
    })
    last = indices[1]
  }
  return { text: out + escapeHtml(text.slice(last)), urls }
}

/** The longest start of `text` within {@link CUT_AT} weighted characters that cuts no link in two. */
function cutLongText(text: string): string {
  const links = twitterText.extractUrlsWithIndices(text)
  const chars = [...text]
  let lo = 0
  let hi = chars.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (twitterText.parseTweet(chars.slice(0, mid).join('')).weightedLength <= CUT_AT) lo = mid
    else hi = mid - 1
  }
  let cut = chars.slice(0, lo).join('')
  const crossing = links.find(({ indices }) => indices[0] < cut.length && indices[1] > cut.length)
  if (crossing) cut = cut.slice(0, crossing.indices[0])
  return cut.trimEnd()
}

export function renderPost(input: {
  text: string
  /** The attached media's keys, in order; a post with media ends with a link to the first. */
  mediaKeys: string[]
  mediaPath: string
  newTco(): string
}): RenderedPost {
  const text = input.text.normalize('NFC')
  const withMedia = (rendered: RenderedText, mediaTco: string | undefined): RenderedText => {
    if (!mediaTco) return rendered
    const prefix = rendered.text === '' ? '' : `${rendered.text} `
    const start = codePoints(prefix)
    return {
      text: prefix + mediaTco,
      urls: [
        ...rendered.urls,
        {
          start,
          end: start + codePoints(mediaTco),
          url: mediaTco,
          expanded_url: `https://x.com/${input.mediaPath}`,
          display_url: `pic.x.com/${mediaTco.slice('https://t.co/'.length)}`,
          media_key: input.mediaKeys[0],
        },
      ],
    }
  }
  const mediaTco = input.mediaKeys.length > 0 ? input.newTco() : undefined
  const full = renderLinks(text, input.newTco)
  if (twitterText.parseTweet(text).weightedLength <= STANDARD_LIMIT) return withMedia(full, mediaTco)
  const shown = renderLinks(cutLongText(text), input.newTco)
  return {
    ...withMedia({ text: `${shown.text}…`, urls: shown.urls }, mediaTco),
    note: full,
  }
}

const BASE62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** The n-th t.co link of a simulator: ten base-62 characters, as X's are. */
export function tcoLink(n: number): string {
  let id = ''
  let rest = n * 48_271 + 916_132_832
  for (let i = 0; i < 10; i++) {
    id = BASE62[rest % 62] + id
    rest = Math.floor(rest / 62)
  }
  return `https://t.co/${id}`
}
