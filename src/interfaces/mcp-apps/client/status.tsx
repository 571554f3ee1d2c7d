import { useState } from 'preact/hooks'
import type { ToolResult } from './parts/bridge.js'
import { answerOf, errorOf, mountView, type ViewProps } from './parts/mount.js'
import { PostStatus, ToolButton } from './parts/parts.js'
import type { PostView } from './parts/words.js'

/**
 * "What happened" (get_post, publish_post_now, reset_stuck_post): each profile's state, its live link or its
 * error, and Retry failed profiles, which asks the host to call publish_post_now (each re-sent profile costs
 * its network's price again, as the tool says).
 */

interface Answer {
  /** publish_post_now and reset_stuck_post answer {message, post}; get_post answers the post itself. */
  post?: PostView
  message?: string
  id?: string
  targets?: PostView['targets']
}

const postOf = (answer: Answer | undefined): PostView | undefined =>
  answer?.post ?? (answer?.id && answer.targets ? (answer as unknown as PostView) : undefined)

function StatusView({ host, can, result }: ViewProps) {
  const [latest, setLatest] = useState<ToolResult | undefined>()
  const shown = latest && !latest.isError ? latest : result
  const answer = answerOf<Answer>(shown)
  const post = postOf(answer)
  const refused = errorOf(result)
  if (refused)
    return (
      <p class="problem" role="alert">
        {refused}
      </p>
    )
  if (!post) return <p class="waiting">Waiting for Herald’s answer…</p>
  const failed = post.targets.filter((t) => t.status === 'failed')
  return (
    <>
      <h1>What happened</h1>
      {answer?.message ? <p role="status">{answer.message}</p> : null}
      <PostStatus host={host} post={post} />
      {failed.length > 0 && can.retry ? (
        <div class="actions">
          <ToolButton
            host={host}
            tool="publish_post_now"
            args={{ id: post.id }}
            label={`Retry failed profiles (${failed.length})`}
            primary
            onAnswer={setLatest}
          />
          <p class="muted">Each profile sent again costs its network’s price again.</p>
        </div>
      ) : null}
    </>
  )
}

mountView(StatusView)
