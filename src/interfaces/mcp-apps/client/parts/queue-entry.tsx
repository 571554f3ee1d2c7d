import type { FreeSlot } from '../../views.js'
import { Chip, NetworkMark } from './parts.js'
import type { Entry, QueuePost } from './queue-days.js'
import { type PostView, postState, profileName } from './words.js'

/**
 * One entry of the queue, as the agenda lists it (a row: time, profiles, copy, state) or as the week
 * calendar's day holds it (a small card: the profiles' names kept for screen readers and on hover).
 */

export type OpenPost = ((id: string) => void) | undefined

const nameOf = (platform: string, username: string) =>
  profileName(platform as PostView['targets'][number]['platform'], username)

function Profiles({
  who,
  compact,
}: {
  who: Array<{ platform: string; username: string }>
  compact: boolean
}) {
  return (
    <span class="nets">
      {who.map(({ platform, username }) => (
        <span class="net-name" title={compact ? nameOf(platform, username) : undefined}>
          <NetworkMark platform={platform} />
          <span class={compact ? 'sr-only' : undefined}>{nameOf(platform, username)}</span>
        </span>
      ))}
    </span>
  )
}

/** A free posting time: dashed, and said in words. */
const FreeEntry = ({ slot, compact }: { slot: FreeSlot; compact: boolean }) => (
  <div class="row free">
    <span class="time">{slot.scheduleTime}</span>
    <Profiles who={[slot]} compact={compact} />
    <span class="excerpt">Free slot</span>
  </div>
)

function PostEntry({ post, compact, open }: { post: QueuePost; compact: boolean; open: OpenPost }) {
  const state = postState(post)
  const what = (
    <>
      <span class="time">{post.scheduleTime}</span>
      <Profiles who={post.targets} compact={compact} />
      <span class="excerpt">{post.content}</span>
      <Chip tone={state.tone}>{state.words}</Chip>
    </>
  )
  return open ? (
    <button type="button" class="row" onClick={() => open(post.id)}>
      {what}
    </button>
  ) : (
    <div class="row">{what}</div>
  )
}

export const QueueEntry = ({ entry, compact, open }: { entry: Entry; compact: boolean; open: OpenPost }) =>
  'free' in entry ? (
    <FreeEntry slot={entry.free} compact={compact} />
  ) : (
    <PostEntry post={entry.post} compact={compact} open={open} />
  )
