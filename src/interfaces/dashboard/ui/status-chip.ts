import type { PostView } from '../../../modules/publishing/schemas.js'
import { escapeHtml } from './escape.js'
import { icon, type UiIcon } from './icons.js'

/** The states a manager sees a post in, each a chip of an icon and a word (never colour alone). */
export type ShownState =
  | 'scheduled'
  | 'pending approval'
  | 'rejected'
  | 'publishing'
  | 'published'
  | 'partly published'
  | 'failed'
  | 'draft'

const CHIPS: Record<ShownState, { tone: string; icon: UiIcon; words: string }> = {
  scheduled: { tone: 'info', icon: 'clock', words: 'Scheduled' },
  'pending approval': { tone: 'warn', icon: 'hourglass', words: 'Waiting for approval' },
  rejected: { tone: 'bad', icon: 'ban', words: 'Rejected' },
  publishing: { tone: 'info', icon: 'send', words: 'Publishing' },
  published: { tone: 'ok', icon: 'circle-check', words: 'Published' },
  'partly published': { tone: 'warn', icon: 'circle-alert', words: 'Partly published' },
  failed: { tone: 'bad', icon: 'circle-x', words: 'Failed' },
  draft: { tone: 'neutral', icon: 'file-pen', words: 'Draft' },
}

/** The state a post is shown in: a draft waiting for an owner's approval (or rejected) says so. */
export function shownState(post: Pick<PostView, 'status' | 'approval' | 'targets'>): ShownState {
  if (post.approval?.state === 'pending') return 'pending approval'
  if (post.approval?.state === 'rejected' && post.status === 'draft') return 'rejected'
  if (post.status === 'processing') return 'publishing'
  if (post.status === 'published' && post.targets.some((t) => t.status === 'failed'))
    return 'partly published'
  return post.status
}

/** The state of one profile's copy of a post. */
export function targetState(
  status: 'pending' | 'published' | 'failed',
  post: Pick<PostView, 'status'>,
): ShownState {
  if (status === 'published') return 'published'
  if (status === 'failed') return 'failed'
  return post.status === 'processing' ? 'publishing' : post.status === 'draft' ? 'draft' : 'scheduled'
}

/** A chip's class and its inner markup (the icon, then the escaped word), for a template that draws the span. */
export function chipParts(state: ShownState): { className: string; inner: string } {
  const chip = CHIPS[state]
  return { className: `chip ${chip.tone}`, inner: `${icon(chip.icon)}${escapeHtml(chip.words)}` }
}

export function statusChip(state: ShownState): string {
  const { className, inner } = chipParts(state)
  return `<span class="${className}">${inner}</span>`
}
