import { type Network, networkLabels } from '../../../../core/networks.js'

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
