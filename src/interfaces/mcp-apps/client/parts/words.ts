import { networkErrorInWords } from '../../../../core/network-error-words.js'
import { type Network, networkLabels } from '../../../../core/networks.js'
import { RESET_MESSAGE, STUCK_MESSAGE } from '../../../../core/post-status.js'

/** The words and tones the views show states in, as the dashboard's chips say them (never colour alone). */

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'neutral'

export interface TargetView {
  platform: Network
  profileId: string
  username: string
  status: 'pending' | 'published' | 'failed'
  url?: string
  error?: string
}

export interface PostView {
  id: string
  content: string
  status: 'draft' | 'scheduled' | 'processing' | 'published' | 'failed'
  targets: TargetView[]
  scheduleDate: string
  scheduleTime: string
  timezone: string
  approval?: { state?: string }
  lastError?: string
}

export function postState(post: PostView): { tone: Tone; words: string } {
  if (post.approval?.state === 'pending') return { tone: 'warn', words: 'Waiting for approval' }
  if (post.status === 'processing') return { tone: 'info', words: 'Publishing' }
  if (post.status === 'published' && post.targets.some((t) => t.status === 'failed'))
    return { tone: 'warn', words: 'Partly published' }
  const words = { draft: 'Draft', scheduled: 'Scheduled', published: 'Published', failed: 'Failed' }
  const tones: Record<string, Tone> = { draft: 'neutral', scheduled: 'info', published: 'ok', failed: 'bad' }
  return { tone: tones[post.status] ?? 'neutral', words: words[post.status as keyof typeof words] }
}

export function targetState(target: TargetView, post: PostView): { tone: Tone; words: string } {
  if (target.status === 'published') return { tone: 'ok', words: 'Published' }
  if (target.status === 'failed') return { tone: 'bad', words: 'Failed' }
  if (post.status === 'processing') return { tone: 'info', words: 'Publishing' }
  return post.status === 'draft' ? { tone: 'neutral', words: 'Draft' } : { tone: 'info', words: 'Scheduled' }
}

/** "X @acme" */
export const profileName = (platform: Network, username: string) =>
  `${networkLabels[platform] ?? platform} @${username.replace(/^@+/, '')}`

export const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`

/** Herald's own messages that name tools, said as the person would ask for it in the conversation. */
const IN_WORDS: Record<string, string> = {
  [STUCK_MESSAGE]:
    'Publishing stopped mid-send (the worker holding it went away); the outcome is unknown. Check the profile on the network, then ask for the stuck post to be reset before retrying.',
  [RESET_MESSAGE]:
    'The outcome of the interrupted send is unknown: it may or may not have reached the network. Check the profile before you retry.',
}

/** Where Herald's words name a tool, what the person presses or asks for instead. */
const TOOL_WORDS: Array<[RegExp, string]> = [
  [/\bpublish_post_now\b/g, '“Retry failed profiles”'],
  [/\breset_stuck_post\b/g, 'a reset of the stuck post'],
  [/\bupdate_post\b/g, 'an edit of the post'],
  [/\breschedule_post\b/g, 'a new time for it'],
  [/\bpreflight_post\b/g, 'a check of the post'],
]

/** A lost connection: the fix is in Herald, not in the conversation. */
const LOST_CONNECTION = /reconnect|expired|revoked|invalid_grant|not authori[sz]ed|unauthori[sz]ed/i

/** A profile's delivery error as a person reads it, with its fix where Herald knows one. */
export function errorInWords(error: string): string {
  const said =
    IN_WORDS[error] ??
    TOOL_WORDS.reduce((text, [name, words]) => text.replace(name, words), networkErrorInWords(error))
  return LOST_CONNECTION.test(error)
    ? `${said} Fix: reconnect the profile on Herald’s Channels page, then retry.`
    : said
}
