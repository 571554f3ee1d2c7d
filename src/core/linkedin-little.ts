/**
 * LinkedIn's "little" text format (reference A.5): commentary is markup in which 15 characters are
 * reserved; each must be backslash-escaped to appear as itself, or LinkedIn silently cuts the post at it.
 * Herald keeps live what a person means live: `#hashtags` (HashtagElement), explicit mentions
 * `@[Name](urn:li:person:…)`, and URLs (left verbatim so LinkedIn links them; reference A.5 says an
 * escaped `\_` inside a URL may stop it linking, so Herald assumes, **verify**, that LinkedIn reads a
 * URL as one plain run and does not cut inside it).
 */

export const RESERVED_CHARACTERS = [
  '\\',
  '|',
  '{',
  '}',
  '@',
  '[',
  ']',
  '(',
  ')',
  '<',
  '>',
  '#',
  '*',
  '_',
  '~',
] as const

const RESERVED = /[\\|{}@[\]()<>#*_~]/g
/** Spans kept as they are: mentions, hashtags (not inside a word), URLs. */
const LIVE =
  /@\[[^\]\n]+\]\(urn:li:(?:person|organization):[^)\s]+\)|(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_]+|https?:\/\/[^\s<>]+[^\s<>.,;:!?'")\]]/gu

const escapePlain = (text: string) => text.replace(RESERVED, (c) => `\\${c}`)

/** The commentary to send for a copy. */
export function littleEscape(text: string): string {
  let out = ''
  let last = 0
  for (const match of text.matchAll(LIVE)) {
    out += escapePlain(text.slice(last, match.index)) + match[0]
    last = match.index + match[0].length
  }
  return out + escapePlain(text.slice(last))
}

/**
 * The text a reader sees for a commentary, as LinkedIn renders it: escapes resolved, live elements kept,
 * and everything from the first unescaped reserved character that starts no element cut off.
 */
export function littleVisible(commentary: string): { text: string; truncated: boolean } {
  let out = ''
  let i = 0
  while (i < commentary.length) {
    const c = commentary[i] as string
    if (c === '\\' && i + 1 < commentary.length && RESERVED_CHARACTERS.includes(commentary[i + 1] as '\\')) {
      out += commentary[i + 1]
      i += 2
      continue
    }
    const rest = commentary.slice(i)
    const live =
      /^(?:@\[[^\]\n]+\]\(urn:li:(?:person|organization):[^)\s]+\)|#[\p{L}\p{N}_]+|https?:\/\/[^\s<>]+[^\s<>.,;:!?'")\]])/u.exec(
        rest,
      )
    if (live && (c !== '#' || !/[\p{L}\p{N}_&#]/u.test(commentary[i - 1] ?? ' '))) {
      out += live[0]
      i += live[0].length
      continue
    }
    if (RESERVED_CHARACTERS.includes(c as '\\')) return { text: out, truncated: true }
    out += c
    i += 1
  }
  return { text: out, truncated: false }
}

/** Length as LinkedIn counts commentary against its 3,000 limit: UTF-16 code units of the visible text [3p]. */
export const linkedinLength = (text: string): number => text.length

export const LINKEDIN_TEXT_LIMIT = 3_000
