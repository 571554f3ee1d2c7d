import { labelOf, networks } from './networks.js'
import { setAside } from './set-aside.js'

/**
 * A network's refusal as a person reads it. Adapters keep the network's exact answer in a target's `error`
 * (the API hands it to developers and agents as it came: the status, the network's code, the method that
 * answered); the dashboard and the assistant's views say the same thing without the API's names: who
 * answered, what they did with which part of the post, and the network's own sentence. Addresses and quoted
 * text (a person's copy, a file's address) pass through untouched.
 *
 * Pure text rules, shared by the dashboard (server-rendered) and the MCP views (bundled for the browser).
 */

/** AT Protocol methods (`com.atproto.repo.createRecord`) as the part of the post they carried. */
const XRPC_WORDS: Record<string, string> = {
  createRecord: 'the post',
  putRecord: 'the post',
  applyWrites: 'the post',
  deleteRecord: 'the removal of the post',
  uploadBlob: 'the upload of an image',
  getRecord: 'the check for the post',
  listRecords: 'the list of recent posts',
  getAuthorFeed: 'the list of recent posts',
  createSession: 'the sign-in',
  refreshSession: 'the renewal of the sign-in',
  getSession: 'the sign-in',
  resolveHandle: 'the account lookup',
  describeServer: 'the server lookup',
  getProfile: 'the profile',
  getPosts: 'the post’s figures',
}

/** X's fixed messages (the spec's words, kept in the API), as a person reads them. */
const X_MESSAGES: Array<[string, string]> = [
  ['Access token for twitter is missing or invalid', 'X no longer accepts Herald’s sign-in'],
  ['Twitter API v2 posting failed', 'X refused the post'],
  ['Twitter Media Upload Initialization failed', 'X refused the media upload'],
  ['Too Many Requests', 'X asked Herald to slow down'],
]

const NSID_PREFIX = '(?:com\\.atproto|app\\.bsky|chat\\.bsky|tools\\.ozone)'
/** An AT Protocol name: a method (`com.atproto.repo.createRecord`) or a record type (`app.bsky.feed.post`). */
const NSID = new RegExp(`\\b${NSID_PREFIX}\\.[a-z]+\\.([a-zA-Z]+)\\b`, 'g')
/** An HTTP method before a path or a host (`POST /2/tweets`, `GET plc.directory`); not a shouted word. */
const METHOD_AND_WHERE = /\b(GET|POST|PUT|PATCH|DELETE) (?:\/[^\s)"”]*|[a-z0-9-]+(?:\.[a-z0-9-]+)+)/g
/** A bare API path (`/v2/post/publish/video/init/`), not part of an address. */
const API_PATH = /(?<![\w.:/])\/(?:v\d+(?:\.\d+)?|api|rest|xrpc|oauth)\/[\w/.{}:%-]*/g
/** A Google resource method in brackets (`(videos.insert)`). */
const RESOURCE_METHOD =
  / \((?:videos|channels|playlistItems|thumbnails|comments|commentThreads|localPosts|media)\.\w+\)/g
/** A code in brackets says nothing to a person: `(403)`, `(error 100/2207026)`, `(invalid_params)`, `(ENOTFOUND)`. */
const BRACKETED_CODE = / \((?:(?:HTTP |error )?\d+(?:\/\d+)?|[a-z]+(?:_[a-z]+)+|[A-Z][A-Z_]{3,})\)/g
/** An instant as Herald writes it (`2026-12-03T15:05:00.000Z`), to the minute. */
const ISO_MINUTE = /\b(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\d(?:\.\d+)?Z\b/g
/** A status inside a sentence (`(last: X answered 503)`), when the whole message is not one answer. */
const INNER_ANSWER = / answered (\d{3})(?: [A-Z][A-Za-z]+)?(?=[:;)]|$| )/g
/** A network's id in Herald's own words ("on twitter", "ask bluesky", "as youtube asks", "twitter may have taken"). */
const PLATFORM_ID = new RegExp(
  `(?<=\\b(?:on|ask|at|from|to|as|for) )(?:${networks.join('|')})\\b|\\b(?:${networks.join('|')})\\b(?= (?:asks|may have taken)\\b)`,
  'g',
)

/** Herald's own terms for people: instants to the minute, networks by name. */
const heraldTerms = (text: string) => text.replace(ISO_MINUTE, '$1 $2 UTC').replace(PLATFORM_ID, labelOf)

/** An AT Protocol name as words: a method as the part of the post, a record type as its noun. */
const nsidWords = (_whole: string, last: string) =>
  XRPC_WORDS[last] ?? (/^[a-z]+$/.test(last) ? last : 'the request')

const innerAnswer = (_whole: string, status: string) =>
  Number(status) >= 500
    ? ' had a problem on its side'
    : Number(status) >= 400
      ? ' refused it'
      : ' answered unexpectedly'

/** Any sentence of a network's or Herald's without API names, codes, or raw instants. */
function inWords(text: string): string {
  return heraldTerms(text)
    .replace(NSID, nsidWords)
    .replace(METHOD_AND_WHERE, (_w, method: string) => (method === 'GET' ? 'a lookup' : 'a request'))
    .replace(API_PATH, 'the request')
    .replace(RESOURCE_METHOD, '')
    .replace(BRACKETED_CODE, '')
    .replace(/: HTTP \d{3}$/, '')
    .replace(/\bHTTP (\d{3})\b/g, 'an error')
    .replace(
      / answered (?:(\d{3}) )?with (?:a body|something) that is not JSON/g,
      ' answered in a form Herald could not read',
    )
    .replace(INNER_ANSWER, innerAnswer)
    .replace(/\s{2,}/g, ' ')
    .trim()
}

const SIGN_IN_STEP = /sign-in|sign in|token|session/i

/** What a status says the network did with a part of the post; `what` is undefined when no part is known. */
function didWhat(status: number, who: string, what: string | undefined): string {
  if (status === 401)
    return `${who} no longer accepts Herald’s sign-in${what && !SIGN_IN_STEP.test(what) ? ` for ${what}` : ''}`
  if (status === 404) return `${who} found nothing for ${what ?? 'what Herald asked'}`
  if (status === 410) return `${who} says what Herald asked for is gone${what ? ` (${what})` : ''}`
  if (status === 413) return `${who} refused ${what ?? 'it'} as too large`
  if (status === 429) return `${who} asked Herald to slow down${what ? ` with ${what}` : ''}`
  if (status === 501) return `${who} does not offer what Herald asked for${what ? ` (${what})` : ''}`
  if (status >= 500) return `${who} had a problem on its side${what ? ` with ${what}` : ''}`
  if (status < 400) return `${who} answered ${what ?? 'the request'} unexpectedly; it may have gone through`
  return `${who} refused ${what ?? 'the request'}`
}

/**
 * `X answered 400: …`, `Bluesky com.atproto.repo.createRecord answered 400 InvalidRequest: …`,
 * `TikTok answered 403 (code) to the video: …`, `mastodon.social answered 422 to posting the status: …`.
 * Who answered is a name without brackets or colons; a longer sentence that quotes an answer is left to
 * {@link inWords}.
 */
const ANSWERED =
  /^(?<who>[^:;()]{1,60}?) answered (?<status>\d{3})(?: \((?<paren>[\w.-]+)\)| (?<code>[A-Z][A-Za-z]+)(?=:|$| to ))?(?: to (?<what>[^:]+?))?(?:: (?<said>[\s\S]+))?$/

/** X's "answered 503 after the post was sent; it may or may not have been created". */
const ANSWERED_AFTER = /^(?<who>\S+) answered (?<status>\d{3}) after the post was sent; (?<rest>[\s\S]+)$/

/** A call a message names after its network: an AT Protocol method, or an HTTP method and where. */
const CALL = `(?<method>${NSID_PREFIX}\\.\\S+|(?:GET|POST|PUT|PATCH|DELETE) \\S+)`
/** `Bluesky com.atproto.repo.createRecord timed out …`: the network, the part of the post, what happened. */
const NAMED_CALL = new RegExp(`^(?<network>\\S+) ${CALL} (?<rest>[\\s\\S]+)$`)
/** `Bluesky com.atproto.repo.createRecord` as who answered: the network, then the call. */
const NAMED_CALLER = new RegExp(`^(?<network>\\S+) ${CALL}$`)

/** Where Herald's own words follow the network's answer ("…; retrying at …", "… (gave up after 5 attempts)"). */
const HERALD_ENDING =
  /; (?=retrying at |waiting until |Herald will |\w+ may have taken |nothing was sent|reconnect the profile(?!:))| \((?=gave up after \d+ attempts\)$)/

/** Herald's endings, said for a person, each clause a sentence: its times in minutes, its networks by name. */
function endingInWords(ending: string): string {
  return ending
    .split(/; | \((?=gave up after)/)
    .map((clause) =>
      clause
        .replace(/^gave up after (\d+) attempts\)$/, 'Herald gave up after $1 tries')
        .replace(/^retrying at /, 'Herald tries again at ')
        .replace(/^waiting until (.+) as (\w+) asks$/, 'Herald waits until $1, as $2 asks'),
    )
    .map(heraldTerms)
    .map((clause) => clause.charAt(0).toUpperCase() + clause.slice(1))
    .join('. ')
}

function splitEnding(message: string): { body: string; ending: string } {
  const found = HERALD_ENDING.exec(message)
  if (!found) return { body: message, ending: '' }
  const rest = message.slice(found.index + found[0].length)
  return { body: message.slice(0, found.index), ending: endingInWords(rest) }
}

/** The network's words, then Herald's as a sentence of their own; nothing added where there is nothing to join. */
const joined = (text: string, ending: string) =>
  ending ? `${text}${/[.!?…]$/.test(text) ? '' : '.'} ${ending}` : text

/** The body of a message, said in words. */
function bodyInWords(body: string): string {
  for (const [said, words] of X_MESSAGES)
    if (body.startsWith(said)) return words + inWords(body.slice(said.length))
  const after = ANSWERED_AFTER.exec(body)?.groups
  if (after) return `${after.who} gave no clear answer after the post was sent; ${inWords(after.rest ?? '')}`
  const answered = ANSWERED.exec(body)?.groups
  if (answered) {
    // "Bluesky com.atproto.repo.createRecord": the network, then the method, said as the part it carried.
    const named = NAMED_CALLER.exec(answered.who ?? '')
    const network = named?.groups?.network ?? inWords(answered.who ?? '')
    const part = named?.groups?.method ? inWords(named.groups.method) : ''
    const what = answered.what ? inWords(answered.what) : part || undefined
    const said = answered.said ? `: ${inWords(answered.said)}` : ''
    return `${didWhat(Number(answered.status), network, what)}${said}`
  }
  const call = NAMED_CALL.exec(body)?.groups
  if (call) return `${call.network}: ${inWords(call.method ?? '')} ${inWords(call.rest ?? '')}`
  return inWords(body)
}

/** A delivery error in words: the network's own sentence kept, the API's names and numbers left out. */
export function networkErrorInWords(message: string): string {
  const aside = setAside(message.trim())
  const { body, ending } = splitEnding(aside.text)
  return aside.restore(joined(bodyInWords(body), ending))
}
