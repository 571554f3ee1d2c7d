import { labelOf, type Network, networkLabels, networks } from './networks.js'
import { setAside } from './set-aside.js'
import { tiktokPrivacyLabels } from './tiktok-rules.js'

/**
 * What preflight found, as the person composing reads it. preflight_post answers its blockers and warnings
 * for API callers: each may start with the request field it is about (`youtube.title: …`,
 * `targetAccounts[].thread: …`) and names networks and fields as the API spells them (`twitter @acme`,
 * `tiktok.privacyLevel SELF_ONLY`). Compose, Import and the assistant's compose view say it with the
 * networks' names and the fields' words instead. Addresses, file names, handles and quoted text pass
 * through untouched.
 *
 * Pure text rules, shared by the dashboard (server-rendered) and the MCP views (bundled for the browser).
 */

/** The request fields findings name, as the person knows them from Compose. */
const FIELD_WORDS: Record<string, string> = {
  'youtube.title': 'a YouTube title',
  'youtube.description': 'the YouTube description',
  'tiktok.privacyLevel': 'the “Who can watch” setting',
  'pinterest.coverImageUrl': 'a cover image',
  'pinterest.title': 'the pin title',
  'pinterest.link': 'the pin link',
  'mastodon.contentWarning': 'the content warning',
  'mastodon.language': 'the language',
  mediaAltTexts: 'the alt text',
  mediaUrls: 'the media',
  targetAccounts: 'the profiles',
  platformContent: 'the copy for a network',
  firstComment: 'the first comment',
  firstCommentVariants: 'the first comment',
  thread: 'the thread',
  threadVariants: 'the thread',
  scheduleDate: 'the date',
  scheduleTime: 'the time',
  publishImmediately: 'Publish now',
  profileId: 'its profile id',
  mediaUrl: 'the media',
  startDate: 'the start date',
  endDate: 'the end date',
  startTime: 'the start time',
  endTime: 'the end time',
}

const NETWORK_ID = networks.join('|')

/** A field path leading a finding, before the sentence: `googlebusiness.event.title: `, `thread: `. */
const LEADING_PATH = /^(?<path>[a-zA-Z]+(?:\[\d*\])?(?:\.[a-zA-Z]+(?:\[\d*\])?)*): (?=\S)/

/** A finding's own "who" after its path: `linkedin @acme: …`. */
const WHO_FOLLOWS = new RegExp(`^(?:${NETWORK_ID}) @`)

/**
 * A request field named inside a sentence: a network's (`youtube.title`), a detail's (`event.startDate`), or
 * one of the request's own names; never inside a handle, an address or a file name.
 */
const FIELD_PATH = new RegExp(
  `(?<![@\\w./:-])(?:(?:${NETWORK_ID}|event|offer|callToAction)(?:\\.[a-zA-Z]+)+|${Object.keys(FIELD_WORDS)
    // Plain words (`thread`) are the request's names only where they lead a finding.
    .filter((key) => !key.includes('.') && /[A-Z]/.test(key))
    .join('|')})\\b(?![./@-]\\w)(?:\\[\\])?`,
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
  const bare = path.replace(/\[\d*\]/g, '')
  const known = FIELD_WORDS[bare]
  if (known) return known
  const [head, ...rest] = bare.split('.')
  const label = networkLabels[head as Network]
  if (label && rest.length > 0) return `the ${label} ${spelledOut(rest.join('.'))}`
  return spelledOut(bare)
}

/** A network's id before a handle (`linkedin @acme`) or before "profile(s)" (`2 linkedin profiles`). */
const NETWORK_BEFORE = new RegExp(`\\b(${NETWORK_ID})\\b(?= @| profiles?\\b)`, 'g')
/** A network's id opening a clause ("; linkedin allows 3000"): "threads" is the network only before a verb. */
const NETWORK_SUBJECT = new RegExp(
  `(?<=^|: |; )(${NETWORK_ID})\\b(?= (?:takes|allows|requires|needs|does|refuses|accepts|shows|counts|answers)\\b)`,
  'g',
)
/** A list of networks' ids: "(only twitter, bluesky, threads, mastodon)", "go to twitter, bluesky". */
const NETWORK_LIST = new RegExp(`(?<=\\(only |go to )(?:${NETWORK_ID})(?:, (?:${NETWORK_ID}))*\\b`, 'g')

/** TikTok's privacy levels, in the words Compose shows; other upper-case words are a person's. */
const PRIVACY_CODE = new RegExp(`(?<![@\\w./-])(?:${Object.keys(tiktokPrivacyLabels).join('|')})\\b`, 'g')

/** Findings that name only the request's fields, said whole. */
const WHOLE: Record<string, string> = {
  'Name at least one profile in targetAccounts or one network in platforms': 'Choose at least one profile',
}

/** A leading field path: left out when the finding names its profile next, else said as the field's words. */
function withoutLeadingPath(finding: string): string {
  const path = LEADING_PATH.exec(finding)?.groups?.path
  if (!path) return finding
  const rest = finding.slice(path.length + 2)
  if (WHO_FOLLOWS.test(rest)) return rest
  const words = fieldInWords(path)
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}: ${rest}`
}

/** A finding without the API's spelling of fields, networks and codes; its sense unchanged. */
export function findingInWords(finding: string): string {
  const whole = WHOLE[finding]
  if (whole) return whole
  const start = withoutLeadingPath(finding)
    .replace(NETWORK_BEFORE, labelOf)
    .replace(NETWORK_SUBJECT, labelOf)
    .replace(NETWORK_LIST, (list) => list.split(', ').map(labelOf).join(', '))
  const aside = setAside(start)
  const said = aside.restore(
    aside.text
      .replace(FIELD_PATH, fieldInWords)
      .replace(PRIVACY_CODE, (code) => `“${tiktokPrivacyLabels[code as keyof typeof tiktokPrivacyLabels]}”`),
  )
  return said.charAt(0).toUpperCase() + said.slice(1)
}
