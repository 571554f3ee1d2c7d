import { type Network, networkLabels, networks } from './networks.js'

/**
 * A network's refusal as a person reads it. Adapters keep the network's exact answer in a target's `error`
 * (the API hands it to developers and agents as it came: the status, the network's code, the method that
 * answered); the dashboard and the assistant's views say the same thing without the API's names: who
 * answered, what they did with which part of the post, and the network's own sentence.
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

/** An AT Protocol method name (`com.atproto.repo.createRecord`, `app.bsky.feed.getPosts`). */
const NSID = /\b(?:com\.atproto|app\.bsky|chat\.bsky|tools\.ozone)\.[a-z]+\.([a-zA-Z]+)\b/g
/** An HTTP method and a path or a host (`POST /2/tweets`, `GET bsky.social`). */
const METHOD_AND_WHERE = /\b(?:GET|POST|PUT|PATCH|DELETE) \S+/g
/** A bare API path (`/v2/post/publish/video/init/`). */
const API_PATH = /(?<![\w.])\/(?:v\d+(?:\.\d+)?|api|rest|xrpc|oauth)\/[\w/.{}:%-]*/g
/** A Google resource method (`videos.list`, `videos.insert`). */
const RESOURCE_METHOD = /\b[a-z][a-zA-Z]+\.(?:list|insert|update|delete|get|patch)\b/g

/** What a status says the network did with a part of the post; `what` is undefined when no part is known. */
function didWhat(status: number, who: string, what: string | undefined): string {
  if (status === 401) return `${who} no longer accepts Herald’s sign-in${what ? ` for ${what}` : ''}`
  if (status === 404) return `${who} could not find what ${what ?? 'Herald'} asked for`
  if (status === 413) return `${who} refused ${what ?? 'it'} as too large`
  if (status === 429) return `${who} asked Herald to slow down${what ? ` with ${what}` : ''}`
  if (status >= 500) return `${who} had a problem on its side${what ? ` with ${what}` : ''}`
  return `${who} refused ${what ?? 'the request'}`
}

/** The sentence's subject and object without any API name. */
function inWords(text: string): string {
  return (
    text
      .replace(NSID, (_whole, method: string) => XRPC_WORDS[method] ?? 'the request')
      .replace(METHOD_AND_WHERE, 'a request')
      .replace(API_PATH, 'the request')
      .replace(RESOURCE_METHOD, 'the request')
      .replace(ISO_MINUTE, '$1 $2 UTC')
      // A status or a numbered error in brackets says nothing to a person: "(403)", "(HTTP 500)", "(error 200)".
      .replace(/ \((?:HTTP |error )?\d{3,}\)/g, '')
      .replace(/\bHTTP (\d{3})\b/g, 'an error')
      .replace(/\s{2,}/g, ' ')
      .trim()
  )
}

/** `X answered 400: …`, `Bluesky com.atproto.repo.createRecord answered 400 InvalidRequest: …`, `TikTok answered 403 (code) to the video: …`. */
const ANSWERED =
  /^(?<who>.+?) answered (?<status>\d{3})(?: \((?<paren>[\w.-]+)\)| (?<code>[A-Z][A-Za-z]+)(?=:|$| to ))?(?: to (?<what>[^:]+?))?(?:: (?<said>[\s\S]+))?$/

/** Where Herald's own words follow the network's answer ("…; retrying at …", "… (gave up after 5 attempts)"). */
const HERALD_ENDING =
  /; (?=retrying at |waiting until |Herald will |\w+ may have taken |nothing was sent|reconnect the profile)| \((?=gave up after \d+ attempts\)$)/

function splitEnding(message: string): { body: string; ending: string } {
  const found = HERALD_ENDING.exec(message)
  if (!found) return { body: message, ending: '' }
  const ending = message.slice(found.index + found[0].length).replace(/\)$/, '')
  return { body: message.slice(0, found.index), ending: capital(heraldInWords(ending)) }
}

/** Herald's endings, said for a person: its times in minutes, its networks by name. */
const heraldInWords = (text: string) =>
  text
    .replace(/^retrying at /, 'Herald tries again at ')
    .replace(/^waiting until (.+) as (\w+) asks$/, 'Herald waits until $1, as $2 asks')
    .replace(/^gave up after (\d+) attempts$/, 'Herald gave up after $1 tries')
    .replace(/^nothing was sent$/, 'nothing was sent')
    .replace(ISO_MINUTE, '$1 $2 UTC')
    .replace(PLATFORM_ID, (id) => networkLabels[id as Network] ?? id)

/** An instant as Herald writes it (`2026-12-03T15:05:00.000Z`), to the minute. */
const ISO_MINUTE = /\b(\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\d(?:\.\d+)?Z\b/g

/** A network's id where Herald's ending names it ("on twitter", "as youtube asks"). */
const PLATFORM_ID = new RegExp(`\\b(?:${networks.join('|')})\\b`, 'g')

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** The network's words, then Herald's as a sentence of their own; nothing added where there is nothing to join. */
const joined = (text: string, ending: string) =>
  ending ? `${text}${/[.!?…]$/.test(text) ? '' : '.'} ${ending}` : text

/** A delivery error in words: the network's own sentence kept, the API's names and numbers left out. */
export function networkErrorInWords(message: string): string {
  const { body, ending } = splitEnding(message.trim())
  const answered = ANSWERED.exec(body)?.groups
  if (!answered) return joined(inWords(body), ending)
  // "Bluesky com.atproto.repo.createRecord": the network, then the method, said as the part it carried.
  const named = /^(?<network>\S+) (?<method>(?:com\.atproto|app\.bsky|chat\.bsky)\.\S+)$/.exec(
    answered.who ?? '',
  )
  const network = named?.groups?.network ?? inWords(answered.who ?? '')
  const part = named?.groups?.method ? inWords(named.groups.method) : ''
  const what = answered.what ? inWords(answered.what) : part || undefined
  const said = answered.said ? `: ${inWords(answered.said)}` : ''
  return joined(`${didWhat(Number(answered.status), network, what)}${said}`, ending)
}
