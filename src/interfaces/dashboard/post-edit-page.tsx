import { renderToString } from 'preact-render-to-string'
import type { PostView } from '../../modules/publishing/schemas.js'
import { profileName } from './post-parts.js'

/**
 * Editing a scheduled, draft or failed post: its copy, media and slot (the profiles stay; update_post takes
 * new ones over the API). Saving calls update_post; "submit" also asks for the post to go out: update_post
 * to scheduled, or publish_post_now, which wait for an owner when approvals apply to this person. Rendered
 * from JSX, every value escaped by the renderer.
 */

export interface EditForm {
  content: string
  mediaUrls: string
  when: 'schedule' | 'now'
  date: string
  time: string
  timezone: string
}

interface EditPageProps {
  post: PostView
  form: EditForm
  csrf: string
  /** Approvals apply to this person: submitting asks an owner. */
  waits: boolean
  problem?: string | undefined
}

function EditPage({ post, form, csrf, waits, problem }: EditPageProps) {
  const submit = waits
    ? 'Save and submit for approval'
    : form.when === 'now'
      ? 'Save and publish now'
      : 'Save and schedule'
  return (
    <>
      <p>
        <a href={`/posts/${post.id}`}>Back to the post</a>
      </p>
      <h1>Edit post</h1>
      {post.approval?.state === 'rejected' ? (
        <div class="problem" role="alert">
          <p>
            <strong>An owner sent it back:</strong>
          </p>
          <blockquote class="note">{post.approval.note ?? ''}</blockquote>
        </div>
      ) : null}
      {problem ? (
        <div class="problem" role="alert">
          <p>{problem}</p>
        </div>
      ) : null}
      <p class="muted">To {post.targets.map(profileName).join(', ')}.</p>
      <form method="post" action={`/posts/${post.id}/edit`}>
        <input type="hidden" name="csrf" value={csrf} />
        <label>
          Copy <textarea name="content" rows={6} value={form.content} />
        </label>
        <label>
          Media URLs, one per line, in order <textarea name="mediaUrls" rows={2} value={form.mediaUrls} />
        </label>
        <fieldset>
          <legend>When</legend>
          <label>
            <input type="radio" name="when" value="schedule" checked={form.when === 'schedule'} /> At a date
            and time
          </label>
          <label>
            Date <input type="date" name="date" value={form.date} />
          </label>
          <label>
            Time <input type="time" name="time" value={form.time} />
          </label>
          <label>
            Time zone <input type="text" name="timezone" value={form.timezone} />
          </label>
          <label>
            <input type="radio" name="when" value="now" checked={form.when === 'now'} />{' '}
            {waits ? 'As soon as it is approved' : 'Now'}
          </label>
        </fieldset>
        <button type="submit" name="intent" value="save">
          Save
        </button>{' '}
        <button type="submit" name="intent" value="submit">
          {submit}
        </button>
        {waits ? (
          <p class="muted">
            Approvals are on: an owner approves the post before it goes out; its credits are charged then.
          </p>
        ) : null}
      </form>
    </>
  )
}

/** The body of a post's edit page, for the dashboard's frame. */
export function renderEditPage(props: EditPageProps): string {
  return renderToString(<EditPage {...props} />)
}
