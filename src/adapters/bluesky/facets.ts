/**
 * Bluesky rich text, as pure functions: the server does not detect links, mentions or hashtags, so the
 * client sends them as facets over UTF-8 byte ranges (`app.bsky.richtext.facet`, byteStart inclusive,
 * byteEnd exclusive). Nothing here does I/O; mentions are resolved to DIDs by the caller.
 */

/** Lexicon limits of `app.bsky.feed.post#text`. */
export const POST_MAX_GRAPHEMES = 300
export const POST_MAX_BYTES = 3000
/** Lexicon limits of `app.bsky.richtext.facet#tag`. */
export const TAG_MAX_GRAPHEMES = 64
export const TAG_MAX_BYTES = 640

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string }

export interface Facet {
  index: { byteStart: number; byteEnd: number }
  features: FacetFeature[]
}

/** A rich-text span found in the copy, before mentions are resolved. Offsets are UTF-8 bytes. */
export type Detected =
  | { kind: 'link'; byteStart: number; byteEnd: number; uri: string }
  | { kind: 'mention'; byteStart: number; byteEnd: number; handle: string }
  | { kind: 'tag'; byteStart: number; byteEnd: number; tag: string }

const encoder = new TextEncoder()
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

export function utf8Length(text: string): number {
  return encoder.encode(text).length
}

/** User-perceived characters, as the lexicon's `maxGraphemes` counts them. */
export function graphemeLength(text: string): number {
  let count = 0
  for (const _ of graphemes.segment(text)) count++
  return count
}

/** Why this copy cannot be a Bluesky post, or undefined when it fits the lexicon limits. */
export function textLimitProblem(text: string): string | undefined {
  const count = graphemeLength(text)
  if (count > POST_MAX_GRAPHEMES) {
    return `Bluesky posts hold at most ${POST_MAX_GRAPHEMES} characters; this copy has ${count}`
  }
  const bytes = utf8Length(text)
  if (bytes > POST_MAX_BYTES) {
    return `Bluesky posts hold at most ${POST_MAX_BYTES} bytes of UTF-8; this copy has ${bytes}`
  }
  return undefined
}

interface Span {
  start: number
  end: number
}

// A link starts with an http(s) scheme that is not glued to a preceding ASCII word ("xhttps://"), but
// may follow CJK text directly, where no space is written. It runs to whitespace, a quote or angle
// bracket, or CJK/full-width punctuation that never occurs unescaped in a URL.
const LINK =
  /(?<![A-Za-z0-9_])https?:\/\/[^\s<>"\u3000-\u303f\uff01\uff08\uff09\uff0c\uff0e\uff1a\uff1b\uff1f]+/giu
// Punctuation that ends a sentence rather than a URL: "see https://example.com." links example.com.
const LINK_TRAILING = /[.,;:!?'’”»…]$/u

// "@handle" after a start, whitespace or an opening bracket; never inside an e-mail address or a path.
const MENTION = /(?<=^|[\s([{"'“‘「（])@([A-Za-z0-9][A-Za-z0-9.-]*)/gu
const HANDLE_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i

// "#tag" after a start or whitespace (so "https://x.example/#frag" is never a tag), up to the next
// whitespace or zero-width character; full-width ＃ counts too.
const TAG = /(?<=^|[\s(（])[#＃]((?:(?!\s|\u00ad|\u2060|\u200a|\u200b|\u200c|\u200d|\u20e2).)+)/gu
const TAG_TRAILING = /\p{P}+$/u

/** True for a syntactically valid atproto handle (a domain name whose last label starts with a letter). */
export function isValidHandle(handle: string): boolean {
  if (handle.length > 253) return false
  const labels = handle.split('.')
  if (labels.length < 2) return false
  if (!labels.every((label) => HANDLE_LABEL.test(label))) return false
  return /^[a-z]/i.test(labels[labels.length - 1]!)
}

function count(text: string, char: string): number {
  let n = 0
  for (const c of text) if (c === char) n++
  return n
}

/** Shortens a matched URL until it no longer ends in sentence punctuation or an unbalanced bracket. */
function trimLink(candidate: string): string {
  let url = candidate
  for (;;) {
    if (LINK_TRAILING.test(url)) {
      url = url.slice(0, -1)
      continue
    }
    const last = url.at(-1)
    if (last === ')' && count(url, ')') > count(url, '(')) {
      url = url.slice(0, -1)
      continue
    }
    if (last === ']' && count(url, ']') > count(url, '[')) {
      url = url.slice(0, -1)
      continue
    }
    return url
  }
}

function isUsableUrl(candidate: string): boolean {
  try {
    const url = new URL(candidate)
    return url.hostname.length > 0 && (url.hostname.includes('.') || url.hostname === 'localhost')
  } catch {
    return false
  }
}

function findLinks(text: string): Array<Span & { uri: string }> {
  const found: Array<Span & { uri: string }> = []
  for (const match of text.matchAll(LINK)) {
    const uri = trimLink(match[0])
    if (!isUsableUrl(uri)) continue
    found.push({ start: match.index, end: match.index + uri.length, uri })
  }
  return found
}

function findMentions(text: string): Array<Span & { handle: string }> {
  const found: Array<Span & { handle: string }> = []
  for (const match of text.matchAll(MENTION)) {
    // A sentence may end right after the handle: "thanks @alice.example." mentions alice.example.
    const handle = match[1]!.replace(/[.-]+$/, '')
    if (!isValidHandle(handle)) continue
    found.push({ start: match.index, end: match.index + 1 + handle.length, handle: handle.toLowerCase() })
  }
  return found
}

function findTags(text: string): Array<Span & { tag: string }> {
  const found: Array<Span & { tag: string }> = []
  for (const match of text.matchAll(TAG)) {
    const body = match[1]!
    // "#️⃣" is the keycap emoji, not a tag.
    if (body.startsWith('\ufe0f')) continue
    const tag = body.replace(TAG_TRAILING, '')
    // A tag needs something besides digits and punctuation ("#1" is a number, not a tag).
    if (!/[^\d\p{P}]/u.test(tag)) continue
    if (graphemeLength(tag) > TAG_MAX_GRAPHEMES || utf8Length(tag) > TAG_MAX_BYTES) continue
    found.push({ start: match.index, end: match.index + 1 + tag.length, tag })
  }
  return found
}

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end

/**
 * Finds links, @mentions and #tags in `text`, sorted and never overlapping (a mention or tag inside a
 * link belongs to the link). Mention handles are lower-cased, tags keep their case and lose the `#`.
 */
export function detectRichText(text: string): Detected[] {
  const links = findLinks(text)
  const others = [
    ...findMentions(text).map((m) => ({ ...m, kind: 'mention' as const })),
    ...findTags(text).map((t) => ({ ...t, kind: 'tag' as const })),
  ].filter((span) => !links.some((link) => overlaps(link, span)))
  const spans = [...links.map((l) => ({ ...l, kind: 'link' as const })), ...others].sort(
    (a, b) => a.start - b.start,
  )

  // UTF-16 index → UTF-8 byte offset, walking the text once.
  const toBytes = (() => {
    let index = 0
    let bytes = 0
    return (target: number) => {
      bytes += utf8Length(text.slice(index, target))
      index = target
      return bytes
    }
  })()

  const detected: Detected[] = []
  for (const span of spans) {
    const byteStart = toBytes(span.start)
    const byteEnd = toBytes(span.end)
    if (span.kind === 'link') detected.push({ kind: 'link', byteStart, byteEnd, uri: span.uri })
    else if (span.kind === 'mention')
      detected.push({ kind: 'mention', byteStart, byteEnd, handle: span.handle })
    else detected.push({ kind: 'tag', byteStart, byteEnd, tag: span.tag })
  }
  return detected
}

/** The handles `detected` mentions, each once, for resolution to DIDs. */
export function mentionedHandles(detected: readonly Detected[]): string[] {
  return [...new Set(detected.flatMap((d) => (d.kind === 'mention' ? [d.handle] : [])))]
}

/**
 * Turns detected spans into lexicon facets. A mention whose handle is missing from `didsByHandle`
 * (it did not resolve) is left as plain text.
 */
export function buildFacets(
  detected: readonly Detected[],
  didsByHandle: ReadonlyMap<string, string>,
): Facet[] {
  const facets: Facet[] = []
  for (const d of detected) {
    const index = { byteStart: d.byteStart, byteEnd: d.byteEnd }
    if (d.kind === 'link') {
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#link', uri: d.uri }] })
    } else if (d.kind === 'tag') {
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: d.tag }] })
    } else {
      const did = didsByHandle.get(d.handle)
      if (did) facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] })
    }
  }
  return facets
}
