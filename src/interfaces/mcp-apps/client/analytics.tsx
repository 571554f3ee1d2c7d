import { useState } from 'preact/hooks'
import type { ToolResult } from './parts/bridge.js'
import { answerOf, errorOf, mountView, type ViewProps } from './parts/mount.js'
import { NetworkMark, ToolButton } from './parts/parts.js'
import { profileName } from './parts/words.js'

/**
 * The analytics view (get_post_analytics, get_profile_analytics): the stored readings, free, as totals and a
 * table per profile; "Refresh (1 credit)" reads the networks again only when pressed.
 */

type Numbers = Record<string, number | null>

interface PostAnalytics {
  id: string
  content: string
  fetchedAt: string | null
  totals: Numbers
  targets: Array<{
    platform: string
    username: string
    analytics: { fetchedAt: string | null; summary: Numbers; error: string; unavailable: boolean }
  }>
  notes: string[]
}

interface ProfileAnalytics {
  platform: string
  profileId: string
  username: string
  analytics: { fetchedAt: string | null; summary: Numbers; error: string }
  note?: string
  message?: string
}

const LABELS: Record<string, string> = {
  views: 'Views',
  likes: 'Likes',
  comments: 'Comments',
  shares: 'Shares',
  saves: 'Saves',
  clicks: 'Clicks',
  engagements: 'Engagements',
  followers: 'Followers',
  following: 'Following',
  posts: 'Posts',
}

const shown = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : String(value)
const readAt = (at: string | null) =>
  at ? `Read ${at.replace('T', ' ').slice(0, 16)} UTC` : 'Never read yet'

function Totals({ numbers }: { numbers: Numbers }) {
  return (
    <dl class="totals">
      {Object.entries(numbers).map(([key, value]) => (
        <div>
          <dt>{LABELS[key] ?? key}</dt>
          <dd>{shown(value)}</dd>
        </div>
      ))}
    </dl>
  )
}

function PostTable({ answer }: { answer: PostAnalytics }) {
  const keys = Object.keys(answer.totals)
  // A narrow inline frame scrolls the table sideways, not the page; the keyboard can reach it to scroll.
  return (
    <section class="table-scroll" aria-label="Per profile" tabindex={0}>
      <table>
        <caption>Per profile</caption>
        <thead>
          <tr>
            <th scope="col">Profile</th>
            {keys.map((key) => (
              <th scope="col">{LABELS[key] ?? key}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {answer.targets.map((t) => (
            <tr>
              <th scope="row">
                <NetworkMark platform={t.platform} />
                {profileName(t.platform as never, t.username)}
              </th>
              {keys.map((key) => (
                <td>{shown(t.analytics.summary[key])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function AnalyticsView({ host, can, input, result }: ViewProps) {
  const [latest, setLatest] = useState<ToolResult | undefined>()
  const current = latest && !latest.isError ? latest : result
  const refused = errorOf(result)
  if (refused)
    return (
      <p class="problem" role="alert">
        {refused}
      </p>
    )
  const answer = answerOf<PostAnalytics | ProfileAnalytics>(current)
  if (!answer) return <p class="waiting">Waiting for Herald’s answer…</p>
  if ('totals' in answer) {
    const args = { ...(input ?? {}), id: answer.id, refresh: true }
    return (
      <>
        <h1>Post analytics</h1>
        <p class="muted">{readAt(answer.fetchedAt)} · stored readings are free</p>
        <p class="copy-line">{answer.content}</p>
        <Totals numbers={answer.totals} />
        <PostTable answer={answer} />
        <Notes notes={answer.notes} />
        <Refresh host={host} shown={can.refresh} tool="get_post_analytics" args={args} onAnswer={setLatest} />
      </>
    )
  }
  const args = { ...(input ?? {}), platform: answer.platform, profileId: answer.profileId, refresh: true }
  return (
    <>
      <h1>Analytics of {profileName(answer.platform as never, answer.username)}</h1>
      <p class="muted">{readAt(answer.analytics.fetchedAt)} · stored readings are free</p>
      <Totals numbers={answer.analytics.summary} />
      <Notes notes={[answer.note ?? '', answer.analytics.error].filter(Boolean)} />
      <Refresh
        host={host}
        shown={can.refresh}
        tool="get_profile_analytics"
        args={args}
        onAnswer={setLatest}
      />
    </>
  )
}

const Notes = ({ notes }: { notes: string[] }) => (
  <>
    {notes.map((note) => (
      <p class="muted">{note}</p>
    ))}
  </>
)

/** Refresh reads the networks again for 1 credit: shown only to a token that may spend credits. */
function Refresh(props: {
  host: ViewProps['host']
  shown: boolean
  tool: string
  args: Record<string, unknown>
  onAnswer(result: ToolResult): void
}) {
  if (!props.shown) return null
  return (
    <div class="actions">
      <ToolButton
        host={props.host}
        tool={props.tool}
        args={props.args}
        label="Refresh (1 credit)"
        onAnswer={props.onAnswer}
      />
    </div>
  )
}

mountView(AnalyticsView)
