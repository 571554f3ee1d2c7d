import { type Network, networkLabels, networks } from './networks.js'
import { tiktokPrivacyLabels } from './tiktok-rules.js'

/**
 * What preflight found, as the person composing reads it. preflight_post answers its blockers and warnings
 * for API callers: each may start with the request field it is about (`youtube.title: …`,
 * `targetAccounts[].thread: …`) and names networks and fields as the API spells them (`twitter @acme`,
 * `tiktok.privacyLevel SELF_ONLY`). Compose and the assistant's compose view place each finding beside its
 * field already; this says it with the networks' names and the fields' words instead.
 *
 * Pure text rules, shared by the dashboard (server-rendered) and the MCP views (bundled for the browser).
 */

/** The request fields findings name, as the person knows them from Compose. */
const FIELD_WORDS: Record<string, string> = {
  'youtube.title': 'a YouTube title',
  'youtube.description': 'the YouTube description',
  'tiktok.privacyLevel': 'who can watch',
  'pinterest.coverImageUrl': 'a cover image',
  'pinterest.title': 'the pin title',
  'pinterest.link': 'the pin link',
  'mastodon.contentWarning': 'the content warning',
  'mastodon.language': 'the language',
  mediaAltTexts: 'the alt text',
  mediaUrls: 'the media',
  targetAccounts: 'the profiles',
  platformContent: 'the copy for a network',
  platforms: 'the networks',
  firstComment: 'the first comment',
  firstCommentVariants: 'the first comment',
  threadVariants: 'the thread',
  scheduleDate: 'the date',
  scheduleTime: 'the time',
  publishImmediately: 'Publish now',
  profileId: 'a profile',
}

const NETWORK_ID = networks.join('|')

/** A field path leading a finding, before the sentence: `googlebusiness.event.title: `, `thread: `. */
const LEADING_PATH = /^[a-zA-Z]+(?:\[\d*\])?(?:\.[a-zA-Z]+(?:\[\d*\])?)*: (?=\S)/

/** A request field named inside a sentence: a network's (`youtube.title`) or the request's own (`mediaAltTexts`). */
const FIELD_PATH = new RegExp(
  // Not inside a handle, an address or a file name: `@lemonCake`, `youtube.com`, `/coverImage.jpg`.
  `(?<![@\\w./:-])(?:(?:${NETWORK_ID})(?:\\.[a-zA-Z]+)+|[a-z]+(?:[A-Z][a-z]+)+)\\b(?![./@-]\\w)(?:\\[\\])?`,
  'g',
)

/** camelCase and dots as words: `event.startDate` → "event start date", `callToAction.url` → "call to action URL". */
const spelledOut = (path: string) =>
  path
    .replace(/\[\]$/, '')
    .split('.')
    .flatMap((part) => part.split(/(?=[A-Z])/))
    .map((word) => (word.toLowerCase() === 'url' ? 'URL' : word.toLowerCase()))
    .join(' ')

function fieldInWords(path: string): string {
  const bare = path.replace(/\[\]$/, '')
  const known = FIELD_WORDS[bare]
  if (known) return known
  const [head, ...rest] = bare.split('.')
  const label = networkLabels[head as Network]
  if (label && rest.length > 0) return `the ${label} ${spelledOut(rest.join('.'))}`
  return spelledOut(bare)
}

/** A network's id where a sentence names it: before a handle, after "; ", or in a list of networks. */
const NETWORK_NAMED = new RegExp(
  `\\b(${NETWORK_ID})\\b(?= @)|(?<=; )(${NETWORK_ID})\\b(?! @)|(?<=\\(only [a-z, ]*)\\b(${NETWORK_ID})\\b`,
  'g',
)
/** A network's id opening a clause ("linkedin takes no threads"), where "threads" is only the network before a verb. */
const NETWORK_SUBJECT = new RegExp(
  `(?<=^|: )(${NETWORK_ID})\\b(?= (?:takes|allows|requires|needs|does|refuses|accepts|shows|counts|answers)\\b)`,
  'g',
)

const labelOf = (id: string) => networkLabels[id as Network] ?? id

/** TikTok's privacy levels and other upper-case codes, in the words Compose shows. */
const CODE = /\b[A-Z]{2,}(?:_[A-Z]+)+\b/g
const codeInWords = (code: string) =>
  tiktokPrivacyLabels[code as keyof typeof tiktokPrivacyLabels]
    ? `“${tiktokPrivacyLabels[code as keyof typeof tiktokPrivacyLabels]}”`
    : code.toLowerCase().replace(/_/g, ' ')

/** Findings that name only the request's fields, said whole. */
const WHOLE: Record<string, string> = {
  'Name at least one profile in targetAccounts or one network in platforms': 'Choose at least one profile',
}

/** A finding without the API's spelling of fields, networks and codes; its sense unchanged. */
export function findingInWords(finding: string): string {
  const whole = WHOLE[finding]
  if (whole) return whole
  return finding
    .replace(LEADING_PATH, '')
    .replace(NETWORK_NAMED, (id) => labelOf(id))
    .replace(NETWORK_SUBJECT, (id) => labelOf(id))
    .replace(FIELD_PATH, fieldInWords)
    .replace(CODE, codeInWords)
}
