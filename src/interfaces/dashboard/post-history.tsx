import type { PostView } from '../../modules/publishing/schemas.js'
import { avatar, errorInWords, instant, networkLabel, profileName } from './post-parts.js'
import type { UiIcon } from './ui/icons.js'
import { Icon } from './ui/parts.js'

/**
 * A post's history on its page, one list per profile of its compose, in a manager's words: when it was made
 * and decided on (the post's own record), then what each attempt, lookup, interruption, reset and retry did
 * to that profile (the target's history, migration 029). A post older than that history is told from what
 * its rows still say: how many sends it took and how it ended.
 */

type Target = PostView['targets'][number]
type Entry = NonNullable<Target['history']>[number]

/** One line of a history: when, an icon, the sentence, and the network's or Herald's own words under it. */
export interface HistoryLine {
  at: string
  icon: UiIcon
  text: string
  detail?: string
}

/**
 * The network's or Herald's words under a line, without the schedule Herald appended to them (the line says
 * what comes next, and the raw time is for machines): "; retrying at …", "; Herald will look for … again".
 */
export function detailInWords(detail: string): string {
  const bare = detail.replace(/;\s*retrying at \S+$/, '').replace(/;[^;]*Herald will look for [^;]*$/, '')
  return errorInWords(bare || detail)
}

/** What one recorded entry says, for the profile `who` on `network`. */
export function entryInWords(entry: Entry, target: Pick<Target, 'platform' | 'username'>): HistoryLine {
  const network = networkLabel(target.platform)
  const who = profileName(target)
  const line = (icon: UiIcon, text: string, detail?: string): HistoryLine => ({
    at: entry.at,
    icon,
    text,
    ...(detail ? { detail: detailInWords(detail) } : {}),
  })
  const sent = entry.sent === true
  switch (`${entry.kind}:${entry.result}`) {
    case 'lookup:found':
      return line('search-check', `Looked on ${network}: the post was there, so it was not sent again`)
    case 'lookup:absent':
      return line('search-x', `Looked on ${network}: the post was not there, so Herald sent it again`)
    case 'lookup:ambiguous':
      return line(
        'circle-help',
        `Looked on ${network}: Herald could not tell whether the post is there, so it stopped until you check the profile`,
        entry.detail,
      )
    case 'lookup:unreachable':
      return line(
        'search',
        `Could not look on ${network}: Herald looks again later and sends nothing until it knows`,
        entry.detail,
      )
    case 'attempt:published':
      return line('circle-check', sent ? `Sent to ${who}: published` : `Published on ${who}`)
    case 'attempt:failed':
      return line('circle-x', sent ? `Sent to ${who}: refused` : `Not sent to ${who}`, entry.detail)
    case 'attempt:retry':
      return line(
        'clock',
        sent
          ? `Sent to ${who}: it did not go through, so Herald tries again later`
          : `Not sent to ${who} yet: Herald tries again later`,
        entry.detail,
      )
    case 'attempt:check':
      return line(
        'circle-help',
        `Sent to ${who}: ${network} gave no clear answer, so Herald looks for the post before sending again`,
        entry.detail,
      )
    case 'attempt:stuck':
      return line(
        'triangle-alert',
        `${sent ? `Sent to ${who}` : who}: whether it went out is unknown, so Herald stopped until you check the profile`,
        entry.detail,
      )
    case 'interrupted:check':
      return line(
        'unplug',
        `The send to ${who} was interrupted: Herald looks on ${network} before sending anything again`,
      )
    case 'interrupted:stuck':
      return line(
        'unplug',
        `The send to ${who} was interrupted: whether it went out is unknown, so Herald stopped until you check the profile`,
      )
    case 'reset:look':
      return line(
        'rotate-ccw',
        `Released by a person: Herald looks on ${network} before sending anything again`,
      )
    case 'reset:release':
      return line('rotate-ccw', 'Released by a person: marked failed, to be retried')
    case 'reset:confirm':
      return line('rotate-ccw', `A person saw it on ${network}: recorded as published`)
    case 'retried:rescheduled':
      return line('refresh-cw', 'Retried at a new time')
    case 'retried:approved':
      return line('refresh-cw', 'Retried once an owner approved it')
    default:
      return line('refresh-cw', 'Retried now')
  }
}

/** What a post made before its history was recorded still tells: its sends and how it ended. */
function untoldLines(post: PostView, target: Target): HistoryLine[] {
  const who = profileName(target)
  const lines: HistoryLine[] = []
  const ended = target.publishedAt ?? post.publishedAt ?? ''
  if (post.attempts > 0)
    lines.push({
      at: ended,
      icon: 'send',
      text: `Sent to ${who}: ${post.attempts} attempt${post.attempts === 1 ? '' : 's'}`,
    })
  if (target.status === 'published')
    lines.push({ at: ended, icon: 'circle-check', text: `Published on ${who}` })
  if (target.status === 'failed')
    lines.push({
      at: '',
      icon: 'circle-x',
      text: `Failed on ${who}`,
      ...(target.error ? { detail: errorInWords(target.error) } : {}),
    })
  return lines
}

/** Every line of one profile's history, oldest first; undated lines (an old post's end) last. */
export function profileHistory(post: PostView): HistoryLine[] {
  const target = post.targets[0]
  if (!target) return []
  const lines: HistoryLine[] = [{ at: post.createdAt, icon: 'file-pen', text: 'Created' }]
  if (post.approval?.state === 'pending')
    lines.push({ at: post.createdAt, icon: 'hourglass', text: 'Waiting for an owner’s approval' })
  if (post.approval?.decidedAt)
    lines.push({
      at: post.approval.decidedAt,
      icon: post.approval.state === 'rejected' ? 'ban' : 'badge-check',
      text: post.approval.state === 'rejected' ? 'Sent back by an owner' : 'Approved by an owner',
    })
  const recorded = target.history ?? []
  if (recorded.length > 0) lines.push(...recorded.map((entry) => entryInWords(entry, target)))
  else lines.push(...untoldLines(post, target))
  const dated = lines.filter((l) => l.at).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
  return [...dated, ...lines.filter((l) => !l.at)]
}

function Line({ line }: { line: HistoryLine }) {
  return (
    <li>
      {line.at ? <time datetime={line.at}>{instant(line.at)}</time> : <span class="muted">Then</span>}
      <span class="what">
        <Icon name={line.icon} />
        <span>
          {line.text}
          {line.detail ? <span class="detail">{line.detail}</span> : null}
        </span>
      </span>
    </li>
  )
}

/** The History section: one list per profile of the compose, each under the profile's avatar and name. */
export function History({ compose }: { compose: PostView[] }) {
  return (
    <section aria-labelledby="history-head">
      <h2 id="history-head">History</h2>
      <div class="histories">
        {compose.map((post) => {
          const target = post.targets[0]
          if (!target) return null
          const name = profileName(target)
          const id = `history-${post.id}`
          return (
            <section class="card history-card" aria-labelledby={id}>
              <h3 id={id} class="profile-line">
                <span class="html-part" dangerouslySetInnerHTML={{ __html: avatar(target, 'small') }} />
                <span class="handle">{name}</span>
              </h3>
              <ol class="history">
                {profileHistory(post).map((line) => (
                  <Line line={line} />
                ))}
              </ol>
            </section>
          )
        })}
      </div>
    </section>
  )
}
