import { renderToString } from 'preact-render-to-string'
import { networkLabels } from '../../../core/networks.js'
import type { PostView } from '../../../modules/publishing/schemas.js'
import { NetworkIcon } from '../ui/parts.js'
import { StatusChip, shownState } from '../ui/status-chip.js'

/**
 * Rescheduling one post with a form instead of a drag, for a keyboard (or a phone): its date, time and zone,
 * posted to the same route as a drop on the calendar, which comes back to the calendar it was opened from.
 */

const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')]

function RescheduleForm({ post, csrf, back }: { post: PostView; csrf: string; back: string }) {
  const choices = zones.includes(post.timezone) ? zones : [post.timezone, ...zones]
  return (
    <>
      <p>
        <a href={back}>Back to the calendar</a>
      </p>
      <div class="page-head">
        <h1>Reschedule post</h1>
      </div>
      <div class="card reschedule-post">
        <ul class="reschedule-profiles">
          {post.targets.map((t) => (
            <li class={`net net-${t.platform}`}>
              <span aria-hidden="true">
                <NetworkIcon network={t.platform} />
              </span>
              {networkLabels[t.platform]} @{t.username.replace(/^@+/, '')}
            </li>
          ))}
          <li>
            <StatusChip state={shownState(post)} />
          </li>
        </ul>
        <blockquote>{post.content}</blockquote>
        <p class="muted">
          Now: {post.scheduleDate} at {post.scheduleTime} ({post.timezone})
        </p>
      </div>
      <form method="post" action="/calendar/reschedule" class="card reschedule-form">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="id" value={post.id} />
        <input type="hidden" name="back" value={back} />
        <label>
          Date <input type="date" name="scheduleDate" value={post.scheduleDate} required />
        </label>
        <label>
          Time <input type="time" name="scheduleTime" value={post.scheduleTime} required />
        </label>
        <label>
          Time zone
          <select name="timezone">
            {choices.map((zone) => (
              <option value={zone} selected={zone === post.timezone}>
                {zone}
              </option>
            ))}
          </select>
        </label>
        <p class="actions">
          <button type="submit" class="primary">
            Reschedule
          </button>{' '}
          <a class="button" href={back}>
            Cancel
          </a>
        </p>
      </form>
    </>
  )
}

export function renderRescheduleForm(post: PostView, csrf: string, back: string): string {
  return renderToString(<RescheduleForm post={post} csrf={csrf} back={back} />)
}
